"""Stage 3, micro_compact: old tool results become a one-line placeholder.

The newest ``keep_recent_results`` stay whole. Two fixes over the lesson's snippet:
results the model has not seen yet (after the last assistant message) are never replaced,
and a persisted result's placeholder keeps its path, so the full output stays reachable.
"""

from __future__ import annotations

from collections.abc import Callable

from .events import StageEvent
from .formats import PLACEHOLDER, kept_path_placeholder, placeholder_for
from .limits import Limits
from .messages import (
    estimate_size,
    iter_tool_results,
    last_assistant_index,
    result_images,
    result_size,
    result_text,
    wire_json,
    with_results_replaced,
)


def micro_compact(messages: list, limits: Limits = Limits(),
                  archive: Callable[[str, str], str] | None = None, size: int | None = None
                  ) -> tuple[list, StageEvent]:
    """``archive(tool_use_id, text) -> path``, if given, saves a result before it is replaced
    (the archiving variant), so its placeholder can keep the path."""
    size = estimate_size(messages) if size is None else size
    nothing = StageEvent.nothing("micro_compact", messages, size)
    if size <= limits.micro_compact_above:      # a trigger, as context editing has one
        return list(messages), nothing
    results = list(iter_tool_results(messages))
    keep = limits.keep_recent_results
    if len(results) <= keep:
        return list(messages), nothing
    seen_until = last_assistant_index(messages)
    older = results[:-keep] if keep else results
    replacements: dict[tuple[int, int], str] = {}
    written: list[str] = []
    for i, j, block in older:
        if i > seen_until:          # the newest batch: the model has not read it yet
            continue
        text, images = result_text(block), result_images(block)
        cost = result_size(block)           # a screenshot counts as an image's tokens
        if cost <= limits.min_compact_chars:
            continue
        placeholder = PLACEHOLDER if images else placeholder_for(text)
        if len(placeholder) >= cost:        # also: already a placeholder
            continue
        if archive is not None and placeholder == PLACEHOLDER:
            # an image result is archived whole, as the JSON of its blocks
            path = archive(block.get("tool_use_id"), wire_json(block["content"]) if images else text)
            placeholder = kept_path_placeholder(path)
            written.append(path)
        replacements[i, j] = placeholder
    if not replacements:
        return list(messages), nothing
    result, replaced = with_results_replaced(messages, replacements), len(replacements)
    return result, StageEvent(
        "micro_compact", True, len(messages), len(result), size, estimate_size(result),
        placeholders=replaced, files_written=tuple(written),
        detail=f"replaced {replaced} old result(s) with a placeholder, kept the {keep} newest")
