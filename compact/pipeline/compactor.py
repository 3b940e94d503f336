"""The Compactor: the lesson's pipeline, run before every model call. Start reading here.

    messages ──► tool_result_budget ──► snip_compact ──► micro_compact ──┐
                 (big results → disk)   (head + tail)    (old results →  │
                                                          placeholder)   ▼
                                     estimate_size(messages) > context_limit ?
                                          │ no                     │ yes
                                          ▼                        ▼
                                     model call ◄──────── compact_history
                                          │              (transcript + summary)
                          "prompt is too long"
                                          ▼
                                   reactive_compact (once) ──► model call again

Stages 1–3 never call a model; stage 4 and the reactive path call the summariser passed in.
Each stage is a function in the file of its name returning the new list and its ``Change``; a
history the API would refuse raises ``HistoryError`` first, and a failing stage leaves the
caller's list as it was. The model call and its one retry are in ``compact/loop.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from .compact_history import Summarizer, compact_history, reactive_compact
from .errors import SummaryError
from .events import StageEvent
from .limits import Limits
from .micro_compact import micro_compact
from .snip_compact import snip_compact
from .tool_result_budget import tool_result_budget
from .validation import checked_size

LESSON_STAGES: dict[str, Callable] = {       # in the lesson's order
    "tool_result_budget": tool_result_budget, "snip_compact": snip_compact,
    "micro_compact": micro_compact, "compact_history": compact_history,
    "reactive_compact": reactive_compact}
STAGES = tuple(LESSON_STAGES)


class Compactor:
    """The lesson's stages bound to a workdir, its limits and a summariser. ``stages``: the
    ones ``prepare`` runs; ``measure``: how a history is measured (``SizeCache().measure``
    remembers messages); ``functions``: stage functions to use instead of the lesson's, by
    name, with the same signatures; ``events``: what every stage did."""

    def __init__(self, workdir: str | Path = ".", limits: Limits = Limits(),
                 summarize: Summarizer | None = None, stages: Iterable[str] = STAGES,
                 measure: Callable[[list], int] = checked_size,
                 functions: dict[str, Callable] | None = None) -> None:
        if summarize is not None and not callable(summarize):      # e.g. a client itself
            raise TypeError("summarize must be a callable (messages) -> str: compact.summarizer_for(client)")
        self.workdir, self.limits, self.summarize = Path(workdir), limits, summarize
        self.stages = frozenset(stages)
        self.functions = {**LESSON_STAGES, **(functions or {})}
        unknown = (self.stages | set(self.functions)) - set(STAGES)
        if unknown:
            raise ValueError(f"unknown stage(s) {sorted(unknown)}; choose from {STAGES}")
        self.measure = measure
        self.events: list[StageEvent] = []

    def prepare(self, messages: list, active_request: str) -> list:
        """The lesson's four steps, cheapest first (a stage not in ``stages`` is skipped)."""
        size = self.measure(messages)             # a history the API would refuse raises here
        if "tool_result_budget" in self.stages:
            messages, size = self._step("tool_result_budget", messages, size)
        if "snip_compact" in self.stages:
            messages, size = self._step("snip_compact", messages, size)
        if "micro_compact" in self.stages:
            messages, size = self._step("micro_compact", messages, size)
        if "compact_history" in self.stages and size > self.limits.context_limit:
            messages, size = self._step("compact_history", messages, size, active_request)
        return list(messages)

    def tool_result_budget(self, messages: list) -> list:
        return self._step("tool_result_budget", messages)[0]

    def snip_compact(self, messages: list) -> list:
        return self._step("snip_compact", messages)[0]

    def micro_compact(self, messages: list) -> list:
        return self._step("micro_compact", messages)[0]

    def compact_history(self, messages: list, active_request: str) -> list:
        return self._step("compact_history", messages, None, active_request)[0]

    def reactive_compact(self, messages: list, active_request: str) -> list:
        return self._step("reactive_compact", messages, None, active_request)[0]

    def _step(self, stage: str, messages: list, size: int | None = None,
              active_request: str = "") -> tuple[list, int]:
        """One stage on a checked history (``size``: just measured); its event records the
        sizes before and after. Returns the new list and its size."""
        size = self.measure(messages) if size is None else size
        result, change = self.functions[stage](messages, *self._arguments(stage, active_request))
        after = self.measure(result) if change.fired else size
        self.events.append(StageEvent(
            stage, change.fired, messages_before=len(messages), messages_after=len(result),
            size_before=size, size_after=after, files_written=change.files_written,
            placeholders=change.placeholders, detail=change.detail, extra=change.extra))
        return list(result), after

    def _arguments(self, stage: str, active_request: str) -> tuple:     # after the messages
        if stage == "tool_result_budget":
            return self.workdir, self.limits
        if stage in ("snip_compact", "micro_compact"):
            return (self.limits,)
        summary = (active_request, self.workdir, self._summarizer())
        return (*summary, self.limits) if stage == "reactive_compact" else summary

    def _summarizer(self) -> Summarizer:       # checked only when needed: 1–3 never call it
        if self.summarize is None:
            raise SummaryError("compact_history needs a summariser: pass summarize=compact."
                               "summarizer_for(client). The history was left unchanged.")
        return self.summarize
