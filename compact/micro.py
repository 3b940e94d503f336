"""Stage 3, micro_compact: old tool results become a one-line placeholder.

The newest ``keep_recent_results`` stay whole. Two fixes over the lesson's snippet:
results the model has not seen yet (after the last assistant message) are never replaced,
and a persisted result's placeholder keeps its path, so the full output stays reachable.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .events import StageEvent
from .limits import Limits
from .messages import estimate_size, iter_tool_results, result_text, with_results_replaced

PLACEHOLDER = "[Earlier tool result compacted. Re-run if needed.]"
_SAFE_PATH = r"(\.task_outputs/tool-results/[A-Za-z0-9_-]+(?:\.\d+)?\.txt)"
# re.ASCII: only the names storage.safe_id makes (no look-alike digits or letters).
_PERSISTED = re.compile(r"<persisted-output>\nOutput too large \(\d+ chars\)\. "
                        r"Full output saved to: " + _SAFE_PATH + r"\n", re.ASCII)
_KEPT_PATH = re.compile(r"\[Earlier tool result compacted\. Full output: " + _SAFE_PATH + r"\]",
                        re.ASCII)


def persisted_path(text: str) -> str | None:
    """The path of a persisted result, only if it points inside our tool-results folder.

    A forged marker pointing at ``/etc/passwd`` or ``../x`` does not match, so it is
    treated as ordinary text and never trusted as a path. Nothing here opens a file: a
    kept path is only text the model may pass to read_file, which is workspace-confined.
    """
    match = _PERSISTED.match(text) or _KEPT_PATH.fullmatch(text)
    return match.group(1) if match else None


def placeholder_for(text: str) -> str:
    path = persisted_path(text)
    return f"[Earlier tool result compacted. Full output: {path}]" if path else PLACEHOLDER


def micro_compact(messages: list, limits: Limits = Limits(),
                  archive: Callable[[str, str], str] | None = None, size: int | None = None
                  ) -> tuple[list, StageEvent]:
    """``archive(tool_use_id, text) -> path``, if given, saves a result before it is replaced
    (the archiving variant), so its placeholder can keep the path."""
    size = estimate_size(messages) if size is None else size
    nothing = StageEvent("micro_compact", False, len(messages), len(messages), size, size)
    results = list(iter_tool_results(messages))
    keep = limits.keep_recent_results
    if len(results) <= keep:
        return list(messages), nothing
    seen_until = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"),
                     default=-1)
    older = results[:-keep] if keep else results
    replacements: dict[tuple[int, int], str] = {}
    written: list[str] = []
    for i, j, block in older:
        if i > seen_until:          # the newest batch: the model has not read it yet
            continue
        text = result_text(block)
        if len(text) <= limits.min_compact_chars:
            continue
        placeholder = placeholder_for(text)
        if len(placeholder) >= len(text):   # also: already a placeholder
            continue
        if archive is not None and placeholder == PLACEHOLDER:
            path = archive(block.get("tool_use_id"), text)
            placeholder = placeholder_for(f"[Earlier tool result compacted. Full output: {path}]")
            written.append(path)
        replacements[i, j] = placeholder
    if not replacements:
        return list(messages), nothing
    result, replaced = with_results_replaced(messages, replacements), len(replacements)
    return result, StageEvent(
        "micro_compact", True, len(messages), len(result), size, estimate_size(result),
        placeholders=replaced, files_written=tuple(written),
        detail=f"replaced {replaced} old result(s) with a placeholder, kept the {keep} newest")
