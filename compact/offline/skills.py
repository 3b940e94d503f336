"""The offline model's policy: from what it sees, choose the next tool calls or answer.

Each skill recognises a kind of request (in English or Chinese, however phrased), works out
what it still needs to know (from raw tool results, its own notes, or a summary's notes),
and either asks for tools or answers. The skills live one family per file.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .chores import WRITE, file_title, plain, read_files, remember, run_command, wants_one_title, write_file
from .compare import compare
from .knowledge import Step, new_notes
from .request_text import paths, wants_comparison, wants_structure, wants_titles
from .structure import json_structure
from .titles import titles
from .view import View

SKILLS: list[tuple[Callable[[str], bool], Callable[[View], Step]]] = [
    (lambda r: bool(re.match(r"\s*(constraint|remember)\b", r, re.I)), remember),
    (lambda r: bool(WRITE.search(r)), write_file),
    (lambda r: bool(re.search(r"\brun\b[^`]*`[^`]+`", r, re.I)), run_command),
    (wants_one_title, file_title),
    (wants_titles, titles),
    (wants_comparison, compare),
    (wants_structure, json_structure),
    (lambda r: bool(paths(r)), read_files),
]


def decide(view: View, take_notes: bool = True) -> Step:
    skill = next((s for test, s in SKILLS if test(view.request)), plain)
    notes = new_notes(view) if take_notes else []
    step = skill(view)
    text = "\n".join([*notes, step.text]) if notes else step.text
    return Step(text, step.calls)
