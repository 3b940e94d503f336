"""Running one bash command for the agent: its own process group, a timeout, an output cap, and
bubblewrap where it works.

Nothing a command starts outlives the call: when the shell exits, whatever it left in the
background (``sleep 100 &``) is killed with its group; so is everything on a timeout, at the
cap, or on Ctrl-C (the ``KeyboardInterrupt`` is re-raised once the group is gone). Its
environment is the caller's less every credential (names holding KEY, TOKEN, SECRET, PASS,
AUTH, ...; ``ANTHROPIC_*``; URLs with a password; ``BASH_ENV``/``ENV``, which a shell would
run first), its ``PATH`` less relative folders and the workspace's (``ls`` is never its file).

Its sandbox, on Linux where bubblewrap is installed and works (``sandbox_argv``): the system
read-only, the workspace the one writable folder, empty ``/tmp`` and home folders (``/root``,
``/home``, ``$HOME``: no ``~/.ssh``), a fresh ``/dev`` and ``/proc``, no network unless asked
for, no capability (as root, ``mount -o remount,rw /`` would otherwise make the system
writable), its own process namespace (a ``setsid`` process ends with the shell).
``bubblewrap()`` runs it once: a container may forbid its namespaces.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .texts import say

GRACE = 0.2          # seconds to read what a finished shell's background jobs still print
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^ANTHROPIC_"
                          r"|^(BASH_)?ENV$", re.IGNORECASE)
_URL_WITH_USER = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s@]+@", re.IGNORECASE)


def command_environment(environ: dict[str, str], workspace: Path) -> dict[str, str]:
    """``environ`` less its credentials, with a ``PATH`` that cannot lead into the workspace."""
    kept = {k: v for k, v in environ.items()
            if not (_SECRET_NAME.search(k) or _URL_WITH_USER.search(v))}
    outside = [p for p in kept.get("PATH", "").split(os.pathsep)
               if os.path.isabs(p) and not Path(p).resolve().is_relative_to(workspace.resolve())]
    return {**kept, "PATH": os.pathsep.join(outside)} if "PATH" in kept else kept


@dataclass
class Finished:
    output: bytes
    returncode: int
    timed_out: bool = False
    stopped: bool = False             # stopped at the output cap


def run_command(command: str | list[str], cwd: Path, timeout: float, max_bytes: int) -> Finished:
    """Run ``command`` with ``/bin/sh -c``, or as a program's argv (the sandbox's), in ``cwd``."""
    deadline = time.monotonic() + timeout
    held: list[int] = []
    release = _hold_interrupts(held)     # a Ctrl-C while the shell starts waits for its pid
    process = None
    try:
        process = subprocess.Popen(command, shell=isinstance(command, str), cwd=cwd,
                                   env=command_environment(dict(os.environ), cwd),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        release()
        if held:
            raise KeyboardInterrupt
        data, timed_out, stopped = _collect(process, deadline, max_bytes)
        if not (timed_out or stopped) and not _shell_exited(process):
            try:                                   # output closed, shell still running?
                process.wait(timeout=max(deadline - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:                      # also on Ctrl-C: no process of the command survives it
        release()
        if process is not None:           # the shell runs in its own session: stop all of it
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.stdout.close()
            returncode = process.wait()
    return Finished(data, returncode, timed_out, stopped)


def _hold_interrupts(held: list[int]) -> Callable[[], object]:
    """Hold SIGINT (record it in ``held``) until the returned function is called: a Ctrl-C
    during ``Popen()`` would raise before the caller has the process, and leave the shell
    alive. Only the main thread sets handlers; SIG_IGN/SIG_DFL leave nothing to hold."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        return lambda: None
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    return functools.partial(signal.signal, signal.SIGINT, previous)


def _shell_exited(process: subprocess.Popen) -> bool:
    """Whether the shell has exited, without reaping it (its pid, the group's id, stays taken
    until the group is killed: the kill never reaches a recycled pid)."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:                                  # no waitid: reap (a tiny pid race)
        return process.poll() is not None
    try:
        return waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:                           # already reaped
        return True


def _collect(process: subprocess.Popen, deadline: float, max_bytes: int
             ) -> tuple[bytes, bool, bool]:
    """Read output until EOF, the timeout or the cap: (data, timed out, stopped at cap). Not
    ``communicate()``: it holds all output (``yes`` fills gigabytes in 30 s) and waits for
    grandchildren holding the pipe; once the shell has exited, reading goes on only until the
    pipe is quiet for ``GRACE`` seconds."""
    chunks: list[bytes] = []
    size, quiet_since, stopped = 0, None, False   # quiet_since: the shell exited, no data came
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while not stopped and not (timed_out := (now := time.monotonic()) >= deadline):
            if quiet_since is None and _shell_exited(process):
                quiet_since = now
            if quiet_since is not None and now - quiet_since > GRACE:
                break
            if not selector.select(min(deadline - now, 0.05)):
                continue
            chunk = os.read(process.stdout.fileno(), 65_536)
            if not chunk:
                break
            if quiet_since is not None:
                quiet_since = time.monotonic()      # still draining: not quiet yet
            chunks.append(chunk)
            size += len(chunk)
            stopped = size > max_bytes
    return b"".join(chunks), timed_out, stopped

SHELL = "/bin/sh"
HIDDEN = ("/root", "/home", "/tmp", "/var/tmp", "/run/user")
ISOLATED = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL"]


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


def sandbox_argv(command: str, workspace: Path, network: bool = False) -> list[str]:
    """The command line that runs ``command`` with ``/bin/sh -c`` in the sandbox."""
    hidden = sorted({f for f in (*HIDDEN, os.environ.get("HOME") or "/") if f != "/" and os.path.isdir(f)})
    root = str(Path(workspace).resolve())
    args = [bubblewrap(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for folder in hidden:
        args += ["--tmpfs", folder]
    return [*args, "--bind", root, root, "--chdir", root, *ISOLATED,
            *(["--share-net"] if network else []), SHELL, "-c", command]


def describe_sandbox(sandboxed: bool, network: bool = False) -> str:
    """One line for the banner: where bash runs and what it can reach."""
    reach = say("sandbox.network" if network else "sandbox.offline")
    return say("sandbox.on", reach=reach) if sandboxed else say("sandbox.off")
