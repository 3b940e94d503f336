"""Where compaction puts what leaves the context: ``.transcripts/transcript-0001.jsonl`` and
``.task_outputs/tool-results/<id>.txt``. Writes are atomic and never replace a file; both folders
hold a ``.gitignore`` of ``*`` from their first moment, so ``git add -A`` never publishes them."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from .context import StorageError
from .messages import to_plain

TRANSCRIPT_DIR = ".transcripts"
TOOL_RESULTS_DIR = ".task_outputs/tool-results"
GITIGNORE = "# written by compact: what the agent read and ran stays out of git\n*\n"
MAX_ID_CHARS = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_RESERVED = re.compile(r"(?:CON|PRN|AUX|NUL|COM\d|LPT\d)", re.IGNORECASE)   # Windows device names
_NO_HARD_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK)


def safe_id(tool_use_id: object) -> str:    # hashed if changed: ../../x cannot escape nor collide
    raw = str(tool_use_id) if tool_use_id is not None else ""
    clean = _UNSAFE.sub("_", raw)[:MAX_ID_CHARS].strip("_") or "unknown"
    if clean != raw or _RESERVED.fullmatch(clean):
        clean += "-" + hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return clean


def _folder(workdir: Path, name: str, what: str) -> Path:
    """``workdir/name``, created (its top with a .gitignore); refused if a symlink leads out."""
    folder = Path(workdir) / name
    if Path(workdir).resolve() not in folder.resolve().parents:
        raise StorageError(f"the {what} folder {folder} leads outside the workdir (a symlink?): "
                           "remove the link; the history was left unchanged")
    top = Path(workdir) / name.split("/")[0]
    try:
        if not top.is_dir():                            # made whole, then given its name
            Path(workdir).mkdir(parents=True, exist_ok=True)
            temp = Path(tempfile.mkdtemp(dir=workdir, prefix=f"{top.name}-new-"))
            (temp / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
            with contextlib.suppress(OSError):        # made meanwhile by another writer: theirs
                os.rename(temp, top)
            shutil.rmtree(temp, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StorageError(f"cannot create the {what} folder {folder}: {error.strerror or error}. Make "
                           "the workdir writable; the history was left unchanged.") from error
    return folder


def _place(tmp_path: str, target: Path) -> None:
    """Give the finished temp file its name; FileExistsError if the name is taken."""
    try:
        os.link(tmp_path, target)
    except OSError as error:
        if error.errno not in _NO_HARD_LINKS:
            raise
        os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))   # reserve it
        try:
            os.replace(tmp_path, target)
        except OSError:
            os.unlink(target)             # only the empty name reserved a moment ago
            raise


def write_new_file(folder: Path, names: list[str], data: bytes, what: str) -> Path:
    """Write ``data`` atomically under the first of ``names`` free (or holding these bytes)."""
    tmp_path = None
    try:
        fd, tmp_path = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        for target in (folder / name for name in names):
            try:
                _place(tmp_path, target)
                break
            except FileExistsError:
                if not target.is_symlink() and target.is_file() and \
                        target.stat().st_size == len(data) and target.read_bytes() == data:
                    break
        else:
            raise StorageError(f"no free file name for the {what} in {folder}")
        top = folder if folder.name == TRANSCRIPT_DIR else folder.parent
        if not (top / ".gitignore").exists():
            (top / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
        return target
    except StorageError:
        raise
    except OSError as error:
        raise StorageError(f"cannot write the {what} in {folder}: {error.strerror or error}. Free some disk "
                           "space or make the folder writable; the history was left unchanged.") from error
    finally:
        if tmp_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_path)


def persist_tool_result(workdir: Path, tool_use_id: object, text: str) -> Path:
    base = safe_id(tool_use_id)
    names = [f"{base}.txt"] + [f"{base}.{n}.txt" for n in range(2, 1000)]
    folder = _folder(workdir, TOOL_RESULTS_DIR, "tool-results")
    return write_new_file(folder, names, text.encode("utf-8", "surrogatepass"),
                          "tool-results").relative_to(workdir)


def write_transcript(workdir: Path, messages: list) -> Path:
    data = "\n".join(json.dumps(to_plain(m), ensure_ascii=False) for m in messages) + "\n"
    folder = _folder(workdir, TRANSCRIPT_DIR, "transcript")
    existing = len(list(folder.glob("transcript-*.jsonl")))
    names = [f"transcript-{n:04d}.jsonl" for n in range(existing + 1, existing + 10_000)]
    return write_new_file(folder, names, data.encode("utf-8", "surrogatepass"),
                          "transcript").relative_to(workdir)


def read_transcript(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", errors="surrogatepass") as handle:
        return [json.loads(line) for line in handle if line.strip()]
