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
from dataclasses import dataclass, field

from .conversation import Entry
from .knowledge import describe_output, note_key
from .markers import CompactedText, read_snip
from .notes import describe, note_line, one_line
from .phrases import forms, phrase
from .request_text import language
from .tooling import planned_call
from .view import Call, is_placeholder, notes_in, read_summary_message

GOAL_CHARS = 240
LABEL = "(offline extractive summary by offline-compact-1, not Claude)"
_CONSTRAINT = re.compile(r"\b(must|never|don't|do not|only|always|avoid)\b|必须|不要|不得|禁止|务必|"
                         r"只能|只用|请勿|不能", re.I)
_SENTENCE = re.compile(r"(?<=[.!?。！？；;])\s*")
_NEXT = re.compile(r"^(?:Next: |下一步：)(.+)$", re.MULTILINE)
_FILE_LINE = re.compile(r"^- (\w+ .+?)(?: \(×\d+\))?$", re.MULTILINE)
_CONSTRAINTS_LINE = re.compile(r"^(?:User constraints: |用户约束：)(.+)$", re.MULTILINE)
_GOAL_LINE = re.compile(r"^(?:Goal: |目标：)(.+)$", re.MULTILINE)


def goal_reference(request: str, lang: str = "en") -> str:
    """The request in a line: whole when short, else its beginning and its length."""
    line = one_line(request, 100_000)
    if len(line) <= GOAL_CHARS:
        return line
    tail = phrase("goal_cut", lang, n=len(request))
    return line[:GOAL_CHARS - len(tail)].rstrip() + tail


def _constraints(text: str) -> list[str]:
    return [one_line(s, 200) for s in _SENTENCE.split(text) if s.strip() and _CONSTRAINT.search(s)]


def _noted_anywhere(entries: list[Entry]) -> set[str]:
    """Every key the agent (or an earlier summary) wrote a note about, anywhere."""
    keys = set()
    for entry in entries:
        if entry.kind == "assistant":
            keys |= {k for k, _ in notes_in(entry.text)}
        elif entry.kind == "user" and (compacted := read_summary_message(entry.text.strip())):
            keys |= {k for k, _ in notes_in(compacted.summary)}
    return keys


def _stated_goal(compacted: CompactedText) -> str | None:
    """The request a summary message carries, else its summary's own ``Goal:`` line."""
    stated = compacted.request or next(iter(_GOAL_LINE.findall(compacted.summary)), None)
    return stated.strip() if stated and stated.strip() not in forms("not_stated") else None


SAID_KEPT = 12       # an agent without notes: its last statements, each one line of <= 300 chars


@dataclass
class _Reading:
    """What the summariser gathers from the conversation, in its order."""
    noted: set[str]
    goal: str = ""
    earlier: list[str] = field(default_factory=list)
    remaining: str = ""
    notes: list[tuple[str, str]] = field(default_factory=list)    # (key, fact)
    files: dict[str, int] = field(default_factory=dict)
    constraints: list[str] = field(default_factory=list)
    calls: dict[str, tuple[str | None, dict]] = field(default_factory=dict)
    unused: list[str] = field(default_factory=list)   # targets answered after the agent last wrote
    said: list[str] = field(default_factory=list)     # what an agent without notes stated

    def user(self, text: str) -> None:
        compacted = read_summary_message(text)
        if compacted:
            self.goal = _stated_goal(compacted) or self.goal
            self.notes += notes_in(compacted.summary)
            for line in _FILE_LINE.findall(compacted.summary):
                self.files[line] = self.files.get(line, 0) + 1
            self.constraints += [c for c in _CONSTRAINTS_LINE.findall(compacted.summary)[:1]
                                 if c not in forms("none_stated")]
        elif text and read_snip(text) is None:
            if self.goal and self.goal != text:
                self.earlier.append(self.goal)
            self.goal = text
            self.constraints += _constraints(text)

    def assistant(self, text: str) -> None:
        self.notes += notes_in(text)
        if not self.noted and text.strip():     # another agent's own words are its findings
            self.said.append(one_line(text, 300))
        step = _NEXT.findall(text)
        self.remaining = step[-1] if step else self.remaining
        self.unused = []

    def tool_use(self, entry: Entry) -> None:
        role, planned = planned_call(entry.name, entry.input)
        self.calls[entry.id] = (role, planned)
        target = planned.get("path") or planned.get("pattern") or planned.get("command") or ""
        line = f"{role or entry.name} {one_line(str(target), 120)}".rstrip()
        self.files[line] = self.files.get(line, 0) + 1
        self.unused.append(line)

    def tool_result(self, entry: Entry, lang: str) -> None:
        role, planned = self.calls[entry.id]
        if is_placeholder(entry.text.strip()):
            return
        key = note_key(Call(entry.id, role, planned)) if role in ("read_file", "bash") else None
        if key and key not in self.noted:     # the agent had no chance to note it
            fact = describe(key, entry.text, lang) if role == "read_file" \
                else describe_output(entry.text, lang)
            how = phrase("from_excerpt" if entry.cut else "by_summariser", lang)
            self.notes.append((key, fact + phrase("sep", lang) + phrase("source", lang, how=how)))
            self.noted.add(key)


def _read(entries: list[Entry]) -> tuple[_Reading, str]:
    """The conversation read, and the language of its latest request."""
    reading = _Reading(_noted_anywhere(entries))
    goal = next((e.text for e in reversed(entries) if e.kind == "user" and e.text.strip()
                 and read_summary_message(e.text.strip()) is None
                 and read_snip(e.text.strip()) is None), "")
    lang = language(goal)
    for entry in entries:
        if entry.kind == "user":
            reading.user(entry.text.strip())
        elif entry.kind == "assistant":
            reading.assistant(entry.text)
        elif entry.kind == "tool_use":
            reading.tool_use(entry)
        elif entry.kind == "tool_result" and entry.id in reading.calls:
            reading.tool_result(entry, lang)
    return reading, language(reading.goal) if reading.goal else lang


def offline_summary(entries: list[Entry]) -> str:
    """The summary, in the language of the conversation's request (read back by ``view``)."""
    r, lang = _read(entries)
    remaining = r.remaining
    if r.unused and remaining:
        remaining = phrase("remaining_done", lang, step=remaining.rstrip(".。"),
                           calls=", ".join(r.unused))
    notes = [note_line(k, f, lang) for k, f in r.notes]
    said = [phrase("said", lang, text=s) for s in r.said[-SAID_KEPT:]]
    earlier = "; ".join(one_line(e, 120) for e in r.earlier[-5:])
    lines = [phrase("summary_label", lang),
             phrase("goal", lang, goal=goal_reference(r.goal, lang) if r.goal
                    else phrase("not_stated", lang)),
             *([phrase("earlier", lang, requests=earlier)] if r.earlier else []),
             phrase("findings", lang),
             *(list(dict.fromkeys(notes + said)) or [phrase("none_recorded", lang)]),
             phrase("files_heading", lang),
             *([f"- {f}" + (f" (×{n})" if n > 1 else "") for f, n in r.files.items()]
               or [phrase("no_files", lang)]),
             phrase("remaining", lang, work=remaining or phrase("not_recorded", lang)),
             phrase("constraints", lang, constraints=phrase("sep", lang).join(
                 dict.fromkeys(r.constraints)) or phrase("none_stated", lang))]
    return "\n".join(lines)
