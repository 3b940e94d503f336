"""How the offline model reads a tool result: one line of facts per file.

It writes these as ``Note [<path>]: <facts>`` in its own text, so the facts outlive the
tool result (micro_compact never touches assistant text) and reach the summary.
"""

from __future__ import annotations

import json
import re

from ..pipeline.formats import parse_persisted

_DOCSTRING = re.compile(r'^\s*(?:#[^\n]*\n\s*)*[rRuU]?("""|\'\'\')\s*(.*?)(?:\1|\n\s*\n|$)', re.DOTALL)


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_json_object(text: str, start: int) -> str | None:
    """The text of the first complete {...} at or after ``start`` (string-aware)."""
    begin = text.find("{", start)
    if begin < 0:
        return None
    depth, in_string, escaped = 0, False, False
    for index in range(begin, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[begin:index + 1]
    return None


def describe_json(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        top = list(data)
        records = next((v for v in data.values() if isinstance(v, list) and v
                        and isinstance(v[0], dict)), None)
        key = next((k for k, v in data.items() if v is records), None)
        fields = list(records[0]) if records else []
        count = f"{len(records)} records" if records else "no record list"
    else:   # a preview: the head of the file only
        top = re.findall(r'^ {2}"([^"]+)":', text, re.MULTILINE)
        list_at = re.search(r'^ {2}"([^"]+)": \[', text, re.MULTILINE)
        key = list_at.group(1) if list_at else None
        raw = first_json_object(text, list_at.end()) if list_at else None
        try:
            fields = list(json.loads(raw)) if raw else []
        except ValueError:
            fields = []
        count = "record count not visible in the preview"
    if not fields:
        return f"JSON, top-level keys {top}; no complete record visible"
    return (f"JSON object, top-level keys {top}; \"{key}\" holds records ({count}); "
            f"a record's fields: {', '.join(fields)}")


def describe_code(text: str) -> str:
    match = _DOCSTRING.match(text)
    doc = one_line(match.group(2).strip().split("\n\n")[0], 200) if match else "no docstring"
    functions = re.findall(r"^def (\w+)", text, re.MULTILINE)
    classes = re.findall(r"^class (\w+)", text, re.MULTILINE)
    shown = ", ".join(functions[:8]) + (", …" if len(functions) > 8 else "")
    parts = [f'docstring "{doc}"',
             f"{len(functions)} top-level functions ({shown})" if functions
             else "no function definitions in the text seen"]
    if classes:
        parts.append(f"classes {', '.join(classes[:5])}")
    return "; ".join(parts)


def describe(path: str, text: str) -> str:
    """The facts the model keeps about one read of ``path``."""
    if text.startswith("Error"):
        return f"error: {one_line(text, 200)}"
    persisted = parse_persisted(text)
    body = persisted.preview if persisted else text
    if path.endswith(".md"):
        h1 = next((line[2:].strip() for line in body.splitlines() if line.startswith("# ")), None)
        fact = f'H1 "{h1}"' if h1 else f"no H1; starts {one_line(body[:80])!r}"
    elif path.endswith(".py"):
        fact = describe_code(body)
    elif path.endswith(".json"):
        fact = describe_json(body)
    else:
        lines = body.splitlines()
        fact = f"{len(body)} chars; first line {one_line(lines[0] if lines else '', 160)!r}"
    if persisted:
        fact += (f"; full output ({persisted.total_chars} chars) persisted at {persisted.path}, "
                 "facts taken from its preview")
    return fact


def note_line(key: str, fact: str) -> str:
    return f"Note [{key}]: {one_line(fact, 600)}"
