"""Where did each probe fact end up? In the ``context`` sent; in an ``archive`` compaction
wrote whose path the context names (or an archive such a file names, however long the chain);
in an ordinary ``workspace`` file the context names (the file happened to hold it); else
``lost``. Paths outside the workdir are never opened.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..pipeline.messages import wire_json
from ..pipeline.storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR
from .workload import Probe

PATH = re.compile(r"(?<![\w/.-])((?:\.?[\w-]+/)*\.?[\w.-]*[\w-]\.(?:txt|jsonl|md|py|toml|log|json))")
ARCHIVES = (TRANSCRIPT_DIR + "/", TOOL_RESULTS_DIR.split("/")[0] + "/")
PLACES = ("context", "archive", "workspace", "lost")


def _read(root: Path, relative: str) -> str | None:      # None outside ``root`` (resolved)
    target = (root / relative).resolve()
    return target.read_text(encoding="utf-8", errors="replace") \
        if root in target.parents and target.is_file() else None


def reachable_archives(context: str, workdir: Path) -> dict[str, str]:
    """Text of every archive compaction wrote that is reachable from the context by paths."""
    root = workdir.resolve()
    seen: dict[str, str] = {}
    frontier = {p for p in PATH.findall(context) if p.startswith(ARCHIVES)}
    while frontier:
        found = set()
        for relative in sorted(frontier):
            text = _read(root, relative)
            if text is None:
                continue
            seen[relative] = text
            found |= {p for p in PATH.findall(text) if p.startswith(ARCHIVES)}
        frontier = found - set(seen)
    return seen


def named_workspace_files(context: str, workdir: Path) -> dict[str, str]:
    """Text of every ordinary workspace file whose path the context names."""
    root = workdir.resolve()
    files = {}
    for relative in sorted(set(PATH.findall(context))):
        if not relative.startswith(ARCHIVES) and (text := _read(root, relative)) is not None:
            files[relative] = text
    return files


def retention(probes: Iterable[Probe], messages: list, workdir: str | Path) -> dict[str, str]:
    """probe name → "context", "archive", "workspace" or "lost"."""
    context, places, verdict = wire_json(messages), None, {}
    for probe in probes:
        if probe.text in context:
            verdict[probe.name] = "context"
            continue
        places = places or {"archive": reachable_archives(context, Path(workdir)),
                            "workspace": named_workspace_files(context, Path(workdir))}
        verdict[probe.name] = next((place for place, files in places.items()
                                    if any(probe.text in text for text in files.values())), "lost")
    return verdict
