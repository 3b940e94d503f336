"""The offline model's answer to a summary request: extractive, facts only, labelled.

It copies the agent's own notes and those of earlier summaries, derives notes for files the
agent read but had not noted yet (from what the request shows of them, saying when that is
only an excerpt), lists the tool calls, the last stated next step and the user's
constraints. The goal is a short reference to the request (the compacted message carries
the request itself beside the summary: copying a long one whole would make compaction grow
the context). Instructions inside tool output are never copied as goals.
"""

from __future__ import annotations

import re

from .conversation import Entry
from .knowledge import describe_output, note_key
from .markers import CompactedText, read_snip
from .notes import describe, note_line, one_line
from .tooling import planned_call
from .view import NOTE, Call, is_placeholder, read_summary_message

GOAL_CHARS = 240
LABEL = "(offline extractive summary by offline-compact-1, not Claude)"
_CONSTRAINT = re.compile(r"\b(must|never|don't|do not|only|always|avoid)\b|必须|不要|不得|禁止|务必|"
                         r"只能|只用|请勿|不能", re.I)
_SENTENCE = re.compile(r"(?<=[.!?。！？；;])\s*")
_NEXT = re.compile(r"^Next: (.+)$", re.MULTILINE)


def goal_reference(request: str) -> str:
    """The request in a line: whole when short, else its beginning and its length."""
    line = one_line(request, 100_000)
    if len(line) <= GOAL_CHARS:
        return line
    tail = f"… ({len(request):,} chars; the full request is kept beside this summary)"
    return line[:GOAL_CHARS - len(tail)].rstrip() + tail


def _constraints(text: str) -> list[str]:
    return [one_line(s, 200) for s in _SENTENCE.split(text) if s.strip() and _CONSTRAINT.search(s)]


def _noted_anywhere(entries: list[Entry]) -> set[str]:
    """Every key the agent (or an earlier summary) wrote a note about, anywhere."""
    keys = set()
    for entry in entries:
        if entry.kind == "assistant":
            keys |= {k for k, _ in NOTE.findall(entry.text)}
        elif entry.kind == "user" and (compacted := read_summary_message(entry.text.strip())):
            keys |= {k for k, _ in NOTE.findall(compacted.summary)}
    return keys


def _stated_goal(compacted: CompactedText) -> str | None:
    """The request a summary message carries, else its summary's own ``Goal:`` line."""
    stated = compacted.request or next(iter(re.findall(r"^Goal: (.+)$", compacted.summary,
                                                       re.MULTILINE)), None)
    return stated.strip() if stated and stated.strip() != "not stated" else None


SAID_KEPT = 12       # an agent without notes: its last statements, each one line of <= 300 chars


def offline_summary(entries: list[Entry]) -> str:
    goal, earlier, remaining = "", [], ""
    notes: list[str] = []
    files: dict[str, int] = {}
    constraints: list[str] = []
    calls: dict[str, tuple[str | None, dict]] = {}
    noted = _noted_anywhere(entries)
    unused: list[str] = []           # targets of calls answered after the agent last wrote
    said: list[str] = []             # what an agent that keeps no notes stated, newest last
    for entry in entries:
        if entry.kind == "user":
            text = entry.text.strip()
            compacted = read_summary_message(text)
            if compacted:
                goal = _stated_goal(compacted) or goal
                summary = compacted.summary
                notes += [f"Note [{k}]: {f}" for k, f in NOTE.findall(summary)]
                for line in re.findall(r"^- (\w+ .+?)(?: \(×\d+\))?$", summary, re.MULTILINE):
                    files[line] = files.get(line, 0) + 1
                constraints += [c for c in re.findall(r"^User constraints: (.+)$", summary,
                                                      re.MULTILINE)[:1] if c != "none stated"]
            elif text and read_snip(text) is None:
                if goal and goal != text:
                    earlier.append(goal)
                goal = text
                constraints += _constraints(text)
        elif entry.kind == "assistant":
            notes += [note_line(key, fact) for key, fact in NOTE.findall(entry.text)]
            if not noted and entry.text.strip():     # another agent's own words are its findings
                said.append(f"Said by the agent: {one_line(entry.text, 300)}")
            step = _NEXT.findall(entry.text)
            remaining = step[-1] if step else remaining
            unused = []
        elif entry.kind == "tool_use":
            role, planned = planned_call(entry.name, entry.input)
            calls[entry.id] = (role, planned)
            target = planned.get("path") or planned.get("pattern") or planned.get("command") or ""
            line = f"{role or entry.name} {one_line(str(target), 120)}".rstrip()
            files[line] = files.get(line, 0) + 1
            unused.append(line)
        elif entry.kind == "tool_result" and entry.id in calls:
            role, planned = calls[entry.id]
            if is_placeholder(entry.text.strip()):
                continue
            key = note_key(Call(entry.id, role, planned)) if role in ("read_file", "bash") else None
            if key and key not in noted:     # the agent had no chance to note it
                fact = describe(key, entry.text) if role == "read_file" \
                    else describe_output(entry.text)
                how = ("from an excerpt cut by the summary request's size cap" if entry.cut
                       else "noted by the summariser, not yet by the agent")
                notes.append(note_line(key, f"{fact}; source: {how}"))
                noted.add(key)
    if unused and remaining:
        remaining = (f"{remaining.rstrip('.')} (done: the result of {', '.join(unused)} arrived "
                     "and is noted above); then finish the goal")
    lines = [LABEL,
             f"Goal: {goal_reference(goal) if goal else 'not stated'}",
             *([f"Earlier requests: {'; '.join(one_line(e, 120) for e in earlier[-5:])}"]
               if earlier else []),
             "Findings:", *(list(dict.fromkeys(notes + said[-SAID_KEPT:])) or ["(none recorded)"]),
             "Files:", *([f"- {f}" + (f" (×{n})" if n > 1 else "") for f, n in files.items()]
                         or ["- none"]),
             f"Remaining work: {remaining or 'not recorded'}",
             "User constraints: " + ("; ".join(dict.fromkeys(constraints)) or "none stated")]
    return "\n".join(lines)
