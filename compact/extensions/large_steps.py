"""The cache-friendly configuration: compact rarely, and then in one large step, so the cached
prefix (read at a tenth of the price) survives between steps."""

from __future__ import annotations

from typing import Any

from ..pipeline.context import Context
from ..pipeline.formats import conversation_length
from ..pipeline.messages import estimate_size, is_tool_result_message, pair_safe_start
from ..pipeline.micro_compact import micro_compact
from .bounded_summary import BoundedSummaryCompactor


def micro_compact_above(trigger: int, messages: list, ctx: Context) -> list:
    """micro_compact, once the context is over ``trigger`` chars (until then, nothing)."""
    return messages if estimate_size(messages) <= trigger else micro_compact(messages, ctx)


def unseen_start(messages: list) -> int:
    """Where the batch the model has not read yet begins (``len`` if none); never summarised."""
    if messages and is_tool_result_message(messages[-1]):
        return pair_safe_start(messages, len(messages) - 1)
    return len(messages)


class CacheFriendlyCompactor(BoundedSummaryCompactor):
    """The context grows only at its end until it crosses ``high_water_mark`` chars or
    ``max_messages``; then old results are cleared at once and, above ``low_water_mark``, the
    span is summarised into a bounded summary."""

    def __init__(self, *args: Any, high_water_mark: int, low_water_mark: int = 0,
                 **kwargs: Any) -> None:
        if not 0 <= low_water_mark < high_water_mark:
            raise ValueError(f"low_water_mark ({low_water_mark}) must be below high_water_mark "
                             f"({high_water_mark}): compaction goes from the high mark down to the low one")
        super().__init__(*args, **kwargs)
        self.high_water_mark, self.low_water_mark = high_water_mark, low_water_mark

    def compaction_point(self, messages: list, size: int) -> bool:
        """Whether this call is where the context is rewritten (else it is sent as it is)."""
        real = conversation_length(messages) if len(messages) > self.limits.max_messages else 0
        return size > self.high_water_mark or real > self.limits.max_messages

    def prepare(self, messages: list, active_request: str) -> list:
        """Stage 1 as always; at a compaction point only, old results cleared and the span
        summarised, keeping the unread batch."""
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
