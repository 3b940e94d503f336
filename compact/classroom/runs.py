"""Run folders: each process owns the ones it makes, and removes nothing another live process owns.

Every run gets a new folder ``<label>-<n>`` of a runs folder two kernels may share. Beside it::

    runs/.runs.lock              held while a run folder is claimed or run folders are removed
    runs/.owners/<token>.lock    held (a file lock) for as long as the owning process lives
    runs/.owners/<token>/<name>  an empty file: run folder <name> belongs to <token>

A run is *live* while a live process owns it, else *finished*. Each new run removes finished runs
beyond the newest ``keep`` per label; folders that vanish meanwhile are skipped, never an error.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

KEEP = 3                      # finished runs kept per label (the newest), besides every live one
FOLDER_LOCK = ".runs.lock"
OWNERS = ".owners"
RUN_NAME = re.compile(r"^(?P<label>[A-Za-z0-9][\w.-]*?)-(?P<n>\d+)$")
CLAIM_TIMEOUT = 60            # seconds a claim waits for another process's removal to finish


@dataclass
class Owner:                # this process's claim on one runs folder, and the lock held while it lives
    token: str
    lock: FileLock
    folder: Path


_owners: dict[tuple[int, Path], Owner] = {}
_owners_lock = threading.Lock()


def _lock_path(runs: Path, token: str) -> Path:
    return runs / OWNERS / f"{token}.lock"


def _owner(runs: Path) -> Owner:
    """This process's owner of ``runs``, made (or made again, after ``rm -rf runs``) on first use."""
    key = (os.getpid(), runs.resolve())
    with _owners_lock:
        owner = _owners.get(key)
        if owner is None or not _lock_path(runs, owner.token).exists():
            if owner is not None:
                owner.lock.release()
            token = f"{os.getpid()}-{secrets.token_hex(4)}"
            (runs / OWNERS / token).mkdir(parents=True, exist_ok=True)
            lock = FileLock(_lock_path(runs, token), thread_local=False)
            lock.acquire(timeout=0)
            owner = _owners[key] = Owner(token, lock, runs / OWNERS / token)
        else:
            owner.folder.mkdir(parents=True, exist_ok=True)
        return owner


def folder_lock(runs: Path) -> FileLock:
    runs.mkdir(parents=True, exist_ok=True)
    return FileLock(runs / FOLDER_LOCK, thread_local=False, timeout=CLAIM_TIMEOUT)


def run_names(runs: Path) -> list[str]:
    """The run folders' names in ``runs`` (``<label>-<n>``), oldest first within each label."""
    try:
        entries = [entry.name for entry in os.scandir(runs) if entry.is_dir()]
    except FileNotFoundError:
        return []
    names = [name for name in entries if RUN_NAME.match(name)]
    return sorted(names, key=lambda name: (run_label_of(name), int(RUN_NAME.match(name)["n"])))


def run_label_of(name: str) -> str:
    match = RUN_NAME.match(name)
    return match["label"] if match else name


def new_run(runs: str | Path, label: str, keep: int = KEEP) -> Path:
    """A new, empty folder ``<runs>/<label>-<n>`` owned by this process (n: one more than any there);
    finished runs beyond the newest ``keep`` per label are removed."""
    runs = Path(runs)
    if not RUN_NAME.match(f"{label}-1"):
        raise ValueError(f"label {label!r}: use letters, digits, '-', '_' or '.', not starting with '.'")
    with folder_lock(runs):
        owner = _owner(runs)
        taken = [int(RUN_NAME.match(name)["n"]) for name in run_names(runs) if run_label_of(name) == label]
        n = max(taken, default=0) + 1
        while not _claim(runs, owner, f"{label}-{n}"):
            n += 1
        _prune(runs, keep)
    return runs / f"{label}-{n}"


def _claim(runs: Path, owner: Owner, name: str) -> bool:
    """Make run folder ``name``, recorded as this process's before it exists; False when taken."""
    record = owner.folder / name
    record.touch()
    try:
        (runs / name).mkdir()
    except BaseException as error:
        record.unlink(missing_ok=True)
        if isinstance(error, FileExistsError):
            return False
        raise
    return True


def _my_token(runs: Path) -> str | None:
    owner = _owners.get((os.getpid(), runs.resolve()))
    return owner.token if owner else None


def _live_owners(runs: Path) -> dict[str, set[str]]:
    """run name → the live processes' tokens that own it; an ended owner is dropped on the way (the
    caller holds the folder lock)."""
    found: dict[str, set[str]] = {}
    try:
        tokens = [entry.name for entry in os.scandir(runs / OWNERS) if entry.is_dir()]
    except FileNotFoundError:
        return found
    mine = _my_token(runs)
    for token in tokens:
        if token != mine and not _holds_its_lock(runs, token):
            continue
        try:
            names = os.listdir(runs / OWNERS / token)
        except FileNotFoundError:
            continue
        for name in names:
            found.setdefault(name, set()).add(token)
    return found


def _holds_its_lock(runs: Path, token: str) -> bool:
    """True while the process of ``token`` lives; else its records and lock file are removed."""
    probe = FileLock(_lock_path(runs, token), thread_local=False)
    try:
        probe.acquire(timeout=0)
    except Timeout:
        return True
    try:
        shutil.rmtree(runs / OWNERS / token, ignore_errors=True)
        _lock_path(runs, token).unlink(missing_ok=True)
    finally:
        probe.release()
    return False


def _locked(runs: str | Path, work: Callable[[Path], Any], nothing: Any) -> Any:
    """``work(runs)`` under the folder lock; ``nothing`` if there is no such folder."""
    runs = Path(runs)
    if not runs.is_dir():
        return nothing
    with folder_lock(runs):
        return work(runs)


def statuses(runs: str | Path) -> dict[str, str]:
    """Each run folder's status: ``"mine"``, ``"live"`` (another live process's) or ``"finished"``."""
    return _locked(runs, _statuses, {})


def _statuses(runs: Path) -> dict[str, str]:
    names = run_names(runs)                 # listed before the records: a run seen has its record
    owners = _live_owners(runs)
    mine = _my_token(runs)
    return {name: "mine" if mine in owners.get(name, ()) else "live" if owners.get(name) else "finished"
            for name in names}


def _remove_run(runs: Path, name: str) -> bool:
    """Remove a run folder that may vanish or gain a file meanwhile; True when it is gone."""
    for _attempt in range(3):               # "Directory not empty": a writer was still there
        if (runs / name).exists():
            shutil.rmtree(runs / name, ignore_errors=True)
    if (runs / name).exists():
        return False
    for token_dir in (runs / OWNERS).glob("*/"):
        (token_dir / name).unlink(missing_ok=True)
    return True


def surplus(folders: list, keep: int) -> list:
    """Those of ``folders`` (oldest first per label) beyond each label's newest ``keep``."""
    by_label: dict[str, list] = {}
    for folder in folders:
        by_label.setdefault(run_label_of(Path(folder).name), []).append(folder)
    return [folder for same in by_label.values() for folder in same[: max(len(same) - keep, 0)]]


def _prune(runs: Path, keep: int) -> list[Path]:
    finished = [name for name, status in _statuses(runs).items() if status == "finished"]
    return [runs / name for name in surplus(finished, keep) if _remove_run(runs, name)]


def prune(runs: str | Path, keep: int = KEEP) -> list[Path]:
    """Remove finished runs beyond the newest ``keep`` of each label; the folders removed."""
    return _locked(runs, lambda folder: _prune(folder, keep), [])


def remove(runs: str | Path, folders: Iterable[str | Path]) -> list[Path]:
    """Remove those of the given run folders that are this process's or finished; the folders removed."""
    wanted = {Path(folder).name for folder in folders}
    return _locked(runs, lambda folder: [folder / name for name, status in _statuses(folder).items()
                                         if name in wanted and status in ("mine", "finished")
                                         and _remove_run(folder, name)], []) if wanted else []


def folder_bytes(folder: Path) -> int:
    """Bytes in the files under ``folder``; files that vanish while counted count 0."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                continue
    return total


def usage(runs: str | Path) -> tuple[int, int]:
    """(run folders, bytes they hold) in ``runs``."""
    runs = Path(runs)
    names = run_names(runs)
    return len(names), sum(folder_bytes(runs / name) for name in names)
