"""Where compaction puts what leaves the context: transcripts and persisted tool results.

Layout, as in the lesson::

    <workdir>/.transcripts/transcript-0001.jsonl        one message per line
    <workdir>/.task_outputs/tool-results/<id>.txt       a tool result, byte for byte

Writes are atomic (temp file, then a hard link that fails rather than overwrite; where
the file system has no hard links, a reserved name then a rename), so a crash or a full
disk never leaves half a file, and nothing already on disk is replaced.

``.transcripts/`` and ``.task_outputs/`` hold a ``.gitignore`` of ``*`` from the moment they
exist (each is made under a temporary name with it, then renamed into place), so
``git add -A`` in a learner's repository never publishes what the agent read or ran.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from .errors import StorageError
from .messages import to_plain

TRANSCRIPT_DIR = ".transcripts"
TOOL_RESULTS_DIR = ".task_outputs/tool-results"
GITIGNORE = "# written by compact: what the agent read and ran stays out of git\n*\n"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_ID_CHARS = 64
_RESERVED = re.compile(r"(?:CON|PRN|AUX|NUL|COM\d|LPT\d)", re.IGNORECASE)   # Windows device names


def safe_id(tool_use_id: object) -> str:
    """A file-name-safe form of a tool_use_id: no '/', '..', NUL, and at most 64 + 9 chars.

    Distinct unsafe ids map to distinct names (a hash suffix is added whenever the id was
    changed), so ``../../x`` can never write outside the folder nor collide with ``x``.
    """
    raw = str(tool_use_id) if tool_use_id is not None else ""
    clean = _UNSAFE.sub("_", raw)[:MAX_ID_CHARS].strip("_") or "unknown"
    if clean != raw or _RESERVED.fullmatch(clean):
        digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        clean = f"{clean}-{digest}"
    return clean


def _ensure_dir(folder: Path, what: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StorageError(
            f"cannot create the {what} folder {folder}: {error.strerror or error}. "
            "Make the workdir writable (or pass another workdir); the history was left unchanged."
        ) from error


# ---- issue 23: the folders carry a .gitignore from their first moment (begin) ----
def ensure_ignored(workdir: Path, top: str, what: str, older: bool = False) -> None:
    """Create ``workdir/top`` (if missing) already holding ``GITIGNORE``; with ``older``,
    also add it to a folder an older version made without one (after a successful write,
    so a failed one changes nothing on disk)."""
    folder = Path(workdir) / top
    try:
        if not folder.is_dir():
            Path(workdir).mkdir(parents=True, exist_ok=True)
            temp = Path(tempfile.mkdtemp(dir=workdir, prefix=f".{top.strip('.')}-new-"))
            (temp / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
            try:
                os.rename(temp, folder)
            except OSError:               # made meanwhile by another writer: keep theirs
                os.unlink(temp / ".gitignore")
                os.rmdir(temp)
        if older and not (folder / ".gitignore").exists():
            (folder / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    except OSError as error:
        raise StorageError(
            f"cannot create the {what} folder {folder}: {error.strerror or error}. "
            "Make the workdir writable (or pass another workdir); the history was left unchanged."
        ) from error
# ---- issue 23 (end) ----


def _check_inside(workdir: Path, folder: Path, what: str) -> None:
    """Why: a symlinked ``.transcripts`` (``ln -s /etc .transcripts`` from bash) must not
    turn compaction into a write outside the project."""
    if Path(workdir).resolve() not in folder.resolve().parents:
        raise StorageError(
            f"the {what} folder {folder} leads outside the workdir (a symlink?); refusing to "
            "write there. Remove the link (or pass another workdir); the history was left "
            "unchanged.")


def _same_bytes(target: Path, data: bytes) -> bool:
    return (not target.is_symlink() and target.is_file()
            and target.stat().st_size == len(data) and target.read_bytes() == data)


def _place(tmp_path: str, target: Path) -> None:
    """Give the finished temp file its name; FileExistsError if the name is taken."""
    try:
        os.link(tmp_path, target)
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        # No hard links here (some mounted drives): reserve the name, then rename onto it.
        os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        try:
            os.replace(tmp_path, target)
        except OSError:
            os.unlink(target)             # only the empty name we reserved a moment ago
            raise


def write_new_file(folder: Path, names: list[str], data: bytes, what: str) -> Path:
    """Write ``data`` atomically under the first of ``names`` that is free; return its path.

    If a candidate already holds exactly these bytes, that file is reused (persisting the
    same result twice is not an error). Nothing that exists is ever overwritten.
    """
    _ensure_dir(folder, what)
    tmp_path = None
    try:
        fd, tmp_path = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        for name in names:
            target = folder / name
            try:
                _place(tmp_path, target)
                return target
            except FileExistsError:
                if _same_bytes(target, data):
                    return target
        raise StorageError(f"no free file name for the {what} in {folder}")
    except StorageError:
        raise
    except OSError as error:
        raise StorageError(
            f"cannot write the {what} in {folder}: {error.strerror or error}. Free some disk "
            "space or make the folder writable; the history was left unchanged."
        ) from error
    finally:
        if tmp_path is not None:
            try:
                os.unlink(tmp_path)
            except OSError:
                pass


def persist_tool_result(workdir: Path, tool_use_id: object, text: str) -> Path:
    """Save a tool result whole; return its path relative to ``workdir``."""
    base = safe_id(tool_use_id)
    names = [f"{base}.txt"] + [f"{base}.{n}.txt" for n in range(2, 1000)]
    _check_inside(workdir, Path(workdir) / TOOL_RESULTS_DIR, "tool-results")
    ensure_ignored(workdir, TOOL_RESULTS_DIR.split("/")[0], "tool-results")
    path = write_new_file(Path(workdir) / TOOL_RESULTS_DIR, names,
                          text.encode("utf-8", "surrogatepass"), "tool-results")
    ensure_ignored(workdir, TOOL_RESULTS_DIR.split("/")[0], "tool-results", older=True)
    return path.relative_to(workdir)


def transcript_name(number: int) -> str:
    return f"transcript-{number:04d}.jsonl"


def write_transcript(workdir: Path, messages: list) -> Path:
    """Save the whole history as JSONL (one message a line); return the path relative to workdir."""
    lines = [json.dumps(to_plain(m), ensure_ascii=False) for m in messages]
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    folder = Path(workdir) / TRANSCRIPT_DIR
    _check_inside(workdir, folder, "transcript")
    ensure_ignored(workdir, TRANSCRIPT_DIR, "transcript")
    existing = len(list(folder.glob("transcript-*.jsonl"))) if folder.is_dir() else 0
    names = [transcript_name(n) for n in range(existing + 1, existing + 10_000)]
    path = write_new_file(folder, names, data, "transcript")
    ensure_ignored(workdir, TRANSCRIPT_DIR, "transcript", older=True)
    return path.relative_to(workdir)


def read_transcript(path: Path) -> list[dict]:
    """Reload a transcript: the exact messages that were saved (lone surrogates included)."""
    with open(path, encoding="utf-8", errors="surrogatepass") as handle:
        return [json.loads(line) for line in handle if line.strip()]
