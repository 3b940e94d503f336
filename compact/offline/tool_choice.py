"""``tool_choice`` honoured on a reply the model planned freely: ``auto``, ``any``, ``tool``, ``none``.

- ``auto`` (the default): the reply as planned.
- ``none``: no tool call; the text says which call it would have made.
- ``any`` / ``tool``: the reply is only tool calls (the API forces the call, so no text
  comes first): the planned calls of the allowed tool(s); when the plan calls none of them,
  one call of the forced tool (``any``: the first tool offered) with the answer it would have
  written in the first string field of the tool's schema, and the type's empty value in any
  other required field. That is how a structured-output tool (``with_structured_output``,
  an output tool) still gets an answer; the README says the same.
- ``disable_parallel_tool_use``: at most one tool call.
"""

from __future__ import annotations

import json
from typing import Any

from .builtin_tools import schema_of

_EMPTY = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}


def _calls_text(calls: list[dict]) -> str:
    return ", ".join(f"{c['name']}({json.dumps(c['input'], ensure_ascii=False)[:120]})" for c in calls)


def forced_input(spec: dict, answer: str) -> dict:
    """An input for ``spec`` that carries ``answer`` in its first string field."""
    schema = schema_of(spec)
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [r for r in schema.get("required") or [] if r in properties]
    strings = [n for n, p in properties.items() if isinstance(p, dict) and p.get("type") == "string"]
    target = next((n for n in required if n in strings), strings[0] if strings else None)
    tool_input = {name: _EMPTY.get(properties[name].get("type"), "")
                  for name in required if isinstance(properties[name], dict)}
    if target is not None:
        tool_input[target] = answer
    return tool_input


def apply_tool_choice(content: list, choice: Any, tools: list | None, call_id: str) -> list:
    """``content`` (text and tool_use blocks, as planned) as ``choice`` allows it."""
    choice = choice if isinstance(choice, dict) else {"type": "auto"}
    kind = choice.get("type", "auto")
    texts = [b for b in content if b["type"] == "text"]
    calls = [b for b in content if b["type"] == "tool_use"]
    if kind == "none":
        if not calls:
            return content
        said = "\n".join(b["text"] for b in texts)
        note = (f"(offline model) tool_choice is none, so I call no tool; next I would call "
                f"{_calls_text(calls)}.")
        return [{"type": "text", "text": f"{said}\n{note}" if said else note}]
    if kind == "tool":
        calls = [b for b in calls if b["name"] == choice["name"]]
    if kind in ("any", "tool"):
        if not calls:
            name = choice["name"] if kind == "tool" else tools[0]["name"]
            spec = next(t for t in tools if t["name"] == name)
            answer = "\n".join(b["text"] for b in texts) or "(offline model) no answer"
            calls = [{"type": "tool_use", "id": call_id, "name": name,
                      "input": forced_input(spec, answer)}]
        texts = []
    if choice.get("disable_parallel_tool_use"):
        calls = calls[:1]
    return [*texts, *calls]
