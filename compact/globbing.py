"""The glob tool: one walk of the workspace, a pattern matched per path, and a time limit.

``Path.glob`` explores every ``**`` separately (eight of them took 42 s on 1,093 folders);
here the tree is walked once, ``**/**`` counts as one ``**``, hidden names and symlinked
folders are not entered, and the walk stops at the deadline with what it found so far.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path


def _component(part: str) -> str:
    """One path component of a glob as a regex: ``*`` and ``?`` never cross a ``/``."""
    out, k = [], 0
    while k < len(part):
        char = part[k]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := part.find("]", k + 2)) > 0:     # fnmatch's sets: [a-z], [!x]
            body = part[k + 1:end]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            body = body.replace("\\", "\\\\").replace("^", "\\^")
            out.append("[" + ("^/" if negate else "") + body + "]")
            k = end
        else:
            out.append(re.escape(char))
        k += 1
    return "".join(out)


def glob_regex(pattern: str) -> re.Pattern:
    """The whole relative path a glob accepts, as one regex (``**`` = zero or more folders)."""
    parts: list[str] = []
    for part in pattern.split("/"):
        if part in ("", ".") or (part == "**" and parts[-1:] == ["**"]):
            continue
        parts.append(part)
    regex = ""
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        if part == "**":
            regex += ".*" if last else "(?:.*/)?"
        else:
            regex += _component(part) + ("" if last else "/")
    return re.compile(regex, re.DOTALL)


def glob_files(root: Path, pattern: str, timeout: float) -> tuple[list[str], bool]:
    """(sorted matching files, as posix paths relative to ``root``; whether time ran out)."""
    regex = glob_regex(pattern)
    deadline = time.monotonic() + timeout
    hits: list[str] = []
    for folder, dirs, names in os.walk(root):
        if time.monotonic() > deadline:
            return sorted(hits), True
        dirs[:] = [d for d in dirs if not d.startswith(".")]      # os.walk skips linked dirs
        base = Path(folder).relative_to(root).as_posix()
        for name in names:
            relative = name if base == "." else f"{base}/{name}"
            if name.startswith(".") or not regex.fullmatch(relative):
                continue
            path = Path(folder, name)
            if path.is_file() and root in path.resolve().parents:    # a link must stay inside
                hits.append(relative)
    return sorted(hits), False
