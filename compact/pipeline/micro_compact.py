"""Stage 3, micro_compact: the 3 newest tool results stay whole; older ones over 120 chars become
``[Earlier tool result compacted. Re-run if needed.]``. Two fixes over the lesson's snippet:
results the model has not seen yet are never replaced, and a persisted result keeps its path.
"""

from __future__ import annotations

from .context import Context
from .formats import placeholder_for
from .messages import iter_tool_results, last_assistant_index, result_size, result_text, with_results_replaced


def micro_compact(messages: list, ctx: Context) -> list:
    limits = ctx.limits
    results = list(iter_tool_results(messages))
    keep = limits.keep_recent_results
    if len(results) <= keep:
        return messages
    seen_until, replacements = last_assistant_index(messages), {}
    for i, j, block in results[:len(results) - keep]:
        if i > seen_until:                  # fix 1: the newest batch, not read yet
            continue
        size = result_size(block)           # a screenshot counts as an image's tokens
        placeholder = placeholder_for(result_text(block))   # fix 2: a persisted path stays
        if size > limits.min_compact_chars and len(placeholder) < size:   # (not one already)
            replacements[i, j] = placeholder
    if not replacements:
        return messages
    return with_results_replaced(messages, replacements)
