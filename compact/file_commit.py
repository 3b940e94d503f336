"""A workspace file replaced whole or not at all, one writer at a time.

* ``commit`` writes the new content to a temporary file in the same folder, syncs it, gives
  it the old file's permission bits (and owner, where allowed), renames it over the old
  name in one step, then syncs the folder: a full disk, a file-size limit or a crash
  part-way leaves the old file whole and no temporary file behind. When it returns, the
  new content is on disk.
* ``one_writer`` is a lock (``filelock``) per file, held by ``write_file`` and ``edit_file``
  from reading to renaming, so two agents (threads or processes) editing one file each
  see the other's edit: none is lost. Its lock files live in the system's temp folder,
  never in the workspace. It does not hold ``bash``, which writes as it likes.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import filelock

from .errors import ToolError

LOCK_DIR = Path(tempfile.gettempdir()) / f"compact-locks-{os.getuid()}"
LOCK_TIMEOUT = 30.0        # seconds one write waits for another to finish
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def existing_mode(dir_fd: int, name: str, shown: str) -> os.stat_result | None:
    """The stat of the file ``name`` is replacing (None if there is none); a folder, pipe,
    device or symlink is refused."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):            # the path was resolved: a link appeared since
        raise ToolError(f"path {shown!r} changed while it was being opened (a symlink appeared "
                        "in it): refused; only files inside the workspace can be used")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{shown!r} is not a regular file; nothing was written")
    return info


def commit(dir_fd: int, name: str, chunks: Iterable[bytes], old: os.stat_result | None) -> None:
    """Make ``chunks`` the whole content of ``name`` in the folder ``dir_fd``, atomically."""
    temp = f".{name[:200]}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o666,
                 dir_fd=dir_fd)
    try:
        try:
            if old is not None:
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
                if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                    _keep_owner(fd, old)
            for chunk in chunks:
                _write_all(fd, chunk)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    os.fsync(dir_fd)


def _keep_owner(fd: int, old: os.stat_result) -> None:
    try:
        os.fchown(fd, old.st_uid, old.st_gid)
    except PermissionError:        # not root: the file becomes ours, as any editor's would
        pass
