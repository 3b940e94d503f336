"""What the model knows about a file, the notes it writes, and how it fetches the rest.

Every skill works the same way: ``facts`` says what is known about a path (its note, or
its visible result); what is unknown is fetched with ``fetch``: first reads one file per
turn with a note after each, the way a careful agent works; anything lost to compaction
in one batch, so it is all visible together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .markers import read_persisted
from .notes import describe, note_line, one_line
from .phrases import forms, phrase
from .view import Call, View, is_placeholder

PREFIX = phrase("prefix", "en")


def offline_label(lang: str) -> str:
    """How the model labels an answer it writes: as the offline model, in ``lang``."""
    return phrase("prefix", lang)


@dataclass
class Step:
    text: str = ""
    calls: list[tuple[str, dict]] = field(default_factory=list)   # (role, planned input)


def note_key(call: Call) -> str | None:
    if call.name == "read_file":
        return call.input.get("path")
    if call.name == "glob":
        return f"glob {call.input.get('pattern')}"
    if call.name in ("write_file", "edit_file"):
        return f"{call.name} {call.input.get('path')}"
    if call.name == "bash":
        return f"bash {call.input.get('command')}"
    return None


def facts(view: View, path: str) -> str | None:
    """What the model knows about ``path``: its notes, else the visible result."""
    noted = view.note(path)
    if noted:
        return noted[-1]
    raw = view.read_result(path)
    return describe(path, raw, view.lang) if raw is not None else None


def knows(view: View, path: str, current: bool = False) -> bool:
    """Whether anything is known about ``path`` (a note, or a visible read), without parsing
    it the way ``facts`` does; ``current``: only notes and reads made for this request."""
    noted = view.fresh_note(path) if current else view.note(path)
    return bool(noted) or view.latest("read_file", "path", path, current) is not None


def describe_output(text: str, lang: str = "en") -> str:
    """A command's output in one line: size, first line, and the lines that matter."""
    persisted = read_persisted(text)
    body = persisted.preview if persisted else text
    lines = [line for line in body.splitlines() if line.strip()]
    salient = [line for line in lines if re.search(r"FAIL|ERROR|TODO|WARN|port|def ", line)]
    fact = phrase("output_lines", lang, n=len(lines), first=repr(one_line(lines[0] if lines else "", 120)))
    if salient:
        fact += phrase("notable", lang, lines=" / ".join(one_line(line, 120) for line in salient[:4]))
    if persisted:
        fact += phrase("output_persisted", lang, path=persisted.path)
    return fact


NO_FILES = "(no matches)"          # what the workspace's glob answers when nothing matched


def describe_call(call: Call, lang: str = "en") -> str | None:
    """The note for one answered call, or None when there is nothing to note."""
    text = call.result
    if text is None or is_placeholder(text):
        return None
    if call.name == "read_file" and text:
        return describe(call.input.get("path", ""), text, lang)
    if call.name == "glob":
        return phrase("files", lang) + (", ".join(listed_files(text)) or phrase("no_matches", lang))
    if call.name in ("write_file", "edit_file"):
        return one_line(text, 200)
    if call.name == "bash":
        return describe_output(text, lang)
    return None


def new_notes(view: View) -> list[str]:
    """Notes for results that arrived since the model last wrote (and are not noted yet)."""
    lines = []
    for call in view.current_calls:
        key = note_key(call)
        if key is None or view.fresh_note(key):
            continue
        fact = describe_call(call, view.lang)
        if fact is None:
            continue
        view.notes[key] = view.fresh[key] = [fact]
        lines.append(note_line(key, fact, view.lang))
    return lines


def reads(paths: list[str]) -> list[tuple[str, dict]]:
    return [("read_file", {"path": p}) for p in paths]


def next_step(lang: str, key: str, /, **values: str) -> str:
    """The model's stated next step (``Next: ...``), read back by the summariser."""
    return phrase("next", lang, step=phrase(key, lang, **values))


def fetch(view: View, needed: list[str], lang: str = "en") -> Step | None:
    """Tool calls for what is still unknown, or None when everything is known."""
    missing = [p for p in needed if not knows(view, p)]
    if not missing:
        return None
    if any(view.was_read(p) for p in missing):
        # Lost to compaction: fetch everything needed at once, so it is all visible together.
        lost = [p for p in needed if not view.note(p)]   # known only while visible
        return Step(phrase("rereading", lang, n=len(lost)), reads(lost))
    return Step(next_step(lang, "next_read", path=missing[0]), reads(missing[:1]))


def listing(view: View, pattern: str) -> list[str] | None:
    """The files a glob of ``pattern`` listed: from its note, else its visible result."""
    noted = view.note(f"glob {pattern}")
    if noted:
        files = noted[-1]
        for label in forms("files"):
            files = files.removeprefix(label)
        return [] if files.strip() in ("", *forms("no_matches")) else files.split(", ")
    text = view.latest("glob", "pattern", pattern)
    return None if text is None else listed_files(text)


def listed_files(text: str) -> list[str]:
    """The paths in a glob's result; none when it says it matched nothing."""
    return [] if text.strip() in ("", NO_FILES) else text.split()
