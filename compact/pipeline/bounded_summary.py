"""The bounded summary: summarise only what is new since the last summary, merge, cap.

The lesson's compact_history summarises the whole history, previous summary included, so
every compaction re-summarises the one before: the summary keeps growing, each compaction
saves less than the one before, and a model summariser may drop or distort what it re-reads.
With ``Limits.summary_max_chars`` set, stage 4 instead summarises only the span after the
previous ``[Compacted]`` message and merges it, heading by heading, into the previous
summary: the newest goal and remaining work, every user constraint (never dropped), the
findings and files of both. Over the cap, the oldest findings (then files) are left out,
with a line saying so; they stay readable in the transcript this compaction saves, which
holds the previous summary whole (and names the transcript before it, and so on).
"""

from __future__ import annotations

from pathlib import Path

from .events import StageEvent
from .formats import (
    COMPACTED,
    clip_marker,
    compacted_message,
    parse_compacted,
    render_summary,
    summary_sections,
)
from .messages import estimate_size, plain_text
from .storage import write_transcript
from .summary import Summarizer, clip, run_summarizer

# Room for clip()'s marker on its own line (two newlines), its count up to 14 digits.
CLIP_MARKER = len(clip_marker(10**13)) + 2


def previous_summary(messages: list) -> str | None:
    """The reference state of the ``[Compacted]`` message that opens ``messages``, if any."""
    if not messages or not isinstance(messages[0], dict) or messages[0].get("role") != "user":
        return None
    parsed = parse_compacted(plain_text(messages[0]))
    return str(parsed[1]) if parsed else None


def merge_summaries(previous: str | None, new: str, transcript: str, cap: int) -> str:
    """The summary of the new span merged into the previous one, kept under ``cap`` chars
    (0: no cap): the newest goal and remaining work, every user constraint, the findings
    and files of both (oldest left out first, with a line naming ``transcript``)."""
    old_pre, old = summary_sections(previous) if previous else ([], {})
    new_pre, fresh = summary_sections(new)
    merged = {
        "Goal": fresh["Goal"] or old.get("Goal", []),
        "Findings": _union(old.get("Findings", []), fresh["Findings"]),
        "Files": _union(old.get("Files", []), fresh["Files"]),
        "Remaining work": fresh["Remaining work"] or old.get("Remaining work", []),
        "User constraints": _union(old.get("User constraints", []), fresh["User constraints"]),
    }
    preamble = new_pre or old_pre
    text = render_summary(preamble, merged, transcript)
    left_out = 0
    while cap and len(text) > cap and (merged["Findings"] or merged["Files"]):
        merged["Findings" if merged["Findings"] else "Files"].pop(0)     # oldest first
        left_out += 1
        text = render_summary(preamble, merged, transcript, left_out, cap)
    if cap and len(text) > cap:               # constraints and goal alone are too long
        text = clip(text, cap - CLIP_MARKER)
    return text


def _union(older: list[str], newer: list[str]) -> list[str]:
    return list(dict.fromkeys([*older, *newer]))


def compact_span(messages: list, active_request: str, workdir: Path, summarize: Summarizer,
                 cap: int, keep_from: int | None = None) -> tuple[list, StageEvent]:
    """Stage 4 with a bounded summary: the transcript of everything is saved, the span since
    the last summary (up to ``keep_from``) is summarised and merged, ``messages[keep_from:]``
    stay as they are."""
    keep_from = len(messages) if keep_from is None else keep_from
    size = estimate_size(messages)
    previous = previous_summary(messages)
    span = messages[1 if previous is not None else 0:keep_from]
    transcript = write_transcript(workdir, messages).as_posix()
    new = run_summarizer(summarize, span) if span else ""     # nothing new: re-filed only
    merged = merge_summaries(previous, new, transcript, cap)
    result = [compacted_message(COMPACTED, str(active_request), merged), *messages[keep_from:]]
    return result, StageEvent(
        "compact_history", True, len(messages), len(result), size, estimate_size(result),
        files_written=(transcript,),
        detail=f"summarised the {len(span)} messages since the last summary into a merged "
               f"summary of {len(merged):,} chars (cap {cap:,}), kept the last "
               f"{len(messages) - keep_from}; transcript saved to {transcript}",
        extra={"transcript": transcript, "summary": merged, "span_summary": new})
