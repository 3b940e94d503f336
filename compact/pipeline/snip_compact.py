"""Stage 2, snip_compact: too many messages → keep the head and the tail, mark the gap.

The head holds the original task, the tail the current work. A cut never separates an
assistant tool_use from the user message holding its tool_result (the API would reject
the orphan): the head grows forward and the tail start moves back.
"""

from __future__ import annotations

from collections.abc import Callable

from .events import StageEvent
from .formats import snip_marker, snip_markers
from .limits import Limits
from .messages import estimate_size, has_tool_use, is_tool_result_message, pair_safe_start
from .storage import TRANSCRIPT_DIR, transcript_name

# Stands in for the archive's path while deciding whether snipping saves anything at all
# (the archive is written only if it does): a transcript path's usual length.
_ARCHIVE_PROBE = f"{TRANSCRIPT_DIR}/{transcript_name(0)}"


def snip_compact(messages: list, limits: Limits = Limits(),
                 archive: Callable[[list], str] | None = None, size: int | None = None
                 ) -> tuple[list, StageEvent]:
    """``archive(gap) -> path``, if given, saves the snipped messages first (archiving variant)."""
    # Markers do not count as messages, and an old marker in the gap adds its count to the
    # new one: snipping twice reports the true total, and a snipped list is left alone.
    size = estimate_size(messages) if size is None else size
    nothing = StageEvent.nothing("snip_compact", messages, size)
    markers = snip_markers(messages)
    real = len(messages) - len(markers)
    if real <= limits.max_messages:
        return list(messages), nothing

    keep_tail = limits.max_messages - limits.keep_head
    head_end = limits.keep_head
    if head_end > 0 and has_tool_use(messages[head_end - 1]):
        while head_end < len(messages) and is_tool_result_message(messages[head_end]):
            head_end += 1
    tail_start = pair_safe_start(messages, len(messages) - keep_tail)
    if head_end >= tail_start:
        return list(messages), nothing

    gap = messages[head_end:tail_start]
    count = len(gap) + sum(n - 1 for i, n in markers if head_end <= i < tail_start)
    marker = snip_marker(count, _ARCHIVE_PROBE if archive else None)
    result = [*messages[:head_end], marker, *messages[tail_start:]]
    if result == messages or (size_after := estimate_size(result)) > size:
        return list(messages), nothing      # (a marker bigger than the gap saves nothing)
    written: tuple[str, ...] = ()
    if archive is not None:
        path = archive(gap)
        result[head_end] = snip_marker(count, path)
        written = (path,)
        size_after = estimate_size(result)
    return result, StageEvent(
        "snip_compact", True, len(messages), len(result), size, size_after,
        files_written=written,
        detail=f"kept the first {head_end} and last {len(messages) - tail_start} messages, "
               f"snipped {count}", extra={"head_end": head_end, "tail_start": tail_start})
