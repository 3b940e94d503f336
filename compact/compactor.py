"""The Compactor: the four stages bound to a workdir, limits and a summariser.

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

Stages 1–3 are text operations and never call the model; only stage 4 and the reactive
path spend a model call. Every method validates first and works on copies, so a failing
step (bad history, full disk, broken summariser) leaves the caller's list as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import budget, history, micro, snip
from .events import StageEvent
from .limits import Limits
from .messages import estimate_size, validate_history
from .summary import Summarizer, as_summarizer

STAGES = ("tool_result_budget", "snip_compact", "micro_compact", "compact_history",
          "reactive_compact")


class Compactor:
    """Runs the lesson's pipeline; ``events`` records what every stage did."""

    def __init__(self, workdir: str | Path = ".", limits: Limits = Limits(),
                 summarize: Any = None, stages: Iterable[str] = STAGES,
                 model: str | None = None) -> None:
        self.workdir = Path(workdir)
        self.limits = limits
        self.stages = frozenset(stages)
        unknown = self.stages - set(STAGES)
        if unknown:
            raise ValueError(f"unknown stage(s) {sorted(unknown)}; choose from {STAGES}")
        self._summarize = summarize
        self._model = model
        self.events: list[StageEvent] = []

    @property
    def summarize(self) -> Summarizer:
        if self._summarize is None:       # lazily: stages 1–3 never need a model
            from .client import make_client
            self._summarize = make_client(quiet=True)
        if not callable(self._summarize) or hasattr(self._summarize, "messages"):
            self._summarize = as_summarizer(self._summarize, self._model, self.limits)
        return self._summarize

    def _record(self, pair: tuple[list, StageEvent]) -> list:
        result, event = pair
        self.events.append(event)
        return result

    def tool_result_budget(self, messages: list) -> list:
        validate_history(messages)
        return self._record(budget.tool_result_budget(messages, self.workdir, self.limits))

    def snip_compact(self, messages: list) -> list:
        validate_history(messages)
        return self._record(snip.snip_compact(messages, self.limits))

    def micro_compact(self, messages: list) -> list:
        validate_history(messages)
        return self._record(micro.micro_compact(messages, self.limits))

    def compact_history(self, messages: list, active_request: str) -> list:
        validate_history(messages)
        return self._record(history.compact_history(
            messages, active_request, self.workdir, self.summarize))

    def reactive_compact(self, messages: list, active_request: str) -> list:
        validate_history(messages)
        return self._record(history.reactive_compact(
            messages, active_request, self.workdir, self.summarize, self.limits))

    def over_limit(self, messages: list) -> bool:
        return estimate_size(messages) > self.limits.context_limit

    def prepare(self, messages: list, active_request: str) -> list:
        """Stages 1→2→3, then compact_history only if still over the limit."""
        validate_history(messages)
        result = list(messages)
        if "tool_result_budget" in self.stages:
            result = self._record(budget.tool_result_budget(result, self.workdir, self.limits))
        if "snip_compact" in self.stages:
            result = self._record(snip.snip_compact(result, self.limits))
        if "micro_compact" in self.stages:
            result = self._record(micro.micro_compact(result, self.limits))
        if "compact_history" in self.stages and self.over_limit(result):
            result = self._record(history.compact_history(
                result, active_request, self.workdir, self.summarize))
        return result
