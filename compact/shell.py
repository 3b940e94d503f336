"""Running one bash command for the agent: its own process group, a timeout, an output cap.

Nothing a command starts outlives the call: when the shell exits, whatever it left running
in the background (``sleep 100 &``) is killed with its group; so is everything on a timeout,
at the output cap, or when the user presses Ctrl-C (the ``KeyboardInterrupt`` is re-raised
after the group is gone, for the agent loop to answer the call as interrupted).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

GRACE = 0.2          # seconds to read what a finished shell's background jobs still print


@dataclass
class Finished:
    output: bytes
    returncode: int
    timed_out: bool = False
    stopped: bool = False             # stopped at the output cap


def run_command(command: str | list[str], cwd: Path, timeout: float, max_bytes: int,
                env: dict[str, str] | None = None) -> Finished:
    """Run ``command`` with ``/bin/sh -c`` (or ``command`` as a program and its arguments,
    such as the sandbox's command line) in ``env``; see the module docstring."""
    deadline = time.monotonic() + timeout
    held: list[int] = []
    release = _hold_interrupts(held)     # a Ctrl-C while the shell starts waits for its pid
    process = None
    try:
        process = subprocess.Popen(command, shell=isinstance(command, str), cwd=cwd, env=env,
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
        if process is not None:
            kill_group(process)
            process.stdout.close()
            returncode = process.wait()
    return Finished(data, returncode, timed_out, stopped)


def _hold_interrupts(held: list[int]) -> Callable[[], None]:
    """Hold SIGINT (record it in ``held``) until the returned function is called.

    Why: Ctrl-C during ``Popen()`` would raise before the caller has the process, and the
    shell, already running in its own session, would be left alive. Only the main thread can
    set handlers; elsewhere nothing is held.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):                    # SIG_IGN / SIG_DFL: nothing to hold
        return lambda: None
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    restored = []

    def release() -> None:
        if not restored:
            restored.append(True)
            signal.signal(signal.SIGINT, previous)
    return release


def _shell_exited(process: subprocess.Popen) -> bool:
    """Whether the shell has exited, without reaping it: its pid (the group's id) stays
    taken until ``kill_group`` has run, so the kill can never reach a recycled pid."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:                                  # no waitid: reap (a tiny pid race)
        return process.poll() is not None
    try:
        return waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:                           # already reaped
        return True


def _collect(process: subprocess.Popen, deadline: float, max_bytes: int
             ) -> tuple[bytes, bool, bool]:
    """Read output until EOF, the timeout or the cap: (data, timed out, stopped at cap).

    Why not ``communicate()``: it holds all output in memory (``yes`` fills gigabytes
    before a 30 s timeout) and waits for grandchildren that keep the pipe open. Once the
    shell itself has exited, the pipe is read on until it stays quiet for ``GRACE`` seconds
    (a background job holding it open does not keep the call waiting).
    """
    chunks: list[bytes] = []
    size, quiet_since = 0, None          # quiet_since: the shell has exited and no data came
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if now >= deadline:
                return b"".join(chunks), True, False
            if quiet_since is None and _shell_exited(process):
                quiet_since = now
            if quiet_since is not None and now - quiet_since > GRACE:
                return b"".join(chunks), False, False
            if not selector.select(min(deadline - now, 0.05)):
                continue
            chunk = os.read(process.stdout.fileno(), 65_536)
            if not chunk:
                return b"".join(chunks), False, False
            if quiet_since is not None:
                quiet_since = time.monotonic()      # still draining: not quiet yet
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                return b"".join(chunks), False, True


def kill_group(process: subprocess.Popen) -> None:
    """Stop the shell and everything it started (it runs in its own session)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
