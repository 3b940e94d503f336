"""Workspace files opened, read and edited without leaving the workspace or losing a byte.

* A path is looked up as the disk spells it (``stored_spelling``: NFC ``café.md`` finds NFD).
* Opening walks the path one folder at a time with ``O_NOFOLLOW``: a symlink swapped in fails.
* Reading reads only what is shown; editing changes only the replaced bytes of a UTF-8 file.
* Writing replaces a file whole or not at all (``commit``), one writer at a time (``one_writer``).

A refused file operation raises ``ToolError``, the error of every tool (reported to the model)."""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import secrets
import stat
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import filelock

from .pipeline import CompactError

CHUNK = 1 << 16
MAX_EDIT_BYTES = 64 * 1024 * 1024      # the largest file edit_file edits
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
LOCK_DIR = Path(tempfile.gettempdir()) / f"compact-locks-{os.getuid()}"
LOCK_TIMEOUT = 30.0        # seconds one write waits for another to finish
SWAPPED = ("path {!r} changed while it was being opened (a symlink appeared in it): refused; "
           "only files inside the workspace can be used")


class ToolError(CompactError):
    """A tool refused its input (e.g. a path outside the workspace). Reported to the model."""


def look_alikes(folder: Path, name: str) -> list[str]:
    """Names in ``folder`` that are ``name`` under normalisation, but spelled otherwise."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return []
    wanted = unicodedata.normalize("NFC", name)
    return sorted(e for e in entries if e != name and unicodedata.normalize("NFC", e) == wanted)


def stored_spelling(root: Path, relative: str) -> str:
    """``relative`` with each missing component replaced by its one look-alike on disk."""
    if relative.isascii():
        return relative
    current, parts = root, []
    for part in Path(relative).parts:
        if part not in (".", "..") and not os.path.lexists(current / part):
            found = look_alikes(current, part)
            if len(found) > 1:
                raise ToolError(f"{relative!r} is not in the workspace as typed, and several "
                                f"names look the same in {os.path.relpath(current, root)}/: "
                                f"{', '.join(repr(f) for f in found)}; use the exact one")
            part = found[0] if found else part
        parts.append(part)
        current = current / part
    return os.path.join(*parts) if parts else relative


@contextmanager
def opened_dir(root: Path, target: Path, shown: str, create: bool = False) -> Iterator[int]:
    """A descriptor of ``target``'s folder (a resolved path inside ``root``), reached from
    ``root`` without following links; ``create`` makes missing folders."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for part in target.relative_to(root).parts[:-1]:
            if create:
                with suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
            try:
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as error:
                raise _open_error(error, shown) from error
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _open_error(error: OSError, shown: str) -> Exception:
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return ToolError(SWAPPED.format(shown))
    if error.errno == errno.ENOENT:
        return ToolError(f"no file {shown!r} in the workspace")
    if error.errno == errno.ENXIO:
        return ToolError(f"{shown!r} is not a regular file (a pipe with no reader)")
    return error


@contextmanager
def opened(root: Path, target: Path, shown: str) -> Iterator[tuple[int, int]]:
    """(folder descriptor, file descriptor) of a regular file in the workspace, for reading."""
    if target == root:
        raise ToolError(f"{shown!r} is the workspace folder itself, not a file")
    with opened_dir(root, target, shown) as dir_fd:
        try:
            fd = os.open(target.name, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK,
                         dir_fd=dir_fd)
        except OSError as error:
            raise _open_error(error, shown) from error
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):   # a FIFO or a device would block
                raise ToolError(f"{shown!r} is not a regular file")
            os.set_blocking(fd, True)
            yield dir_fd, fd
        finally:
            os.close(fd)


def read_text(fd: int, max_chars: int, max_lines: int | None) -> tuple[str, bool]:
    """(text, more): the file's start as UTF-8 (bad bytes: U+FFFD), up to just past
    ``max_chars`` characters or ``max_lines`` lines; ``more``: the file goes on."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    parts: list[str] = []
    chars = lines = 0
    while True:
        data = os.read(fd, CHUNK)
        text = decoder.decode(data, final=not data)
        parts.append(text)
        chars += len(text)
        lines += text.count("\n")
        if not data:
            return "".join(parts), False
        if chars > max_chars or (max_lines is not None and lines > max_lines):
            return "".join(parts), True


def read_all(fd: int, shown: str, max_bytes: int = MAX_EDIT_BYTES) -> bytes:
    size = os.fstat(fd).st_size
    if size > max_bytes:
        raise ToolError(f"{shown!r} is {size:,} bytes, more than edit_file edits "
                        f"({max_bytes:,}); use bash (e.g. sed) for it")
    chunks = []
    while data := os.read(fd, CHUNK):
        chunks.append(data)
    return b"".join(chunks)


def write_whole(root: Path, target: Path, shown: str, data: bytes) -> None:
    """Make ``data`` the file's whole content, atomically, keeping its permission bits."""
    with one_writer(target, shown), opened_dir(root, target, shown, create=True) as dir_fd:
        old = existing_mode(dir_fd, target.name, shown)
        commit(dir_fd, target.name, [data], old)


def replace_bytes(root: Path, target: Path, shown: str, old: bytes, new: bytes) -> None:
    """Replace the first ``old`` with ``new`` in a UTF-8 file's raw bytes, under its lock,
    atomically; every other byte stays (any other file is refused, unchanged)."""
    with one_writer(target, shown), opened(root, target, shown) as (dir_fd, fd):
        raw = read_all(fd, shown)
        info = os.fstat(fd)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ToolError(
                f"{shown!r} is not UTF-8 text (byte 0x{raw[error.start]:02x} at offset "
                f"{error.start}); edit_file edits UTF-8 files only and changed nothing. Use "
                "bash (e.g. iconv or sed) for other encodings.") from None
        at = raw.find(old)
        if at < 0:
            raise ToolError(f"text not found in {shown}")
        commit(dir_fd, target.name, [raw[:at], new, raw[at + len(old):]], info)



@contextmanager
def one_writer(target: Path, shown: str) -> Iterator[None]:
    """Hold the lock of ``target`` (a resolved path) for the block."""
    LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
    name = hashlib.sha256(os.fsencode(target)).hexdigest()[:32] + ".lock"
    try:
        with filelock.FileLock(LOCK_DIR / name, timeout=LOCK_TIMEOUT):
            yield
    except filelock.Timeout:
        raise ToolError(f"another write to {shown!r} has held it for {LOCK_TIMEOUT:g} s; "
                        "nothing was changed: try again") from None


def existing_mode(dir_fd: int, name: str, shown: str) -> os.stat_result | None:
    """The stat of the file ``name`` replaces (None if none); only a regular file is accepted."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):            # the path was resolved: a link appeared since
        raise ToolError(SWAPPED.format(shown))
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{shown!r} is not a regular file; nothing was written")
    return info


def commit(dir_fd: int, name: str, chunks: Iterable[bytes], old: os.stat_result | None) -> None:
    """Make ``chunks`` the whole content of ``name`` in ``dir_fd``: a synced temporary file,
    given the old file's mode (and owner, where allowed), renamed over it."""
    temp = f".{name[:200]}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o666,
                 dir_fd=dir_fd)
    try:
        try:
            if old is not None:
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
                if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                    with suppress(PermissionError):    # not root: the file becomes ours
                        os.fchown(fd, old.st_uid, old.st_gid)
            for chunk in chunks:
                view = memoryview(chunk)
                while view:                # a short write goes on where it stopped
                    view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    os.fsync(dir_fd)


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file: readers never see half of it."""
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False)
    try:
        os.chmod(handle.name, stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644)
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
