"""The Anthropic-defined client tools, by their fixed names and schemas, and the tools list rules.

A request may offer ``{"type": "bash_20250124", "name": "bash"}`` instead of a schema of
its own: the API defines the tool's name and input, the client runs it. The offline model
plans with the lesson's roles (``read_file``, ``bash``, ...); ``schema_of`` gives each
defined tool the schema its calls use, and ``EDITOR_COMMANDS`` says which ``command`` of a
text editor call plays which role (``view`` reads, ``create`` writes, ``str_replace``
edits), both ways. The memory tool (``memory_20250818``, files under ``/memories``) is
recognised but never used for workspace files: a path outside ``/memories`` is refused by
its handler. Server tools (web search, code execution, ...) run on the API's own machines
and are refused with a 400.
"""

from __future__ import annotations

from typing import Any

# type → (the fixed name, the role it plays)
DEFINED: dict[str, tuple[str, str]] = {
    "bash_20250124": ("bash", "bash"),
    "bash_20241022": ("bash", "bash"),
    "text_editor_20250728": ("str_replace_based_edit_tool", "text_editor"),
    "text_editor_20250429": ("str_replace_based_edit_tool", "text_editor"),
    "text_editor_20250124": ("str_replace_editor", "text_editor"),
    "memory_20250818": ("memory", "memory"),
}
EDITOR_COMMANDS = {"view": "read_file", "create": "write_file", "str_replace": "edit_file"}
_EDITOR_SCHEMA = {"type": "object", "required": ["command", "path"], "properties": {
    "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert"]},
    "path": {"type": "string"}, "file_text": {"type": "string"},
    "old_str": {"type": "string"}, "new_str": {"type": "string"},
    "view_range": {"type": "array"}, "insert_line": {"type": "integer"}}}
_BASH_SCHEMA = {"type": "object", "required": ["command"], "properties": {
    "command": {"type": "string"}, "restart": {"type": "boolean"}}}
CUSTOM = (None, "custom")


def defined_role(spec: dict) -> str | None:
    """The role of an Anthropic-defined tool (``bash``, ``text_editor``, ``memory``), else None."""
    entry = DEFINED.get(spec.get("type"))
    return entry[1] if entry else None


def schema_of(spec: dict) -> dict:
    role = defined_role(spec)
    if role == "bash":
        return _BASH_SCHEMA
    if role == "text_editor":
        return _EDITOR_SCHEMA
    schema = spec.get("input_schema")
    return schema if isinstance(schema, dict) else {}


def editor_input(role: str, planned: dict) -> dict | None:
    """A text editor call for a planned ``read_file``/``write_file``/``edit_file``, or None."""
    command = next((c for c, r in EDITOR_COMMANDS.items() if r == role), None)
    if command is None or "path" not in planned:
        return None
    names = {"path": "path", "content": "file_text", "old_text": "old_str", "new_text": "new_str"}
    return {"command": command, **{names[k]: v for k, v in planned.items() if k in names}}


def _tool_problem(index: int, spec: Any) -> str | None:
    where = f"tools.{index}"
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
        return f"{where}: Input should be a valid tool, with a name"
    kind = spec.get("type")
    if kind in CUSTOM:
        schema = spec.get("input_schema")
        if not isinstance(schema, dict):
            return f"{where}.custom.input_schema: Field required"
        if schema.get("type") != "object":
            return f"{where}.custom.input_schema.type: Input should be 'object'"
        return None
    if kind in DEFINED:
        name = DEFINED[kind][0]
        if spec["name"] != name:
            return f"{where}.{kind}.name: Input should be '{name}'"
        return None
    return (f"{where}: the tool type {kind!r} is not supported by the offline model "
            "offline-compact-1 (it runs no server tools: web search, web fetch, code execution, "
            "computer use, ...); give a custom tool with an input_schema, or use the real API")


def tools_problem(tools: Any) -> str | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return "tools: Input should be a valid list"
    seen: set[str] = set()
    for index, spec in enumerate(tools):
        problem = _tool_problem(index, spec)
        if problem:
            return problem
        if spec["name"] in seen:
            return f"tools: Tool names must be unique. Duplicate: {spec['name']!r}"
        seen.add(spec["name"])
    return None
