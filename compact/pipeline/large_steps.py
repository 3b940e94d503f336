"""When the cache-friendly configuration compacts: rarely, and then in one large step.

Prompt caching (Anthropic's API, and others) charges a request's prefix that matches an
earlier request at about a tenth of the input price, and writes the rest at about 1.25×.
The lesson's pipeline rewrites the prompt a little on most calls — the snip marker's count
near the top, one more result turned into a placeholder — so the cached prefix ends early
and most of the prompt is written again, call after call. With ``Limits.high_water_mark``
set, stages 2–4 wait: the context only grows at its end (every call reads the last one's
prompt from cache) until it crosses the high-water mark or ``max_messages``; then old
results are cleared and, if still above ``low_water_mark``, the span is summarised
(``bounded_summary.py``) — one large rewrite instead of many small ones.
"""

from __future__ import annotations

from .formats import snip_markers
from .limits import Limits
from .messages import is_tool_result_message, pair_safe_start


def compaction_point(messages: list, size: int, limits: Limits) -> bool:
    """Whether this call is where the context is rewritten (else it is sent as it is)."""
    if size > limits.high_water_mark:
        return True
    return len(messages) > limits.max_messages and \
        len(messages) - len(snip_markers(messages)) > limits.max_messages


def unseen_start(messages: list) -> int:
    """Where the batch the model has not read yet begins (``len`` if there is none): a
    compaction in large steps keeps it, so no result is summarised before it is read."""
    if messages and is_tool_result_message(messages[-1]):
        return pair_safe_start(messages, len(messages) - 1)
    return len(messages)
