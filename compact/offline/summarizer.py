"""The offline model's answer to a summary request: extractive, facts only, labelled. It reads
the conversation in the client's own form (this package's rendering, ``json.dumps`` of the
messages, LangChain's XML, or "summarise the above"); tool output never sets a goal."""

from __future__ import annotations

import ast
import html
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..pipeline.messages import is_tool_result_message, joined_text, plain_text, to_plain
from .knowledge import describe, describe_output, note_line, one_line
from .markers import is_placeholder, read_snip
from .phrases import forms, language, phrase
from .read_json import CutStr, is_cut, parse_prefix
from .view import GOAL, Call, note_key, notes_in, planned_call, read_summary_message

_ASKS = re.compile(r"summar|condens|recap|compress|摘要|总结|總結|概括|归纳|要約|まとめ|"
                   r"extract the (?:highest quality|most (?:important|relevant)).{0,40}context", re.I)
_ABOUT_CONVERSATION = re.compile(r"conversation|history|transcript|dialog|chat|session|above|"
                                 r"messages|we (?:have )?(?:discussed|talked)|对话|對話|会话|會話|历史|"
                                 r"上文|以上|会話|我[们們].{0,4}(?:讨论|討論|聊)", re.I)
_RENDERED = re.compile(r"^\[(user|assistant|tool_use (\S+) id=(\S+)|tool_result id=(\S+))\] ",
                       re.MULTILINE)
_JSON_START = re.compile(r'[\[{]\s*\{?\s*"role"\s*:\s*"(?:user|assistant)"')
_MESSAGE_START = re.compile(r'\{\s*"role"\s*:\s*"(?:user|assistant)"')
_OMITTED = re.compile(r"\n?\.\.\.\[middle omitted[^\]\n]*\]\.\.\.\n?")
_XML_MESSAGE = re.compile(r'<message type="(human|ai|tool|system)">(.*?)</message>', re.S)
_XML_CALL = re.compile(r'<tool_call id="([^"]*)" name="([^"]*)">(.*?)</tool_call>', re.S)
_XML_CONTENT = re.compile(r"<content>(.*?)</content>", re.S)


@dataclass
class Entry:
    kind: str                  # "user", "assistant", "tool_use" or "tool_result"
    text: str = ""
    name: str = ""             # tool_use: the tool's name
    id: str = ""               # tool_use id / tool_result's tool_use_id
    input: dict = field(default_factory=dict)
    cut: bool = False          # the text was cut by the request's own size cap


def _json_input(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def summary_conversation(payload: dict) -> list[Entry] | None:
    """The conversation to summarise if ``payload`` asks for a summary, else None."""
    messages = payload.get("messages") or []
    last = messages[-1] if messages else None
    if not isinstance(last, dict) or last.get("role") != "user" or is_tool_result_message(last):
        return None                      # no request, or an agent's turn: results to act on
    text = plain_text(to_plain(last))
    if not (_ASKS.search(joined_text(payload.get("system"))) or _ASKS.search(text[:1_000])
            or _ASKS.search(text[-1_000:])):
        return None
    entries = conversation_in(text)
    if entries:
        return entries
    if len(messages) > 1 and len(text) < 2_000 and _ASKS.search(text) \
            and _ABOUT_CONVERSATION.search(text):
        return entries_of_messages(to_plain(messages[:-1]))     # "summarise the above"
    return None


def conversation_in(text: str) -> list[Entry] | None:
    """The conversation inside one message's text, rendered, as XML or as JSON (whole or capped
    around an omitted middle); None if none of these."""
    inner = re.search(r"<conversation>\n?(.*?)(?:</conversation>|$)", text, re.S)
    body = inner.group(1) if inner else text
    if _RENDERED.search(body):
        return rendered_entries(body)
    if _XML_MESSAGE.search(body):
        return xml_entries(body)
    start = _JSON_START.search(body)
    if not start:
        return None
    pieces = _OMITTED.split(body[start.start():], maxsplit=1)
    head, _ = parse_prefix(pieces[0])
    messages = list(head) if isinstance(head, list) else [head] if isinstance(head, dict) else []
    return entries_of_messages(messages + (_messages_from(pieces[1]) if len(pieces) > 1 else []))


def rendered_entries(conversation: str) -> list[Entry]:
    """Entries of this package's rendering (``pipeline.summary.render_history``)."""
    found = list(_RENDERED.finditer(conversation))
    result = []
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(conversation)
        text = conversation[match.end():end]        # the entry and the "\n" that joins the next
        closing = text.rfind("\n</conversation>") if index + 1 == len(found) else -1
        text = text[:closing] if closing >= 0 else text.removesuffix("\n")   # a file's own stays
        if match.group(1) in ("user", "assistant"):
            result.append(Entry(match.group(1), text))
        elif match.group(2):
            result.append(Entry("tool_use", text, match.group(2), match.group(3), _json_input(text)))
        else:
            result.append(Entry("tool_result", text, id=match.group(4)))
    return result


def xml_entries(text: str) -> list[Entry]:
    """Entries of LangChain's XML history; a tool message answers the oldest open call."""
    entries: list[Entry] = []
    waiting: list[str] = []
    for match in _XML_MESSAGE.finditer(text):
        kind, body = match.group(1), match.group(2)
        if kind == "ai":
            calls = list(_XML_CALL.finditer(body))
            said = _XML_CONTENT.search(body)
            text = said.group(1) if said else body if not calls else ""
            entries += [Entry("assistant", html.unescape(text).strip())] if text.strip() else []
            for call in calls:
                raw, call_id = html.unescape(call.group(3)), html.unescape(call.group(1))
                entries.append(Entry("tool_use", raw, html.unescape(call.group(2)), call_id,
                                     _json_input(raw)))
                waiting.append(call_id)
        elif kind == "tool":
            entries.append(Entry("tool_result", html.unescape(body), id=waiting.pop(0) if waiting else ""))
        elif kind == "human":
            entries.append(Entry("user", html.unescape(body)))
    return entries


def _messages_from(tail: str) -> list[Any]:
    """Whole messages in text that starts in the middle of one (the kept tail of a cap)."""
    decoder = json.JSONDecoder()
    found, position = [], 0
    while True:
        match = _MESSAGE_START.search(tail, position)
        if not match:
            return found
        try:
            message, end = decoder.raw_decode(tail, match.start())
        except ValueError:
            value, _ = parse_prefix(tail[match.start():])
            if isinstance(value, dict):
                found.append(value)         # the last one, cut by the end of the text
            return found
        found.append(message)
        position = end


def _repr_block(text: str) -> dict | None:
    """An SDK block serialised with ``default=str``: ``ToolUseBlock(id='…', input={…}, …)``."""
    if not re.match(r"\w+\(", text):
        return None
    try:
        call = ast.parse(text, mode="eval").body
        fields = {}
        for keyword in call.keywords:
            try:
                fields[keyword.arg] = ast.literal_eval(keyword.value)
            except (ValueError, SyntaxError, TypeError):
                continue
        return fields if "type" in fields else None
    except (SyntaxError, AttributeError, RecursionError, ValueError):
        found = re.search(r"\btext=(['\"])(.*)", text, re.S)      # cut: keep what is there
        return {"type": "text", "text": found.group(2), "_cut": True} if found else None


def entries_of_messages(messages: list) -> list[Entry]:
    entries: list[Entry] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for raw in content if isinstance(content, list) else []:
            block = raw if not isinstance(raw, str) else \
                _repr_block(raw) or {"type": "text", "text": raw}
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            cut = isinstance(raw, CutStr) or bool(block.get("_cut")) or is_cut(block.get("text")) \
                or is_cut(block.get("content"))
            if kind == "text" and role in ("user", "assistant"):
                entries.append(Entry(role, str(block.get("text", "")), cut=cut))
            elif kind == "tool_use":
                tool_input = block.get("input")
                entries.append(Entry("tool_use", json.dumps(tool_input, default=str),
                                     str(block.get("name", "")), str(block.get("id", "")),
                                     tool_input if isinstance(tool_input, dict) else {}, cut))
            elif kind == "tool_result":
                entries.append(Entry("tool_result", joined_text(block.get("content", "")),
                                     id=str(block.get("tool_use_id", "")), cut=cut))
    return entries


GOAL_CHARS = 240
_CONSTRAINT = re.compile(r"\b(must|never|don't|do not|only|always|avoid)\b|必须|不要|不得|禁止|务必|"
                         r"只能|只用|请勿|不能", re.I)
_SENTENCE = re.compile(r"(?<=[.!?。！？；;])\s*")
_NEXT = re.compile(r"^(?:Next: |下一步：)(.+)$", re.MULTILINE)
_FILE_LINE = re.compile(r"^- (\w+ .+?)(?: \(×\d+\))?$", re.MULTILINE)
_CONSTRAINTS_LINE = re.compile(r"^(?:User constraints: |用户约束：)(.+)$", re.MULTILINE)


SAID_KEPT = 12       # an agent without notes: its last statements, each one line of <= 300 chars


@dataclass
class _Reading:
    """What the summariser gathers from the conversation, in its order."""
    noted: set[str]
    goal: str = ""
    earlier: list[str] = field(default_factory=list)
    remaining: str = ""
    notes: list[tuple[str, str]] = field(default_factory=list)    # (key, fact)
    files: Counter = field(default_factory=Counter)
    constraints: list[str] = field(default_factory=list)
    calls: dict[str, tuple[str | None, dict]] = field(default_factory=dict)
    unused: list[str] = field(default_factory=list)   # targets answered after the agent last wrote
    said: list[str] = field(default_factory=list)     # what an agent without notes stated
    lang: str = "en"                                  # the latest request's

    def user(self, entry: Entry) -> None:
        text = entry.text.strip()
        compacted = read_summary_message(text)
        if compacted:       # its request, else its summary's own ``Goal:`` line
            stated = (compacted.request or next(iter(GOAL.findall(compacted.summary)), "")).strip()
            self.goal = stated if stated not in ("", *forms("not_stated")) else self.goal
            self.notes += notes_in(compacted.summary)
            self.files.update(_FILE_LINE.findall(compacted.summary))
            self.constraints += [c for c in _CONSTRAINTS_LINE.findall(compacted.summary)[:1]
                                 if c not in forms("none_stated")]
        elif text and read_snip(text) is None:
            if self.goal and self.goal != text:
                self.earlier.append(self.goal)
            self.goal = text
            self.constraints += [one_line(s, 200) for s in _SENTENCE.split(text)
                                 if s.strip() and _CONSTRAINT.search(s)]

    def assistant(self, entry: Entry) -> None:
        self.notes += notes_in(entry.text)
        if not self.noted and entry.text.strip():     # another agent's own words are its findings
            self.said.append(one_line(entry.text, 300))
        self.remaining = ([self.remaining] + _NEXT.findall(entry.text))[-1]
        self.unused = []

    def tool_use(self, entry: Entry) -> None:
        role, planned = planned_call(entry.name, entry.input)
        self.calls[entry.id] = (role, planned)
        target = planned.get("path") or planned.get("pattern") or planned.get("command") or ""
        line = f"{role or entry.name} {one_line(str(target), 120)}".rstrip()
        self.files[line] += 1
        self.unused.append(line)

    def tool_result(self, entry: Entry) -> None:
        role, planned, lang = *self.calls[entry.id], self.lang
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
    reading = _Reading(set())
    for entry in entries:       # every key the agent (or an earlier summary) noted, anywhere
        if entry.kind == "assistant":
            reading.noted |= {k for k, _ in notes_in(entry.text)}
        elif entry.kind == "user" and (compacted := read_summary_message(entry.text.strip())):
            reading.noted |= {k for k, _ in notes_in(compacted.summary)}
    goal = next((e.text for e in reversed(entries) if e.kind == "user" and e.text.strip()
                 and read_summary_message(e.text.strip()) is None
                 and read_snip(e.text.strip()) is None), "")
    reading.lang = language(goal)
    for entry in entries:
        if entry.kind != "tool_result" or entry.id in reading.calls:
            getattr(reading, entry.kind)(entry)
    return reading, language(reading.goal) if reading.goal else reading.lang


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
    goal, cut = one_line(r.goal, 100_000), phrase("goal_cut", lang, n=len(r.goal))
    if len(goal) > GOAL_CHARS:              # a long request: its beginning and its length
        goal = goal[:GOAL_CHARS - len(cut)].rstrip() + cut
    lines = [phrase("summary_label", lang),
             phrase("goal", lang, goal=goal if r.goal else phrase("not_stated", lang)),
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
