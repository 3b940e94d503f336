"""Readable views of what the context holds, for notebooks (HTML) and terminals (text).

A history as a table of blocks, a compacted message as its two sections, tool calls as
calls (``read_file(path="a.cfg")``, not tuples), a run as one row per turn. Each view is a
small object: a notebook renders its ``_repr_html_``, ``print`` its text. The lab uses
``rows``.
"""

from __future__ import annotations

import ast
import html
import inspect
import json
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from IPython.display import Code, display

from ..pipeline.formats import AUTHORITATIVE, REFERENCE, parse_compacted
from ..pipeline.messages import block_type, joined_text, plain_text, to_plain

_CELL = "padding:2px 8px;text-align:left;vertical-align:top"
_PRE = "font-family:monospace;white-space:pre-wrap;margin:0"


def call_text(name: str, tool_input: dict | None) -> str:
    """One tool call as it would be written in code: ``read_file(path="a.cfg")``."""
    args = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}"
                     for key, value in (tool_input or {}).items())
    return f"{name}({args})"


def calls_text(tool_calls: Iterable[tuple[str, dict]]) -> str:
    """A turn's tool calls, comma-separated ("—" when it called none)."""
    return ", ".join(call_text(name, tool_input) for name, tool_input in tool_calls) or "—"


def _one_line(text: str, width: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class Table:
    """Headers and rows; HTML in a notebook, aligned text in a terminal."""

    def __init__(self, headers: Sequence[str], rows: Iterable[Sequence[Any]], title: str = "",
                 monospace: Iterable[int] = ()) -> None:
        self.headers = list(headers)
        self.rows = [list(row) for row in rows]
        self.title = title
        self.monospace = set(monospace)      # column numbers shown as code

    @staticmethod
    def _cell(value: Any) -> str:
        return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)

    def _repr_html_(self) -> str:
        head = "".join(f"<th style='{_CELL}'>{html.escape(h)}</th>" for h in self.headers)
        body = "".join(
            "<tr>" + "".join(
                f"<td style='{_CELL}{';font-family:monospace' if k in self.monospace else ''}'>"
                f"{html.escape(self._cell(v))}</td>" for k, v in enumerate(row)) + "</tr>"
            for row in self.rows)
        caption = f"<caption style='text-align:left'><b>{html.escape(self.title)}</b></caption>" \
            if self.title else ""
        return f"<table class='compact-table'>{caption}<tr>{head}</tr>{body}</table>"

    def __str__(self) -> str:
        cells = [self.headers] + [[self._cell(v) for v in row] for row in self.rows]
        widths = [max(len(str(r[k])) for r in cells) for k in range(len(self.headers))]
        lines = ["  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
                 for r in cells]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(([self.title] if self.title else []) + lines)

    __repr__ = __str__


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
        super().__init__(["#", "role", "block", "chars", "preview"],
                         [(i, role, kind, chars, _one_line(text, preview))
                          for i, role, kind, chars, text in rows(messages, start, preview * 3)],
                         title, monospace=[4])


def show(messages: list, start: int = 0, title: str = "") -> None:
    """Display a history as a table (HTML in a notebook, text elsewhere); ``start`` numbers rows."""
    display(History(messages, start, title=title))


class Compacted:
    """A ``[Compacted]`` / ``[Reactive compact]`` message, shown as its two sections.

    The Reference state is stored as one JSON string (so nothing in it can start a line that
    looks like a section header); here it is decoded for reading.
    """

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
                f"<pre style='{_PRE}'>{html.escape(self.request)}</pre></div>"
                f"<div style='{box};border-left:6px solid #E69F00'><b>{html.escape(REFERENCE)}</b> "
                f"<i>(a JSON string of {self.stored_chars:,} chars, decoded here)</i>"
                f"<pre style='{_PRE}'>{html.escape(self.summary)}</pre></div></div>")

    def __str__(self) -> str:
        def block(title: str, body: str) -> str:
            return f"┌─ {title}\n" + "\n".join(f"│ {line}" for line in body.splitlines()) + "\n└─"
        return "\n".join([self.header,
                          block(AUTHORITATIVE, self.request),
                          block(f"{REFERENCE} — a JSON string of {self.stored_chars:,} chars, "
                                "decoded", self.summary)])

    __repr__ = __str__


def turns(run: Any, title: str = "") -> Table:
    """One row per turn of a run (an ExperimentResult or a Trace): sizes, stages, tool calls."""
    trace = getattr(run, "trace", run)
    return Table(["turn", "messages", "chars before", "chars sent", "tokens sent", "stages fired",
                  "then called"],
                 [(t.turn, f"{t.messages_before} → {len(t.sent)}", t.size_before, t.size_sent,
                   t.input_tokens, ", ".join(t.stages) or "—", calls_text(t.tool_calls))
                  for t in trace.turns], title, monospace=[6])


def source(fn: Callable[..., Any], docstring: bool = False) -> Code:
    """A function's source as highlighted code, its docstring left out unless asked for."""
    text = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(text).body[0]
    if not docstring and ast.get_docstring(node) is not None:
        doc = node.body[0]
        lines = text.splitlines(keepends=True)
        del lines[doc.lineno - 1:doc.end_lineno]
        text = "".join(lines)
    return Code(text, language="python")
