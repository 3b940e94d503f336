"""Readable views of what the context holds: a history as a table of blocks, a compacted message
as its two sections, a run as one row per turn; HTML in a notebook, text in a terminal."""

from __future__ import annotations

import html
import json
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from IPython.display import display

from ..offline.view import NOTE
from ..pipeline.compactor import StageEvent
from ..pipeline.formats import AUTHORITATIVE, REFERENCE, parse_compacted
from ..pipeline.messages import block_type, joined_text, plain_text, to_plain
from ..texts import known, language, say, translated
from .solutions import MODULE as SOLUTIONS

FOLD = 10            # rows or lines shown before the rest is folded away
WHOLE_TABLE = 15     # a table this short is shown whole: a fold would hide the rows a text is about
_CELL = "padding:2px 8px;text-align:left;vertical-align:top"


def call_text(name: str, tool_input: dict | None) -> str:
    """One tool call as it would be written in code: ``read_file(path="a.cfg")``."""
    args = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}"
                     for key, value in (tool_input or {}).items())
    return f"{name}({args})"


def _pre(text: str) -> str:
    style = "font-family:monospace;white-space:pre-wrap;margin:0"
    return f"<pre style='{style}'>{html.escape(text)}</pre>"


def _folded(shown: str, summary: str, rest: str) -> str:
    """``shown``, then ``rest`` in a ``<details>`` a click away."""
    return f"{shown}<details><summary>{html.escape(summary)}</summary>{rest}</details>"


def calls_text(tool_calls: Iterable[tuple[str, dict]]) -> str:
    """A turn's tool calls, comma-separated ("—" when it called none)."""
    return ", ".join(call_text(name, tool_input) for name, tool_input in tool_calls) or "—"


def number(value: Any) -> str:
    """An int with thousands separators (13,997, as the texts write it); anything else as it is."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


@dataclass(eq=False, repr=False)
class Table:
    """Headers and rows; HTML in a notebook, aligned text in a terminal."""

    headers: Sequence[str]
    rows: Iterable[Sequence[Any]]
    title: str = ""
    monospace: Iterable[int] = ()      # column numbers shown as code
    numeric: Iterable[int] = ()        # column numbers aligned right, as numbers are
    brief: Sequence[int] = ()          # columns shown first (HTML); all of them folded below

    def __post_init__(self) -> None:
        self.headers, self.rows = list(self.headers), [list(r) for r in self.rows]
        self.brief = list(self.brief)
        self.monospace, self.numeric = set(self.monospace), set(self.numeric)

    def columns(self, wanted: Sequence[int]) -> Table:
        """The same table with only the ``wanted`` columns, in that order."""
        keep = {old: new for new, old in enumerate(wanted)}
        return Table([self.headers[k] for k in wanted], [[row[k] for k in wanted] for row in self.rows],
                     self.title, [keep[k] for k in self.monospace if k in keep],
                     [keep[k] for k in self.numeric if k in keep])

    def _style(self, column: int) -> str:
        return (_CELL + (";font-family:monospace" if column in self.monospace else "")
                + (";text-align:right;font-variant-numeric:tabular-nums" if column in self.numeric else ""))

    def _repr_html_(self) -> str:
        if self.brief:                       # a projector-wide table first, every column a click away
            full = Table(self.headers, self.rows, "", self.monospace, self.numeric)._repr_html_()
            return _folded(self.columns(self.brief)._repr_html_(),
                           say("show.all_columns", count=len(self.headers)), full)
        head = "".join(f"<th style='{self._style(k)}'>{html.escape(h)}</th>"
                       for k, h in enumerate(self.headers))
        body = ["<tr>" + "".join(f"<td style='{self._style(k)}'>{html.escape(number(v))}</td>"
                                 for k, v in enumerate(row)) + "</tr>" for row in self.rows]
        caption = f"<caption style='text-align:left'><b>{html.escape(self.title)}</b></caption>" \
            if self.title else ""

        def table(part: list[str], top: str = caption) -> str:
            return f"<table class='compact-table'>{top}<tr>{head}</tr>{''.join(part)}</table>"
        if len(body) <= WHOLE_TABLE:
            return table(body)
        return _folded(table(body[:FOLD]), say("show.more_rows", count=len(body) - FOLD),
                       table(body[FOLD:], ""))

    def __str__(self) -> str:
        cells = [self.headers] + [[number(v) for v in row] for row in self.rows]
        widths = [max(_width(str(r[k])) for r in cells) for k in range(len(self.headers))]
        pad = [[" " * (w - _width(str(v))) for v, w in zip(r, widths, strict=True)] for r in cells]
        lines = ["  ".join(f + str(v) if k in self.numeric else str(v) + f
                           for k, (v, f) in enumerate(zip(r, fill, strict=True))).rstrip()
                 for r, fill in zip(cells, pad, strict=True)]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(([self.title] if self.title else []) + lines)

    __repr__ = __str__


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal: a CJK character two, a combining mark none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def rows(messages: list, start: int = 0, preview: int = 60) -> list[tuple[int, str, str, int, str]]:
    """(message index, role, block type, chars, preview) for every block."""
    table = []
    for index, message in enumerate(to_plain(messages), start):
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if block_type(block) == "tool_use":
                body = call_text(block.get("name", "?"), block.get("input"))
            elif block_type(block) == "tool_result":
                content = block.get("content", "")
                body = joined_text(content) if isinstance(content, list) else content
            else:
                body = block.get("text", block.get("content", ""))
            table.append((index, message.get("role", "?"), block_type(block) or "?",
                          len(str(body)), str(body)[:preview]))
    return table


class History(Table):
    """A history as a table: one row per content block, what it holds and how big it is."""

    def __init__(self, messages: list, start: int = 0, preview: int = 70, title: str = "") -> None:
        super().__init__(["#", say("show.role"), say("show.block"), say("show.chars"), say("show.preview")],
                         [(i, role, kind, chars, flat if len(flat) <= preview else flat[:preview - 1] + "…")
                          for i, role, kind, chars, text in rows(messages, start, preview * 3)
                          for flat in [" ".join(str(text).split())]],
                         title, monospace=[4])


def leading_notes(text: str) -> tuple[list[str], str]:
    """The ``Note [...]`` lines an offline answer starts with (kept past micro_compact); the rest."""
    lines = text.splitlines()
    count = next((k for k, line in enumerate(lines) if not NOTE.fullmatch(line)), len(lines))
    return (lines[:count], "\n".join(lines[count:])) if 0 < count < len(lines) else ([], text)


class Text:
    """A long text (an answer, a summary, a log): its first lines, the rest a click away."""

    def __init__(self, text: str, title: str = "") -> None:
        self.text, self.title = str(text), title

    def _repr_html_(self) -> str:
        notes, text = leading_notes(self.text)
        lines = text.splitlines()
        title = f"<b>{html.escape(self.title)}</b>" if self.title else ""
        if notes:                            # folded first: what the answer says comes first
            summary = say("show.notes_one") if len(notes) == 1 else say("show.notes", count=len(notes))
            title = _folded(title, summary, _pre("\n".join(notes)))
        if len(lines) > FOLD + 2:
            more = say("show.more_lines", count=len(lines) - FOLD)
            text = _folded(_pre("\n".join(lines[:FOLD])), more, _pre("\n".join(lines[FOLD:])))
        else:
            text = _pre(text)
        return f"<div class='compact-text'>{title}{text}</div>"

    def __str__(self) -> str:
        return (f"{self.title}\n" if self.title else "") + self.text

    __repr__ = __str__


class Event:
    """A stage event in words, in the chosen language."""

    def __init__(self, event: StageEvent) -> None:
        self.event = event

    def __str__(self) -> str:
        return describe_event(self.event)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour = "#0072B2" if self.event.fired else "#999"
        return f"<div style='border-left:6px solid {colour};padding:2px 8px'>{html.escape(str(self))}</div>"


def event_detail(event: StageEvent) -> str:
    """What a stage did, without the sizes, in the chosen language (English: the stage's own
    sentence; Chinese: built from the event's numbers; nothing for a stage that did not fire)."""
    if language() == "en" or not known(f"event.{event.stage}"):
        return event.detail
    if not event.fired:
        return ""
    extra, files = event.extra, ", ".join(event.files_written)
    tail = event.messages_after - 1 if event.stage == "reactive_compact" else 0
    return say(f"event.{event.stage}", count=event.placeholders, files=files,
               head=extra.get("head_end", 0), snipped=extra.get("snipped", 0),
               tail=event.messages_after - 1 - extra.get("head_end", 0), kept=tail,
               summarised=event.messages_before - tail)


def describe_event(event: StageEvent) -> str:
    """What a stage did, in the chosen language (English: the stage's own sentence)."""
    if not event.fired:
        return say("event.nothing", stage=event.stage)
    return say("event.fired", stage=event.stage, detail=event_detail(event), mb=event.messages_before,
               ma=event.messages_after, sb=event.size_before, sa=event.size_after)


def show(value: Any, title: str = "", start: int = 0) -> None:
    """Display anything a notebook shows: a history as a table, a long text folded, a stage
    event in words, a compacted message as its two sections, a run as one row per turn. A
    ``title`` of the catalogs' ``notebook.`` texts is shown in the chosen language."""
    title = translated(title)
    if isinstance(value, StageEvent):
        view: Any = Event(value)
    elif isinstance(value, str):
        view = Compacted(value) if parse_compacted(value) else Text(value, title)
    elif isinstance(value, dict) and parse_compacted(plain_text(value)):
        view = Compacted(value)
    elif isinstance(value, list):
        view = History(value, start, title=title)
    elif hasattr(value, "trace") or hasattr(value, "turns"):
        view = turns(value, title)
    else:
        view = value
    display(view)


class Compacted:
    """A ``[Compacted]`` / ``[Reactive compact]`` message as its two sections, the Reference state
    (stored as one JSON string, so nothing in it can pose as a header) decoded for reading."""

    def __init__(self, message: dict | str) -> None:
        self.text = message if isinstance(message, str) else plain_text(message)
        parsed = parse_compacted(self.text)
        if parsed is None:
            raise ValueError("not a compacted message: it must start with [Compacted] or "
                             "[Reactive compact] and hold both sections")
        self.header = self.text.split("\n", 1)[0]
        self.request, self.summary = parsed
        self.stored_chars = len(self.text.rpartition(f"{REFERENCE}\n")[2])

    def _repr_html_(self) -> str:
        box = "border:1px solid #999;border-radius:4px;padding:6px 10px;margin:4px 0"
        return (f"<div class='compacted'><b>{html.escape(self.header)}</b>"
                f"<div style='{box};border-left:6px solid #0072B2'><b>{html.escape(AUTHORITATIVE)}</b>"
                f"{_pre(self.request)}</div>"
                f"<div style='{box};border-left:6px solid #E69F00'><b>{html.escape(REFERENCE)}</b> "
                f"<i>{html.escape(say('show.json_note', chars=self.stored_chars))}</i>"
                f"{_pre(self.summary)}</div></div>")

    def __str__(self) -> str:
        reference = f"{REFERENCE} — {say('show.json_decoded', chars=self.stored_chars)}"
        boxes = [f"┌─ {title}\n" + "\n".join(f"│ {line}" for line in body.splitlines()) + "\n└─"
                 for title, body in ((AUTHORITATIVE, self.request), (reference, self.summary))]
        return "\n".join([self.header, *boxes])

    __repr__ = __str__


def turns(run: Any, title: str = "") -> Table:
    """One row per turn of a run (an ExperimentResult or a Trace): sizes, stages, tool calls."""
    trace = getattr(run, "trace", run)
    solutions = sorted({e.stage for t in trace.turns for e in t.events   # the worked solution ran
                        if e.function.startswith(SOLUTIONS + ".")})
    if solutions:
        title = say("show.turns.solution", title=title, stages=", ".join(solutions)).strip()
    return Table([say(f"show.turns.{k}") for k in ("turn", "messages", "before", "sent", "tokens",
                                                   "stages", "called")],
                 [(t.turn, f"{t.messages_before} → {len(t.sent)}", t.size_before, t.size_sent,
                   t.input_tokens, ", ".join(t.stages) or "—", calls_text(t.tool_calls))
                  for t in trace.turns], title, monospace=[6])

