"""Stage 2, snip_compact: over 50 messages, the first 3 (the task) and the last 47 (the current
work) stay, one ``[snipped N messages]`` marker between. A cut never separates a ``tool_use``
from its ``tool_result`` (the API would reject the orphan): the head grows, the tail moves back.
"""

from __future__ import annotations

from .context import Context
from .formats import snip_marker, snip_markers
from .messages import estimate_size, has_tool_use, is_tool_result_message, pair_safe_start


def snip_compact(messages: list, ctx: Context) -> list:
    limits = ctx.limits
    markers = snip_markers(messages)        # an earlier marker is not a message of the task
    if len(messages) - len(markers) <= limits.max_messages:
        return messages
    keep_tail = limits.max_messages - limits.keep_head
    head_end = limits.keep_head
    if head_end > 0 and has_tool_use(messages[head_end - 1]):
        while head_end < len(messages) and is_tool_result_message(messages[head_end]):
            head_end += 1
    tail_start = pair_safe_start(messages, len(messages) - keep_tail)
    if head_end >= tail_start:
        return messages
    gap = messages[head_end:tail_start]
    # an old marker in the gap adds its count: snipping twice reports the true total
    snipped = len(gap) + sum(n - 1 for i, n in markers if head_end <= i < tail_start)
    marker = snip_marker(snipped)
    if len(gap) <= 2 and estimate_size([marker]) >= estimate_size(gap):
        return messages          # only a tiny gap can be as small as its marker
    return [*messages[:head_end], marker, *messages[tail_start:]]
