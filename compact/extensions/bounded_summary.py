"""The bounded summary: instead of re-summarising the previous summary each time (so it keeps
growing), ``BoundedSummaryCompactor(summary_max_chars=...)`` summarises only the span after it
and merges the two heading by heading (``merge_summaries``), under a cap."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..pipeline.compact_history import run_summarizer, summarizer
from ..pipeline.compactor import Compactor
from ..pipeline.context import Context
from ..pipeline.formats import COMPACTED, TRANSCRIPT_LINE, compacted_message, parse_compacted
from ..pipeline.messages import plain_text
from ..pipeline.storage import write_transcript
from ..pipeline.summary import clip, clip_marker

SUMMARY_HEADINGS = ("Goal", "Findings", "Files", "Remaining work", "User constraints")
ONE_LINE_HEADINGS = ("Goal", "Remaining work", "User constraints")
REPLACED = ("Goal", "Remaining work")        # the newest replaces the old; the others are merged
LEFT_OUT_PREFIX = "[Earlier lines left out to stay under "
_HEADING = re.compile(r"^[#*\s]*(" + "|".join(SUMMARY_HEADINGS) + r")[*\s]*:?[*\s]*(.*)$",
                      re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_NONE = re.compile(r"^\(?(?:none(?: stated| recorded)?|not (?:stated|recorded))\)?\.?$", re.I)


def summary_sections(summary: str) -> tuple[list[str], dict[str, list[str]]]:
    """(lines before the first heading, heading → its items) of a summary. Text under no
    known heading counts as findings; "none stated" and the like are no items."""
    preamble: list[str] = []
    sections: dict[str, list[str]] = {h: [] for h in SUMMARY_HEADINGS}
    current = None
    for line in summary.splitlines():
        match = _HEADING.match(line)
        if match:
            current = next(h for h in SUMMARY_HEADINGS if h.lower() == match.group(1).lower())
            rest = match.group(2).strip()
            items = rest.split("; ") if current in ONE_LINE_HEADINGS else [rest]
        elif current is None:
            if line.strip():
                preamble.append(line)
            continue
        else:
            items = [line]
        for item in items:
            item = _BULLET.sub("", item).strip() if current in ONE_LINE_HEADINGS else item.rstrip()
            if item.strip() and not _NONE.match(_BULLET.sub("", item).strip()) \
                    and not item.startswith((LEFT_OUT_PREFIX, TRANSCRIPT_LINE)):
                sections[current].append(item)
    if not any(sections.values()) and preamble:       # no headings at all: all of it is findings
        sections["Findings"], preamble = preamble, []
    return preamble, sections


def render_summary(preamble: list[str], sections: dict[str, list[str]], transcript: str,
                   left_out: int = 0, cap: int = 0) -> str:
    """A merged summary in the summariser's own layout, naming the transcript before it."""
    lines = list(preamble)
    for heading in SUMMARY_HEADINGS:
        items = sections.get(heading, [])
        if heading in ONE_LINE_HEADINGS:
            lines.append(f"{heading}: " + ("; ".join(items) or "none stated"))
            continue
        lines.append(f"{heading}:")
        if left_out and heading == "Findings":
            lines.append(f"{LEFT_OUT_PREFIX}{cap:,} chars ({left_out} lines); they are in the "
                         f"reference state saved in {transcript}]")
        lines += items or ["(none recorded)"]
    lines.append(f"{TRANSCRIPT_LINE}{transcript}")
    return "\n".join(lines)


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
    merged = {h: (fresh[h] or old.get(h, [])) if h in REPLACED
              else list(dict.fromkeys([*old.get(h, []), *fresh[h]])) for h in SUMMARY_HEADINGS}
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


class BoundedSummaryCompactor(Compactor):
    """A Compactor whose stage 4 merges a bounded summary (``summary_max_chars``; 0: no cap)."""

    def __init__(self, *args: Any, summary_max_chars: int = 0, **kwargs: Any) -> None:
        if not isinstance(summary_max_chars, int) or summary_max_chars < 0 \
                or 0 < summary_max_chars < 1_000:
            raise ValueError(f"summary_max_chars ({summary_max_chars!r}) must be 0 (no cap) or at "
                             "least 1,000: a summary needs room for its notes")
        super().__init__(*args, **kwargs)
        self.summary_max_chars = summary_max_chars
        self.keep_from: int | None = None   # messages from here on stay (the unread batch)
        if "compact_history" not in (kwargs.get("functions") or {}):
            self.functions["compact_history"] = self.bounded_history

    def bounded_history(self, messages: list, ctx: Context) -> list:
        """Stage 4, bounded: the transcript saved, the span since the last summary (up to
        ``keep_from``) summarised and merged, the rest kept."""
        keep_from = len(messages) if self.keep_from is None else self.keep_from
        previous = previous_summary(messages)
        span = messages[1 if previous is not None else 0:keep_from]
        summarize = summarizer(ctx)
        transcript = write_transcript(Path(ctx.workdir), messages).as_posix()
        new = run_summarizer(summarize, span) if span else ""     # nothing new: re-filed only
        merged = merge_summaries(previous, new, transcript, self.summary_max_chars)
        return [compacted_message(COMPACTED, str(ctx.active_request), merged), *messages[keep_from:]]
