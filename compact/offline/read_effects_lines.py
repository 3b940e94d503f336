"""What a program does, read line by line: for other languages and for an excerpt.

The same facts as ``read_effects`` (files written, the model request, errors caught and
raised, the entry point), from the lines the text shows, with names as they are written.
"""

from __future__ import annotations

import re

from .read_effects import Effects

_DEF = re.compile(r"^[ \t]*(?:async\s+)?(?:def|fn|func|function)\s+([A-Za-z_]\w*)", re.M)
_LINE_WRITES = re.compile(r"open\(\s*([\w.\"'/-]+)\s*,\s*(?:mode\s*=\s*)?[\"'][^\"']*[wax+]|"
                          r"([\w.]+)\.(?:write_text|write_bytes)\(|"
                          r"([\w.]+)\.open\(\s*(?:mode\s*=\s*)?[\"'][^\"']*[wax+]")
_LINE_EXCEPT = re.compile(r"^\s*except\s*\(?([\w., ]+?)\)?(?:\s+as\s+\w+)?\s*:", re.M)
_LINE_RAISE = re.compile(r"^\s*raise\s+([\w.]+)", re.M)
_LINE_SYSTEM = re.compile(r"\bsystem\s*=\s*([\w.]+)(\()?")
_LINE_MESSAGES = re.compile(r"\bmessages(?:\[:\])?\s*=\s*([\w.]+)\(")


def read_effects_lines(text: str) -> Effects:
    """The same facts from lines: what the text seen shows, names as written."""
    starts = [(m.start(), m.group(1)) for m in _DEF.finditer(text)]

    def where(position: int) -> str:
        return next((name for start, name in reversed(starts) if start < position), "module")
    effects = Effects()
    if re.search(r"^if __name__ == [\"']__main__[\"']", text, re.M):
        effects.entry_point = 'if __name__ == "__main__"'
    for match in _LINE_WRITES.finditer(text):
        target = next(g for g in match.groups() if g).strip("\"'")
        effects.writes.append((target, where(match.start())))
    for match in _LINE_EXCEPT.finditer(text):
        effects.catches += [(e.strip(), where(match.start())) for e in match.group(1).split(",")
                            if e.strip()]
    effects.raises = [(m.group(1), where(m.start())) for m in _LINE_RAISE.finditer(text)]
    systems = _LINE_SYSTEM.findall(text)
    effects.system = [name + ("()" if call else "") for name, call in systems]
    effects.messages = _LINE_MESSAGES.findall(text)
    effects.model_call = bool(re.search(r"\bmessages\s*=", text)) and bool(systems)
    return effects
