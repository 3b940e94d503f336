"""The bash tool's sandbox: bubblewrap on Linux, where it is installed and works.

Inside it (``argv``): the system read-only, the workspace the one writable folder, empty
``/tmp`` and home folders (``/root``, ``/home``, ``$HOME``: no ``~/.ssh``), a fresh ``/dev``
and ``/proc``, no network unless asked for, no capability (as root, ``mount -o remount,rw /``
would otherwise make the system writable), its own process namespace (a ``setsid`` process
ends with the shell). ``bubblewrap()`` runs it once: a container may forbid its namespaces.
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
ISOLATED = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL"]

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


@functools.lru_cache(maxsize=1)
def bubblewrap() -> str | None:
    """The path of a bubblewrap that works here, or None."""
    path = shutil.which("bwrap")
    probe = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *ISOLATED,
             SHELL, "-c", "true"]
    try:
        done = path and subprocess.run(probe, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return path if done and done.returncode == 0 else None


def argv(command: str, workspace: Path, network: bool = False) -> list[str]:
    """The command line that runs ``command`` with ``/bin/sh -c`` in the sandbox."""
    hidden = sorted({f for f in (*HIDDEN, os.environ.get("HOME") or "/") if f != "/" and os.path.isdir(f)})
    root = str(Path(workspace).resolve())
    args = [bubblewrap(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for folder in hidden:
        args += ["--tmpfs", folder]
    return [*args, "--bind", root, root, "--chdir", root, *ISOLATED,
            *(["--share-net"] if network else []), SHELL, "-c", command]


def describe(sandboxed: bool, network: bool = False) -> str:
    """One line for the banner: where bash runs and what it can reach."""
    reach = say("sandbox.network" if network else "sandbox.offline")
    return say("sandbox.on", reach=reach) if sandboxed else say("sandbox.off")
