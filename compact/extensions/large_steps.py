"""The cache-friendly configuration: compact rarely, and then in one large step.

Prompt caching (Anthropic's API, and others) charges a request's prefix that matches an
earlier request at about a tenth of the input price, and writes the rest at about 1.25×.
The lesson's pipeline rewrites the prompt a little on most calls — the snip marker's count
near the top, one more result turned into a placeholder — so the cached prefix ends early
and most of the prompt is written again, call after call. ``CacheFriendlyCompactor`` waits:
the context only grows at its end (every call reads the last one's prompt from cache) until
it crosses ``high_water_mark`` chars or ``max_messages``; then old results are cleared at once
and, if still above ``low_water_mark``, the span is summarised into a bounded summary — one
large rewrite instead of many small ones.

``micro_compact_above`` is a stage that waits for a trigger in the same way, as the API's
context editing does (``clear_tool_uses`` acts only once the prompt is over its ``trigger`` of
input tokens)::

    Compactor(stages=("micro_compact",),
              functions={"micro_compact": functools.partial(micro_compact_above, 400_000)})
"""

from __future__ import annotations

from typing import Any

from ..pipeline.context import Context
from ..pipeline.formats import snip_markers
from ..pipeline.messages import estimate_size, is_tool_result_message, pair_safe_start
from ..pipeline.micro_compact import micro_compact
from .bounded_summary import BoundedSummaryCompactor


def micro_compact_above(trigger: int, messages: list, ctx: Context) -> list:
    """micro_compact, once the context is over ``trigger`` chars (until then, nothing)."""
    return messages if estimate_size(messages) <= trigger else micro_compact(messages, ctx)


def unseen_start(messages: list) -> int:
    """Where the batch the model has not read yet begins (``len`` if there is none): a
    compaction in large steps keeps it, so no result is summarised before it is read."""
    if messages and is_tool_result_message(messages[-1]):
        return pair_safe_start(messages, len(messages) - 1)
    return len(messages)


class CacheFriendlyCompactor(BoundedSummaryCompactor):
    """Stages 2–4 wait for the high-water mark (chars), then go down to the low-water mark."""

    def __init__(self, *args: Any, high_water_mark: int, low_water_mark: int = 0,
                 **kwargs: Any) -> None:
        if not 0 <= low_water_mark < high_water_mark:
            raise ValueError(f"low_water_mark ({low_water_mark}) must be below high_water_mark "
                             f"({high_water_mark}): compaction goes from the high mark down to the low one")
        super().__init__(*args, **kwargs)
        self.high_water_mark, self.low_water_mark = high_water_mark, low_water_mark

    def compaction_point(self, messages: list, size: int) -> bool:
        """Whether this call is where the context is rewritten (else it is sent as it is)."""
        real = len(messages) - len(snip_markers(messages)) if len(messages) > self.limits.max_messages else 0
        return size > self.high_water_mark or real > self.limits.max_messages

    def prepare(self, messages: list, active_request: str) -> list:
        """Stage 1 as always (it touches only the batch not yet sent); then, at a compaction
        point only, old results cleared and the span summarised, keeping the unread batch."""
        size = self.measure(messages)
        if "tool_result_budget" in self.stages:
            messages, size = self._step("tool_result_budget", messages, size)
        if not self.compaction_point(messages, size):
            return list(messages)
        if "micro_compact" in self.stages:
            messages, size = self._step("micro_compact", messages, size)
        if "compact_history" in self.stages and (size > self.low_water_mark
                                                 or len(messages) > self.limits.max_messages):
            self.keep_from = unseen_start(messages)        # the batch the model has not read
            messages, size = self._step("compact_history", messages, size, active_request)
            self.keep_from = None
        return list(messages)
