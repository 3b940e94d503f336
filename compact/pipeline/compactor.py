"""The Compactor: the lesson's four stages bound to a workdir, limits and a summariser.

Start reading the package here. One call, ``prepare``, runs before every model call:

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
Sizes and validity are remembered per message (``SizeCache``): a turn costs what is new.

The cache-friendly configuration (``Limits.high_water_mark``, see ``large_steps.py``)
runs the same stages rarely and in large steps, so the prompt's prefix stays cached.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .bounded_summary import compact_span
from .compact_history import compact_history, reactive_compact
from .errors import SummaryError
from .events import StageEvent
from .large_steps import compaction_point, unseen_start
from .limits import Limits
from .messages import validate_history
from .micro_compact import micro_compact
from .size_cache import SizeCache
from .snip_compact import snip_compact
from .storage import persist_tool_result, write_transcript
from .summary import Summarizer, as_summarizer
from .tool_result_budget import tool_result_budget

STAGES = ("tool_result_budget", "snip_compact", "micro_compact", "compact_history",
          "reactive_compact")


class Compactor:
    """Runs the lesson's pipeline; ``events`` records what every stage did."""

    def __init__(self, workdir: str | Path = ".", limits: Limits = Limits(),
                 summarize: Any = None, stages: Iterable[str] = STAGES,
                 model: str | None = None, archive: bool = False) -> None:
        """``archive=True`` is the archiving variant: whatever a stage removes is written to
        disk first and the context keeps its path (nothing lost, only moved)."""
        self.workdir = Path(workdir)
        self.archive = archive
        self.limits = limits
        self.stages = frozenset(stages)
        unknown = self.stages - set(STAGES)
        if unknown:
            raise ValueError(f"unknown stage(s) {sorted(unknown)}; choose from {STAGES}")
        self._summarize = summarize
        self._model = model
        self.events: list[StageEvent] = []
        self.sizes = SizeCache()

    def measure(self, messages: list) -> int:
        """``estimate_size(messages)``, exact, after validating; only messages not seen
        before (or changed since) are serialised and checked."""
        return self.sizes.measure(messages)

    @property
    def summarize(self) -> Summarizer:
        """The summariser, checked only when stage 4 needs it: stages 1–3 never call a model."""
        if self._summarize is None:
            raise SummaryError(
                "compact_history needs a summariser and this Compactor has none: pass "
                "summarize=<a client, e.g. compact.make_client()> or a callable "
                "(messages) -> str. The history was left unchanged.")
        if not callable(self._summarize) or hasattr(self._summarize, "messages"):
            self._summarize = as_summarizer(self._summarize, self._model, self.limits)
        return self._summarize

    def _record(self, pair: tuple[list, StageEvent]) -> list:
        result, event = pair
        self.events.append(event)
        return result

    def tool_result_budget(self, messages: list) -> list:
        validate_history(messages)
        return self._record(tool_result_budget(messages, self.workdir, self.limits))

    def _archive_result(self, tool_use_id: str, text: str) -> str:
        return persist_tool_result(self.workdir, tool_use_id, text).as_posix()

    def _archive_gap(self, gap: list) -> str:
        return write_transcript(self.workdir, gap).as_posix()

    def _snip(self, messages: list, size: int | None = None) -> list:
        return self._record(snip_compact(
            messages, self.limits, self._archive_gap if self.archive else None, size))

    def _micro(self, messages: list, size: int | None = None, limits: Limits | None = None) -> list:
        return self._record(micro_compact(
            messages, limits or self.limits, self._archive_result if self.archive else None, size))

    def _history(self, messages: list, active_request: str, keep_from: int | None = None) -> list:
        if self.limits.summary_max_chars or self.limits.high_water_mark:
            return self._record(compact_span(messages, active_request, self.workdir,
                                             self.summarize, self.limits.summary_max_chars,
                                             keep_from))
        return self._record(compact_history(
            messages, active_request, self.workdir, self.summarize, self.archive))

    def snip_compact(self, messages: list) -> list:
        validate_history(messages)
        return self._snip(messages)

    def micro_compact(self, messages: list) -> list:
        validate_history(messages)
        return self._micro(messages)

    def compact_history(self, messages: list, active_request: str) -> list:
        validate_history(messages)
        return self._history(messages, active_request)

    def reactive_compact(self, messages: list, active_request: str) -> list:
        validate_history(messages)
        return self._record(reactive_compact(
            messages, active_request, self.workdir, self.summarize, self.limits))

    def prepare(self, messages: list, active_request: str, size: int | None = None) -> list:
        """Stages 1→2→3, then compact_history only if still over the limit.

        ``size``: what ``self.measure(messages)`` just returned, if the caller took it (the
        agent loop does); it has validated the list, so prepare does not measure again."""
        if size is None or not self.sizes.just_measured(messages, size):
            size = self.measure(messages)       # validates; then the size is carried along
        result = list(messages)
        if "tool_result_budget" in self.stages:
            result = self._record(tool_result_budget(result, self.workdir, self.limits, size))
            size = self.events[-1].size_after
        if self.limits.high_water_mark:
            return self._in_large_steps(result, active_request, size)
        if "snip_compact" in self.stages:
            result = self._snip(result, size)
            size = self.events[-1].size_after
        if "micro_compact" in self.stages:
            result = self._micro(result, size)
            size = self.events[-1].size_after
        if "compact_history" in self.stages and size > self.limits.context_limit:
            result = self._history(result, active_request)
        return result

    def _in_large_steps(self, messages: list, active_request: str, size: int) -> list:
        """The cache-friendly flow: below the high-water mark nothing is rewritten (stage 1
        touches only the batch not yet sent); above it, old results are cleared at once and,
        if the context is still above the low-water mark, the span is summarised, keeping
        the batch the model has not read."""
        if not compaction_point(messages, size, self.limits):
            return messages
        if "micro_compact" in self.stages:
            messages = self._micro(messages, size, self.limits.with_(micro_compact_above=0))
            size = self.events[-1].size_after
        if "compact_history" in self.stages and (size > self.limits.low_water_mark
                                                 or len(messages) > self.limits.max_messages):
            messages = self._history(messages, active_request, unseen_start(messages))
        return messages
