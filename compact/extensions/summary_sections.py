"""A summary read by its headings, and written back in the summariser's own layout.

The summariser is asked for these headings (``pipeline/summary.py``: Goal, Findings, Files,
Remaining work, User constraints); the bounded summary merges two summaries heading by heading.
"""

from __future__ import annotations

import re

from ..pipeline.formats import TRANSCRIPT_LINE

SUMMARY_HEADINGS = ("Goal", "Findings", "Files", "Remaining work", "User constraints")
ONE_LINE_HEADINGS = ("Goal", "Remaining work", "User constraints")
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
    """A merged summary in the summariser's own layout, naming the transcript that holds
    everything before it (and so, link by link, every earlier summary whole)."""
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
