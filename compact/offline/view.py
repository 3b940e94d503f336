"""What the offline model can see: everything it knows is parsed from the request.

No hidden state survives between calls. If compaction removed a file's content and the
model left itself no note about it, the file is simply unknown again. The markers of every
version of the lesson are read (``formats.read_*``); tool calls are read in the plan's
terms (``tooling.planned_call``), whatever the client named its tools.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..pipeline.messages import block_type, blocks_of, joined_text, plain_text, to_plain
from .context_editing import CLEARED
from .markers import CompactedText, read_compacted, read_placeholder, read_snip
from .request_text import language
from .tooling import planned_call

# The model's notes, in either language it writes them (``phrases``: note).
NOTE = re.compile(r"^(?:Note \[([^\]\n]+)\]: |笔记 \[([^\]\n]+)\]：)(.+)$", re.MULTILINE)
# Where another framework puts its kept summary (LangChain's SummarizationMiddleware).
SUMMARY_MARKERS = ("Here is a summary of the conversation to date:",)
_GOAL = re.compile(r"^(?:Goal: |目标：)(.+)$", re.MULTILINE)


def notes_in(text: str) -> list[tuple[str, str]]:
    """(key, fact) of every note in ``text``, whichever language it was written in."""
    return [(m.group(1) or m.group(2), m.group(3)) for m in NOTE.finditer(text)]


@dataclass
class Call:
    id: str
    name: str                      # the plan's role (read_file, glob, ...) or the raw name
    input: dict                    # the plan's argument names
    result: str | None = None      # None while unanswered


def read_summary_message(text: str) -> CompactedText | None:
    """A message that replaced earlier history: any lesson version's compacted message, or
    another framework's summary marker (its summary is data; it carries no request)."""
    compacted = read_compacted(text)
    if compacted is not None:
        return compacted
    marker = next((m for m in SUMMARY_MARKERS if text.startswith(m)), None)
    if marker is None:
        return None
    return CompactedText("summary", None, text[len(marker):].strip(), None, "framework")


def is_placeholder(text: str | None) -> bool:
    """A result compacted away: by the lesson's stages or by the API's context editing."""
    return text is not None and (read_placeholder(text) is not None or text.strip() == CLEARED)


@dataclass
class View:
    request: str = ""                               # the task, from the user's own words
    reference: list[str] = field(default_factory=list)  # summaries (data, not orders)
    notes: dict[str, list[str]] = field(default_factory=dict)  # key → facts noted
    calls: list[Call] = field(default_factory=list)
    compacted_before: bool = False
    fresh: dict[str, list[str]] = field(default_factory=dict)  # notes since the request
    request_from: int = 0                           # index of the first call for this request
    tools: frozenset[str] | None = None             # the roles the request offers (None: any)

    @property
    def lang(self) -> str:
        """The language the model answers in: the request's own."""
        return language(self.request)

    def can(self, role: str) -> bool:
        return self.tools is None or role in self.tools

    def note(self, key: str) -> list[str]:
        return self.notes.get(key, [])

    def fresh_note(self, key: str) -> list[str]:
        return self.fresh.get(key, [])

    @property
    def current_calls(self) -> list[Call]:
        """Calls made for the current request (a repeated request is worked on again)."""
        return self.calls[self.request_from:]

    def latest(self, name: str, field: str, value: str, current: bool = False) -> str | None:
        """The newest visible (not compacted) result of ``name`` called with
        ``input[field] == value``; ``current`` looks only at calls for this request."""
        for call in reversed(self.current_calls if current else self.calls):
            if call.name == name and call.input.get(field) == value \
                    and call.result is not None and not is_placeholder(call.result):
                return call.result
        return None

    def read_result(self, path: str) -> str | None:
        """The newest whole (or persisted-preview) result of read_file(path), if visible."""
        return self.latest("read_file", "path", path)

    def was_read(self, path: str) -> bool:
        return any(c.name == "read_file" and c.input.get("path") == path for c in self.calls)


def _add_notes(view: View, text: str) -> None:
    for key, fact in notes_in(text):
        for book in (view.notes, view.fresh):
            facts = book.setdefault(key, [])
            if fact not in facts:
                facts.append(fact)


def _assistant_blocks(message: dict) -> list:
    content = message.get("content")
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content if isinstance(content, str) else ""}]


def as_plain(messages: list) -> list:
    """``messages`` themselves when every message and block is a plain dict (a request parsed
    from JSON, a kept history); otherwise a plain copy (SDK blocks, ``response.content``)."""
    if all(type(m) is dict and all(type(b) is dict for b in blocks_of(m)) for m in messages):
        return messages
    return to_plain(messages)


def read_view(messages: list, tools: frozenset[str] | None = None,
              roles_by_name: dict[str, str] | None = None) -> View:
    """``tools``: the roles the request offers; ``roles_by_name``: its tools' own names."""
    view = View(tools=tools)
    by_id: dict[str, Call] = {}
    for message in as_plain(messages):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            for block in _assistant_blocks(message):
                if block_type(block) == "text":
                    _add_notes(view, str(block.get("text", "")))
                elif block_type(block) == "tool_use":
                    role, planned = planned_call(block.get("name", ""), block.get("input"),
                                                 roles_by_name)
                    call = Call(str(block.get("id")), role or str(block.get("name")), planned)
                    view.calls.append(call)
                    by_id[call.id] = call
            continue
        results = [b for b in blocks_of(message) if block_type(b) == "tool_result"]
        for block in results:
            call = by_id.get(block.get("tool_use_id"))
            if call is not None:
                call.result = joined_text(block.get("content", ""))
        if results:
            continue                 # tool output is data: it never sets the task
        text = plain_text(message)
        if not text.strip() or read_snip(text.strip()) is not None:
            continue
        view.fresh, view.request_from = {}, len(view.calls)
        compacted = read_summary_message(text)
        if compacted is None:
            view.request = text.strip()
            continue
        view.reference.append(compacted.summary)
        view.compacted_before = True
        _add_notes(view, compacted.summary)
        if compacted.request is not None:
            view.request = compacted.request.strip()
        else:                        # a version that keeps no request: the summary's goal
            goal = _GOAL.search(compacted.summary)
            view.request = goal.group(1).strip() if goal else view.request
    return view
