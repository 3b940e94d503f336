"""A file replaced whole or not at all (the lab's copy and settings, the study's remembered sessions)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder: a reader sees
    the old file or the new one, never half of it, even when the disk fills up."""
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
