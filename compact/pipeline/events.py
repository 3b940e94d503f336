"""What a stage did, read off the list it was given, the list it returned and the files that
appeared: the Compactor records one ``StageEvent`` per stage, the package's and yours alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .context import Limits
from .formats import parse_compacted, snipped_count
from .messages import iter_tool_results, plain_text
from .storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR

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


def extra(stage: str, before: list, after: list, written: tuple[str, ...]) -> dict:
    """What the pictures and the study read of a fired stage: a snip's span, a summary."""
    if stage == "snip_compact":
        return snip_span(before, after)
    if stage not in SUMMARY_STAGES:
        return {}
    parsed = parse_compacted(plain_text(after[0])) if after else None
    transcript = next((w for w in written if w.startswith(TRANSCRIPT_DIR)), None)
    return {**({"summary": parsed[1]} if parsed else {}), "transcript": transcript}


def detail(stage: str, before: list, after: list, written: tuple[str, ...], limits: Limits) -> str:
    """One sentence on what a stage that fired did."""
    if stage == "tool_result_budget":
        persisted = sum(w.startswith(TOOL_RESULTS_DIR) for w in written)
        return (f"persisted {persisted} result(s) to disk, kept a {limits.preview_chars:,}-char "
                "preview of each")
    if stage in SUMMARY_STAGES:
        tail = len(after) - 1
        return (f"summarised {len(before) - tail} messages{f', kept the last {tail}' if tail else ''}; "
                f"transcript saved to {extra(stage, before, after, written)['transcript']}")
    if stage == "snip_compact" and (span := snip_span(before, after)):
        return (f"kept the first {span['head_end']} and last {len(before) - span['tail_start']} "
                f"messages, snipped {span['snipped']}")
    return (f"replaced {changed_results(before, after)} old result(s) with a placeholder, kept the "
            f"{limits.keep_recent_results} newest")
