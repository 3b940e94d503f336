"""The glob tool: one walk of the workspace, a pattern matched per path, and a deadline per name.

``Path.glob`` explores every ``**`` separately (eight of them took 42 s on 1,093 folders), and a
regex over a whole path can backtrack for minutes; here the tree is walked once, hidden names
and symlinked folders are skipped, and a path is matched one name at a time (``fnmatch``) with a
table for ``**``."""

from __future__ import annotations

import fnmatch
import os
import time
from functools import lru_cache
from pathlib import Path


def pattern_parts(pattern: str) -> tuple[str, ...]:
    """The pattern's components: ``""`` and ``"."`` dropped, ``**/**`` made one ``**``."""
    parts: list[str] = []
    for part in pattern.split("/"):
        if part in ("", ".") or (part == "**" and parts[-1:] == ["**"]):
            continue
        parts.append(part)
    return tuple(parts)


@lru_cache(maxsize=4096)
def _name_matches(name: str, part: str) -> bool:
    return fnmatch.fnmatchcase(name, part)


def path_matches(parts: tuple[str, ...], names: tuple[str, ...]) -> bool:
    """Whether the path ``names`` matches the pattern ``parts`` (``**``: zero or more names)."""
    width = len(names) + 1
    row = [False] * width               # row for the pattern suffix parts[k+1:]
    row[len(names)] = True               # the empty pattern matches the empty path
    for part in reversed(parts):
        new = [False] * width
        for j in range(len(names), -1, -1):
            if part == "**":
                new[j] = row[j] or (j < len(names) and new[j + 1])
            else:
                new[j] = j < len(names) and row[j + 1] and _name_matches(names[j], part)
        row = new
    return row[0]


def glob_files(root: Path, pattern: str, timeout: float) -> tuple[list[str], bool]:
    """(sorted matching files relative to ``root``, whether time ran out before every name)."""
    parts = pattern_parts(pattern)
    deadline = time.monotonic() + timeout
    hits: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]      # os.walk skips linked dirs
        base = Path(folder).relative_to(root).parts
        for name in names:
            if time.monotonic() > deadline:
                return sorted(hits), True
            if name.startswith(".") or not path_matches(parts, (*base, name)):
                continue
            path = Path(folder, name)
            if path.is_file() and root in path.resolve().parents:    # a link must stay inside
                hits.append("/".join((*base, name)))
        if time.monotonic() > deadline:
            return sorted(hits), True
    return sorted(hits), False
