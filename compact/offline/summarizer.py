"""The offline model's answer to a summary request: extractive, facts only, labelled.

It copies the agent's own notes, derives notes for files the agent read but had not noted
yet (from the clipped excerpt it was sent), lists the tool calls, the last stated next
step and the user's constraints. Instructions inside tool output are not copied as goals.
"""

from __future__ import annotations

import json
import re

from ..pipeline.formats import PLACEHOLDER_PREFIX, SNIP_PREFIX, parse_compacted
from .notes import describe, note_line, one_line
from .skills import describe_output
from .view import NOTE

_ENTRY = re.compile(r"^\[(user|assistant|tool_use (\w+) id=(\S+)|tool_result id=(\S+))\] ",
                    re.MULTILINE)
_CONSTRAINT = re.compile(r"\b(must|never|don't|do not|only|always)\b", re.I)


def entries(conversation: str) -> list[tuple[str, str, str]]:
    """(kind, id-or-name, text) for each rendered line group."""
    found = list(_ENTRY.finditer(conversation))
    result = []
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(conversation)
        text = conversation[match.end():end].rstrip("\n")
        if match.group(1) in ("user", "assistant"):
            result.append((match.group(1), "", text))
        elif match.group(2):
            result.append(("tool_use", f"{match.group(2)} {match.group(3)}", text))
        else:
            result.append(("tool_result", match.group(4), text))
    return result


def offline_summary(conversation: str) -> str:
    goal, notes, files, constraints, remaining = "", [], [], [], ""
    calls: dict[str, tuple[str, dict]] = {}
    noted = set()
    for kind, key, text in entries(conversation):
        if kind == "user":
            parsed = parse_compacted(text)
            if parsed:
                goal = parsed[0]
                earlier = str(parsed[1])
                notes += [f"Note [{k}]: {f}" for k, f in NOTE.findall(earlier)]
                noted |= {k for k, _ in NOTE.findall(earlier)}
                files += re.findall(r"^- (\w+ .+)$", earlier, re.MULTILINE)
            elif not text.startswith(SNIP_PREFIX):
                goal = one_line(text, 2000)
                constraints += [one_line(s, 200) for s in re.split(r"(?<=[.!?])\s+", text)
                                if _CONSTRAINT.search(s)]
        elif kind == "assistant":
            for k, fact in NOTE.findall(text):
                notes.append(note_line(k, fact))
                noted.add(k)
            step = re.search(r"^Next: (.+)$", text, re.MULTILINE)
            remaining = step.group(1) if step else remaining
        elif kind == "tool_use":
            name, call_id = key.split(" ", 1)
            try:
                tool_input = json.loads(text)
            except ValueError:
                tool_input = {}
            calls[call_id] = (name, tool_input)
            target = tool_input.get("path") or tool_input.get("pattern") or \
                tool_input.get("command") or ""
            files.append(f"{name} {one_line(str(target), 120)}".rstrip())
        elif kind == "tool_result" and key in calls and \
                not text.startswith(PLACEHOLDER_PREFIX):
            name, tool_input = calls[key]
            note_key = tool_input.get("path") if name == "read_file" else (
                f"bash {tool_input.get('command')}" if name == "bash" else None)
            if note_key and note_key not in noted:   # the agent had no chance to note it
                fact = describe(note_key, text) if name == "read_file" else describe_output(text)
                notes.append(note_line(note_key, fact + " (from an excerpt)"))
                noted.add(note_key)
    lines = ["(offline extractive summary by offline-compact-1, not Claude)",
             f"Goal: {goal or 'not stated'}", "Findings:", *(notes or ["(none recorded)"]),
             "Files:", *([f"- {f}" for f in dict.fromkeys(files)] or ["- none"]),
             f"Remaining work: {remaining or 'not recorded'}",
             "User constraints: " + ("; ".join(dict.fromkeys(constraints)) or "none stated")]
    return "\n".join(lines)
