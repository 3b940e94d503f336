"""A path as the disk spells it: ``café.md`` typed composed (NFC) finds ``café.md`` stored
decomposed (NFD, as macOS and some archives write it), and the other way round.

Only a name that does not exist as typed is looked up, among the names of its folder that
are the same text under Unicode normalisation; one look-alike is used, several make an error
that names them (which one was meant cannot be told). A name that matches none is kept as
typed (a new file is created as typed).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from .fileio import ToolError


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def look_alikes(folder: Path, name: str) -> list[str]:
    """Names in ``folder`` that are ``name`` under normalisation, but spelled otherwise."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return []
    wanted = _key(name)
    return sorted(e for e in entries if e != name and _key(e) == wanted)


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
