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

Every stage is ``stage(messages, ctx) -> list``, in the file of its name; only stage 4 and the
reactive path call a model (the summariser). A ``StageEvent`` records what each stage did. The
model call and its one retry are in ``compact/loop.py``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partialmethod
from pathlib import Path

from .compact_history import compact_history, reactive_compact
from .context import Context, Limits, Summarizer
from .formats import parse_compacted, snipped_count
from .messages import checked_size, iter_tool_results, plain_text
from .micro_compact import micro_compact
from .snip_compact import snip_compact
from .storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR
from .tool_result_budget import tool_result_budget

Stage = Callable[[list, Context], list]
LESSON_STAGES: dict[str, Stage] = {          # in the lesson's order
    "tool_result_budget": tool_result_budget, "snip_compact": snip_compact,
    "micro_compact": micro_compact, "compact_history": compact_history,
    "reactive_compact": reactive_compact}
STAGES = tuple(LESSON_STAGES)


class Compactor:
    """The lesson's stages bound to a workdir, its limits and a summariser. ``stages``: the ones
    ``prepare`` runs; ``functions``: your own stages by name (given a copy)."""

    def __init__(self, workdir: str | Path = ".", limits: Limits = Limits(),
                 summarize: Summarizer | None = None, stages: Iterable[str] = STAGES,
                 functions: dict[str, Stage] | None = None) -> None:
        if summarize is not None and not callable(summarize):      # e.g. a client itself
            raise TypeError("summarize must be a callable (messages) -> str: compact.summarizer_for(client)")
        self.workdir, self.limits, self.summarize = Path(workdir), limits, summarize
        self.stages = frozenset(stages)
        self.functions = {**LESSON_STAGES, **(functions or {})}
        unknown = (self.stages | set(self.functions)) - set(STAGES)
        if unknown:
            raise ValueError(f"unknown stage(s) {sorted(unknown)}; choose from {STAGES}")
        self.measure: Callable[[list], int] = checked_size
        self.events: list[StageEvent] = []

    def prepare(self, messages: list, active_request: str) -> list:
        """The lesson's four steps, cheapest first (a stage not in ``stages`` is skipped)."""
        size = self.measure(messages)             # a history the API would refuse raises here
        for stage in ("tool_result_budget", "snip_compact", "micro_compact"):   # no model call
            if stage in self.stages:
                messages, size = self._step(stage, messages, size)
        if "compact_history" in self.stages and size > self.limits.context_limit:
            messages, size = self._step("compact_history", messages, size, active_request)
        return list(messages)

    def run(self, stage: str, messages: list, active_request: str = "") -> list:
        """One stage on its own, its event recorded: ``compactor.micro_compact(history)``."""
        return self._step(stage, messages, None, active_request)[0]

    tool_result_budget = partialmethod(run, "tool_result_budget")
    snip_compact = partialmethod(run, "snip_compact")
    micro_compact = partialmethod(run, "micro_compact")
    compact_history = partialmethod(run, "compact_history")       # (messages, active_request)
    reactive_compact = partialmethod(run, "reactive_compact")

    def _step(self, stage: str, messages: list, size: int | None = None,
              active_request: str = "") -> tuple[list, int]:
        """One stage on a checked history, its event recorded; the new list and its size."""
        size = self.measure(messages) if size is None else size
        function, before = self.functions[stage], files_under(self.workdir)
        given = messages if function is LESSON_STAGES.get(stage) else copy.deepcopy(messages)
        result = function(given, Context(self.workdir, self.limits, active_request, self.summarize))
        if not isinstance(result, list):
            raise TypeError(f"{stage} returned {type(result).__name__}, not a list of messages: "
                            "return the new list")
        written = tuple(sorted(files_under(self.workdir) - before))
        fired = result != messages
        after = self.measure(result) if fired else size
        detail, extra = describe(stage, messages, result, written, self.limits) if fired else ("", {})
        self.events.append(StageEvent(
            stage, fired, len(messages), len(result), size, after, written,
            changed_results(messages, result) if fired else 0, detail, extra, qualified_name(function)))
        return list(result), after


SUMMARY_STAGES = ("compact_history", "reactive_compact")


@dataclass(frozen=True)
class StageEvent:
    stage: str                      # tool_result_budget | snip_compact | micro_compact | ...
    fired: bool
    messages_before: int
    messages_after: int
    size_before: int                # estimate_size before the stage, and after
    size_after: int
    files_written: tuple[str, ...] = ()
    placeholders: int = 0           # tool results whose content changed
    detail: str = ""
    extra: dict = field(default_factory=dict, compare=False)
    function: str = field(default="", compare=False)   # which function ran, e.g. yours

    def __str__(self) -> str:
        if not self.fired:
            return f"{self.stage}: nothing to do"
        return (f"{self.stage}: {self.detail} — {self.messages_before}→{self.messages_after} "
                f"messages, {self.size_before:,}→{self.size_after:,} chars")


def files_under(workdir: Path) -> set[str]:
    """The transcripts and persisted results in ``workdir`` (their folders' .gitignore aside)."""
    return {p.relative_to(workdir).as_posix() for folder in (TRANSCRIPT_DIR, TOOL_RESULTS_DIR)
            for p in (workdir / folder).glob("*") if p.is_file() and not p.name.startswith(".")}


def qualified_name(function: Callable) -> str:     # e.g. compact.classroom.solutions.micro_compact
    inner = getattr(function, "func", function)      # a functools.partial names what it wraps
    return f"{getattr(inner, '__module__', '')}.{getattr(inner, '__qualname__', type(inner).__qualname__)}"


def changed_results(before: list, after: list) -> int:
    old = {b.get("tool_use_id"): b.get("content") for _, _, b in iter_tool_results(before)}
    return sum(1 for _, _, b in iter_tool_results(after)
               if b.get("tool_use_id") in old and old[b.get("tool_use_id")] != b.get("content"))


def snip_span(before: list, after: list) -> dict:
    """Where a snip cut (``head_end``: its marker's index; ``tail_start`` in ``before``) and the
    marker's count; empty if ``after`` holds no new marker."""
    head_end = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a is not b),
                    min(len(before), len(after)))
    count = snipped_count(after[head_end]) if head_end < len(after) else None
    return {} if count is None else {
        "head_end": head_end, "tail_start": len(before) - (len(after) - head_end - 1), "snipped": count}


def describe(stage: str, before: list, after: list, written: tuple[str, ...],
             limits: Limits) -> tuple[str, dict]:
    """One sentence on what a fired stage did, and ``extra`` (a snip's span; a summary)."""
    if stage == "tool_result_budget":
        persisted = sum(w.startswith(TOOL_RESULTS_DIR) for w in written)
        return (f"persisted {results_phrase(persisted)} to disk, kept a {limits.preview_chars:,}-char "
                f"preview{' of each' if persisted != 1 else ''}"), {}
    if stage in SUMMARY_STAGES:
        parsed = parse_compacted(plain_text(after[0])) if after else None
        summary = {"summary": parsed[1]} if parsed else {}
        transcript, tail = next((w for w in written if w.startswith(TRANSCRIPT_DIR)), None), len(after) - 1
        return (f"summarised {len(before) - tail} messages{f', kept the last {tail}' if tail else ''}; "
                f"transcript saved to {transcript}"), {**summary, "transcript": transcript}
    if stage == "snip_compact" and (span := snip_span(before, after)):
        return (f"kept the first {span['head_end']} and last {len(before) - span['tail_start']} "
                f"messages, snipped {span['snipped']}"), span
    changed = changed_results(before, after)
    placeholders = "a placeholder" if changed == 1 else "placeholders"
    return (f"replaced {results_phrase(changed, 'old ')} with {placeholders}, "
            f"kept the {limits.keep_recent_results} newest"), {}


def results_phrase(count: int, kind: str = "") -> str:     # "1 old result", "3 old results"
    return f"{count} {kind}result{'' if count == 1 else 's'}"
