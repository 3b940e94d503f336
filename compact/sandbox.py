"""The bash tool's sandbox: bubblewrap on Linux, where it is installed and works.

Inside it (``argv``): the whole system read-only (``--ro-bind / /``), the workspace the one
writable folder, a private empty ``/tmp`` and empty home folders (``/root``, ``/home``,
``$HOME``: no ``~/.ssh``, no cloud keys), a fresh ``/dev`` and ``/proc`` (no other
process to see), no network unless asked for, every capability dropped (as root, a
sandboxed ``mount -o remount,rw /`` would otherwise make the system writable again), and
its own process namespace: when the shell ends, everything it started ends with it, even
a process that left the process group (``setsid``).

``available()`` runs bubblewrap once to see that it works here (a container may forbid the
namespaces it needs); where it does not, the Workspace says so and asks before every
command that is not read-only.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

SHELL = "/bin/sh"
HIDDEN = ("/root", "/home", "/tmp", "/var/tmp", "/run/user")


@functools.lru_cache(maxsize=1)
def bubblewrap() -> str | None:
    """The path of a bubblewrap that works here, or None."""
    path = shutil.which("bwrap")
    if path is None:
        return None
    probe = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all",
             "--die-with-parent", "--cap-drop", "ALL", SHELL, "-c", "true"]
    try:
        done = subprocess.run(probe, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return path if done.returncode == 0 else None


def available() -> bool:
    return bubblewrap() is not None


def _hidden() -> list[str]:
    home = os.environ.get("HOME")
    folders = [*HIDDEN, *([home] if home and home != "/" else [])]
    return sorted({f for f in folders if os.path.isdir(f)})


def argv(command: str, workspace: Path, network: bool = False) -> list[str]:
    """The command line that runs ``command`` with ``/bin/sh -c`` in the sandbox."""
    path = bubblewrap()
    if path is None:
        raise RuntimeError("bubblewrap is not available here: install it (Debian: "
                           "apt-get install bubblewrap) or use Workspace(sandbox='off')")
    root = str(Path(workspace).resolve())
    args = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for folder in _hidden():
        args += ["--tmpfs", folder]
    args += ["--bind", root, root, "--chdir", root, "--unshare-all", "--die-with-parent",
             "--cap-drop", "ALL"]
    if network:
        args.append("--share-net")
    return [*args, SHELL, "-c", command]


def describe(sandboxed: bool, network: bool = False) -> str:
    """One line for the banner: where bash runs and what it can reach."""
    if sandboxed:
        return ("[sandbox] bash runs in bubblewrap: it writes only inside the workspace, sees "
                "no home folder and " + ("has the network" if network else "no network")
                + "; commands that delete or overwrite, or cannot be judged, ask first.")
    return ("[no sandbox] bubblewrap is not available here: bash runs as you, with your files "
            "and network; every command that is not read-only asks first.")
