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

from .texts import register, say

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


register({   # the banner's line on where bash runs
    "sandbox.on": {"en": "[sandbox] bash runs in bubblewrap: it writes only inside the workspace, sees "
                         "no home folder and {reach}; commands that delete or overwrite, or cannot be "
                         "judged, ask first.",
                   "zh": "[沙箱] bash 在 bubblewrap 中运行：只能写工作区内的文件，看不到主目录，"
                         "{reach}；会删除或覆盖文件、或无法判断的命令会先询问。"},
    "sandbox.network": {"en": "has the network", "zh": "可以联网"},
    "sandbox.offline": {"en": "no network", "zh": "不能联网"},
    "sandbox.off": {"en": "[no sandbox] bubblewrap is not available here: bash runs as you, with your "
                          "files and network; every command that is not read-only asks first.",
                    "zh": "[无沙箱] 这里没有 bubblewrap：bash 以你的身份运行，能访问你的文件和网络；"
                          "每条不是只读的命令都会先询问。"},
})


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
        return say("sandbox.on", reach=say("sandbox.network" if network else "sandbox.offline"))
    return say("sandbox.off")
