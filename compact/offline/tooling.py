"""The tools a request offers, mapped to the roles the model plans with.

The model plans with the lesson's tools and argument names (``read_file(path)``,
``glob(pattern)``, ``bash(command)``, ...). A client may name them its own way:
``read_file(file_path)``, ``Read``, a subset only. ``Toolbox`` reads the request's own tool
schemas and translates both ways: a planned call into the client's name and argument
names, and a call found in the history back into the plan's terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .builtin_tools import EDITOR_COMMANDS, defined_role, editor_input, schema_of

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
NEEDS: dict[str, tuple[str, ...]] = {
    "read_file": ("path",), "glob": ("pattern",), "bash": ("command",),
    "write_file": ("path", "content"), "edit_file": ("path", "old_text", "new_text"),
    "compact": (),
}
WHAT = {"read_file": "read a file", "glob": "list files by pattern", "bash": "run a command",
        "write_file": "write a file", "edit_file": "edit a file", "compact": "compact"}


# A tool with a name of its own ("view", "ls") is known by what its description says it does;
# its arguments must still match the role's (``_match_arguments``). Most specific first.
DESCRIBED: tuple[tuple[str, re.Pattern], ...] = tuple((role, re.compile(pattern, re.I)) for role, pattern in (
    ("edit_file", r"\b(edit|replace|modify)\b.*\b(file|text|string)"),
    ("write_file", r"\b(write|create|overwrite|save)\b.*\bfile"),
    ("glob", r"\bglob\b|\b(list|find|match)\w*\b.*\bfiles?\b"),
    ("bash", r"\b(run|execute)\w*\b.*\b(command|shell|bash)\b"),
    ("read_file", r"\b(read|view|show|display|open|print)\w*\b.*\bfile"),
))


def role_of(name: str, description: object = "") -> str | None:
    name = str(name).lower()
    known = next((role for role, names in ROLES.items() if name in names), None)
    if known or not isinstance(description, str):
        return known
    return next((role for role, said in DESCRIBED if said.search(description)), None)


@dataclass
class Tool:
    name: str
    arguments: dict[str, str] = field(default_factory=dict)   # plan's argument → client's
    editor: bool = False       # an Anthropic-defined text editor: one tool, a command per role


@dataclass
class Toolbox:
    tools: dict[str, Tool] = field(default_factory=dict)       # role → the client's tool
    offered: list[str] = field(default_factory=list)

    @classmethod
    def from_request(cls, tools: object) -> Toolbox:
        box = cls()
        for spec in tools if isinstance(tools, list) else []:
            if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
                continue
            box.offered.append(spec["name"])
            if defined_role(spec) == "text_editor":
                for role in EDITOR_COMMANDS.values():
                    box.tools.setdefault(role, Tool(spec["name"], editor=True))
                continue
            role = defined_role(spec) or role_of(spec["name"], spec.get("description"))
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
        return {tool.name: "text_editor" if tool.editor else role for role, tool in self.tools.items()}

    def call(self, role: str, planned: dict) -> tuple[str, dict]:
        """The client's (name, input) for a planned call of ``role``."""
        tool = self.tools[role]
        if tool.editor:
            return tool.name, editor_input(role, planned) or {}
        return tool.name, {tool.arguments.get(k, k): v for k, v in planned.items()
                           if k in tool.arguments}

    def missing(self, roles: list[str]) -> list[str]:
        return [r for r in dict.fromkeys(roles) if r not in self.tools]


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
        role = EDITOR_COMMANDS.get(raw.get("command"))
        raw = {k: v for k, v in raw.items() if k != "command"}
    lowered = {str(k).lower(): v for k, v in raw.items()}
    planned = {}
    for argument, names in ARGUMENTS.items():
        value = next((lowered[a] for a in names if a in lowered), None)
        if value is not None:
            planned[argument] = value
    if role and NEEDS[role] and NEEDS[role][0] not in planned and len(raw) == 1:
        planned[NEEDS[role][0]] = next(iter(raw.values()))
    if isinstance(planned.get("path"), str):
        planned["path"] = planned["path"].removeprefix("./")
    return role, planned
