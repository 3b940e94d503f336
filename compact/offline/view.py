"""What the offline model can see: everything it knows is parsed from the request.

Calls are read in the plan's terms (``read_file(path)``, ``glob(pattern)``, ``bash(command)``)
whatever the client named its tools: ``Toolbox`` maps the request's own tool schemas both ways.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..pipeline.messages import block_type, blocks_of, joined_text, plain_text, to_plain
from .api import EDITOR_COMMANDS, defined_role, schema_of
from .markers import CompactedText, is_placeholder, read_compacted, read_snip
from .phrases import language

# The model's notes, in either language it writes them (``phrases``: note).
NOTE = re.compile(r"^(?:Note \[([^\]\n]+)\]: |笔记 \[([^\]\n]+)\]：)(.+)$", re.MULTILINE)
# Where another framework puts its kept summary (LangChain's SummarizationMiddleware).
SUMMARY_MARKERS = ("Here is a summary of the conversation to date:",)
GOAL = re.compile(r"^(?:Goal: |目标：)(.+)$", re.MULTILINE)   # a summary's goal line


def notes_in(text: str) -> list[tuple[str, str]]:
    """(key, fact) of every note in ``text``, whichever language it was written in."""
    return [(m.group(1) or m.group(2), m.group(3)) for m in NOTE.finditer(text)]


@dataclass
class Call:
    id: str
    name: str                      # the plan's role (read_file, glob, ...) or the raw name
    input: dict                    # the plan's argument names
    result: str | None = None      # None while unanswered


def note_key(call: Call) -> str | None:
    """What a note about this call is kept under: a path, ``glob <pattern>``, ``bash <command>``."""
    if call.name == "read_file":
        return call.input.get("path")
    argument = {"glob": "pattern", "write_file": "path", "edit_file": "path", "bash": "command"}
    return f"{call.name} {call.input.get(argument[call.name])}" if call.name in argument else None


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

    def was_read(self, path: str) -> bool:
        return any(c.name == "read_file" and c.input.get("path") == path for c in self.calls)


def _add_notes(view: View, text: str) -> None:
    for key, fact in notes_in(text):
        for book in (view.notes, view.fresh):
            facts = book.setdefault(key, [])
            if fact not in facts:
                facts.append(fact)


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
            for block in blocks_of(message) or [{"type": "text", "text": plain_text(message)}]:
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
            goal = GOAL.search(compacted.summary)
            view.request = goal.group(1).strip() if goal else view.request
    return view


ROLES: dict[str, tuple[str, ...]] = {
    "read_file": ("read_file", "read", "readfile", "view_file", "open_file", "cat"),
    "glob": ("glob", "find_files", "list_files", "glob_files"),
    "bash": ("bash", "shell", "run_bash", "run_command", "execute_command", "terminal"),
    "write_file": ("write_file", "write", "create_file"),
    "edit_file": ("edit_file", "edit", "str_replace", "replace_in_file"),
    "compact": ("compact", "compact_context"),
}
ARGUMENTS: dict[str, tuple[str, ...]] = {
    "path": ("path", "file_path", "filepath", "file", "filename", "target_file", "relative_path"),
    "pattern": ("pattern", "glob", "glob_pattern", "path_pattern", "query"),
    "command": ("command", "cmd", "script"),
    "content": ("content", "contents", "text", "data", "file_text"),
    "old_text": ("old_text", "old_string", "old_str", "old"),
    "new_text": ("new_text", "new_string", "new_str", "new"),
    "limit": ("limit", "max_lines"),
}
EDITOR_ARGUMENTS = {"path": "path", "content": "file_text", "old_text": "old_str", "new_text": "new_str"}
NEEDS: dict[str, tuple[str, ...]] = {
    "read_file": ("path",), "glob": ("pattern",), "bash": ("command",),
    "write_file": ("path", "content"), "edit_file": ("path", "old_text", "new_text"),
    "compact": (),
}


def role_of(name: str) -> str | None:
    """The role a tool plays, by its name (``ROLES``); its arguments must still match the role's."""
    return next((role for role, names in ROLES.items() if str(name).lower() in names), None)


@dataclass
class Tool:
    name: str
    arguments: dict[str, str] = field(default_factory=dict)   # plan's argument → client's
    command: str | None = None  # an Anthropic-defined text editor's: one tool, a command per role


@dataclass
class Toolbox:
    tools: dict[str, Tool] = field(default_factory=dict)       # role → the client's tool
    offered: list[str] = field(default_factory=list)

    @classmethod
    def from_request(cls, tools: list | None) -> Toolbox:
        """The roles of a request's tools (checked by ``api.tools_problem``)."""
        box = cls()
        for spec in tools or []:
            box.offered.append(spec["name"])
            if defined_role(spec) == "text_editor":
                for command, role in EDITOR_COMMANDS.items():
                    box.tools.setdefault(role, Tool(spec["name"], EDITOR_ARGUMENTS, command))
                continue
            role = defined_role(spec) or role_of(spec["name"])
            if role is None or role in box.tools:
                continue
            schema = schema_of(spec)
            properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
            required = [r for r in schema.get("required") or [] if isinstance(r, str)]
            mapping = _match_arguments(role, list(properties), required) if role in NEEDS else None
            if mapping is not None:
                box.tools[role] = Tool(spec["name"], mapping)
        return box

    def has(self, role: str) -> bool:
        return role in self.tools

    @property
    def roles_by_name(self) -> dict[str, str]:
        """The client's tool name → the role it plays (for calls found in the history); a text
        editor's calls play the role their ``command`` names."""
        return {tool.name: "text_editor" if tool.command else role for role, tool in self.tools.items()}

    def call(self, role: str, planned: dict) -> tuple[str, dict]:
        """The client's (name, input) for a planned call of ``role``."""
        tool = self.tools[role]
        if tool.command and "path" not in planned:
            return tool.name, {}
        named = {tool.arguments[k]: v for k, v in planned.items() if k in tool.arguments}
        return tool.name, {"command": tool.command, **named} if tool.command else named


def _match_arguments(role: str, properties: list[str], required: list[str]) -> dict[str, str] | None:
    mapping: dict[str, str] = {}
    lowered = {p.lower(): p for p in properties}
    for argument in (*NEEDS[role], "limit"):
        name = next((lowered[a] for a in ARGUMENTS[argument] if a in lowered), None)
        if name is not None:
            mapping[argument] = name
    unmatched = [r for r in required if r not in mapping.values()]
    for argument in NEEDS[role]:
        if argument not in mapping:
            if len(NEEDS[role]) == 1 and len(unmatched) == 1:
                mapping[argument] = unmatched.pop()     # its one required argument
            else:
                return None
    if any(r not in mapping.values() for r in required):
        return None                                     # it needs something we cannot give
    return mapping


def planned_call(name: str, tool_input: object, roles_by_name: dict[str, str] | None = None
                 ) -> tuple[str | None, dict]:
    """A call found in the history, in the plan's terms (role, canonical input); a tool the
    request's schemas named its own way is looked up in ``roles_by_name``."""
    role = (roles_by_name or {}).get(name) or role_of(name)
    raw = tool_input if isinstance(tool_input, dict) else {}
    if role == "text_editor":
        role = EDITOR_COMMANDS.get(str(raw.get("command")))
        raw = {k: v for k, v in raw.items() if k != "command"}
    lowered = {str(k).lower(): v for k, v in raw.items()}
    planned = {}
    for argument, names in ARGUMENTS.items():
        value = next((lowered[a] for a in names if a in lowered), None)
        if value is not None:           # text arguments as text, whatever JSON a client sent
            planned[argument] = value if argument == "limit" or isinstance(value, str) else str(value)
    if role and NEEDS[role] and NEEDS[role][0] not in planned and len(raw) == 1:
        planned[NEEDS[role][0]] = next(iter(raw.values()))
    if isinstance(planned.get("path"), str):
        planned["path"] = planned["path"].removeprefix("./")
    return role, planned
