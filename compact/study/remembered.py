"""Finished study sessions, remembered on disk, so a notebook run again loads them instead of
replaying the same 100 turns. The key hashes everything that decides a replay (the package's
files, the strategy, Python and the wire libraries). The folder: ``$COMPACT_STUDY_CACHE``
(``off`` turns it off), else ``$XDG_CACHE_HOME/compact/study``, else ``~/.cache/compact/study``."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import sys
import warnings
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ..fileio import write_atomically

PACKAGE = Path(__file__).resolve().parent.parent
FORMAT = 1                                   # bump when SessionReport changes shape
WIRE = ("anthropic", "httpx2", "pydantic")   # what serialises and parses every request
KEY_CHARS = 24
_KEY = re.compile(f"[0-9a-f]{{{KEY_CHARS}}}\\.pickle")


def folder() -> Path | None:
    """Where reports are kept, or None when remembering is off."""
    chosen = os.environ.get("COMPACT_STUDY_CACHE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("off", "0", "") else Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "compact" / "study"


def key(kind: str, name: str, root: Path = PACKAGE) -> str:
    """Every file of the package hashed, the strategy, and the versions that decide a replay."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    versions = [sys.version, *(version(package) for package in WIRE)]
    parts = [FORMAT, kind, name, digest.hexdigest(), versions]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:KEY_CHARS]


def _prefix(kind: str, name: str) -> str:
    return f"{kind}-{name.replace(' ', '-')}-"


def _path(where: Path, kind: str, name: str) -> Path:
    return where / f"{_prefix(kind, name)}{key(kind, name)}.pickle"


def recall(kind: str, name: str) -> Any | None:
    """The kept report of this strategy for the package as it is now, or None."""
    where = folder()
    path = _path(where, kind, name) if where else None
    if path is None or not path.is_file():
        return None
    try:
        report = pickle.loads(path.read_bytes())
    except Exception:                        # damaged or from an unknown shape: replay instead
        return None
    if getattr(report, "strategy", None) != name:
        return None
    report.remembered = str(path)
    return report


def keep(kind: str, name: str, report: Any) -> None:
    """Keep ``report`` (and drop this strategy's entries for other versions of the package)."""
    where = folder()
    if where is None:
        return
    path = _path(where, kind, name)
    try:
        where.mkdir(parents=True, exist_ok=True)
        write_atomically(path, pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL))
        # "strategy-micro-*" also finds "micro only"'s files: only a bare key after the prefix counts
        for old in where.glob(f"{_prefix(kind, name)}*.pickle"):
            if old != path and _KEY.fullmatch(old.name[len(_prefix(kind, name)):]):
                old.unlink(missing_ok=True)
    except OSError as error:                 # the replay's report is returned all the same
        warnings.warn(f"could not keep the {name!r} session in {where} ({error.strerror or error});"
                      " it will be replayed next time. Free some space there, or set "
                      "COMPACT_STUDY_CACHE to a writable folder (or to off).", stacklevel=2)


def remembered(kind: str, name: str, replay: Callable[[], Any]) -> Any:
    """The kept report, or ``replay()``'s, kept for next time."""
    report = recall(kind, name)
    if report is None:
        report = replay()
        keep(kind, name, report)
    return report
