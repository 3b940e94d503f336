"""Where did each probe fact end up: still in context, on disk behind a path, or lost?

"On disk" means recoverable by following a path that is present in the context (and, from
an archive file, the paths it holds in turn): a file inside the workdir that contains the
fact. Paths outside the workdir are never opened.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..pipeline.messages import wire_json
from .workload import Probe

PATH = re.compile(r"(?<![\w/.-])((?:\.?[\w-]+/)*\.?[\w.-]*[\w-]\.(?:txt|jsonl|md|py|toml|log|json))")
ARCHIVES = (".transcripts", ".task_outputs")


def _readable(workdir: Path, relative: str) -> Path | None:
    target = (workdir / relative).resolve()
    if workdir in target.parents and target.is_file():
        return target
    return None


def reachable_texts(context: str, workdir: Path) -> dict[str, str]:
    """Text of every file reachable from the context by paths (archives are followed further,
    however long the chain: each snip archives the marker of the snip before it)."""
    root = workdir.resolve()
    seen: dict[str, str] = {}
    frontier = set(PATH.findall(context))
    while frontier:
        found = set()
        for relative in sorted(frontier - set(seen)):
            target = _readable(root, relative)
            if target is None:
                continue
            text = target.read_text(encoding="utf-8", errors="replace")
            seen[relative] = text
            if relative.startswith(ARCHIVES):
                found |= set(PATH.findall(text))
        frontier = found - set(seen)
    return seen


def retention(probes: Iterable[Probe], messages: list, workdir: str | Path) -> dict[str, str]:
    """probe name → "context", "disk" or "lost"."""
    context = wire_json(messages)
    files = None
    verdict = {}
    for probe in probes:
        if probe.text in context:
            verdict[probe.name] = "context"
            continue
        files = files if files is not None else reachable_texts(context, Path(workdir))
        verdict[probe.name] = "disk" if any(probe.text in t for t in files.values()) else "lost"
    return verdict
