"""The offline model's policy: from what it sees, choose the next tool calls or answer.

Each skill recognises a kind of request, works out what it still needs to know (from raw
tool results, its own notes, or a summary's notes), and either asks for tools or answers.
First reads go one file per turn with a note after each, the way a careful agent works;
anything it has lost to compaction and must re-read is fetched in one batch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..pipeline.formats import is_placeholder, persisted_path
from .notes import describe, note_line, one_line
from .view import View

PREFIX = "(offline model) "
CODE = r"[\w./-]+\.(?:py|js|ts|go|rs|java|rb|c|cpp|h)"
ANY_FILE = r"[\w./-]*[\w-]\.(?:md|py|json|txt|toml|ya?ml|js|ts|cfg|ini|log|csv|go|rs|sh)"


@dataclass
class Step:
    text: str = ""
    calls: list[tuple[str, dict]] = field(default_factory=list)


def facts(view: View, path: str) -> str | None:
    """What the model knows about ``path``: its notes, else the visible result."""
    noted = view.note(path)
    if noted:
        return noted[-1]
    raw = view.read_result(path)
    return describe(path, raw) if raw is not None else None


def new_notes(view: View) -> list[str]:
    """Notes for results that arrived since the model last wrote (and are not noted yet)."""
    lines = []
    for call in view.current_calls:
        if call.result is None:
            continue
        key = _note_key(call.name, call.input)
        if key is None or view.fresh_note(key):
            continue
        if call.name == "read_file" and call.result and not is_placeholder(call.result):
            fact = describe(key, call.result)
        elif call.name == "glob" and not is_placeholder(call.result):
            fact = "files: " + ", ".join(call.result.split())
        elif call.name in ("write_file", "edit_file"):
            fact = one_line(call.result, 200)
        elif call.name == "bash" and not is_placeholder(call.result):
            fact = describe_output(call.result)
        else:
            continue
        view.notes[key] = view.fresh[key] = [fact]
        lines.append(note_line(key, fact))
    return lines


def _note_key(name: str, tool_input: dict) -> str | None:
    if name == "read_file":
        return tool_input.get("path")
    if name == "glob":
        return f"glob {tool_input.get('pattern')}"
    if name in ("write_file", "edit_file"):
        return f"{name} {tool_input.get('path')}"
    if name == "bash":
        return f"bash {tool_input.get('command')}"
    return None


def _reads(paths: list[str]) -> list[tuple[str, dict]]:
    return [("read_file", {"path": p}) for p in paths]


def _fetch(view: View, needed: list[str]) -> Step | None:
    """Tool calls for what is still unknown, or None when everything is known."""
    missing = [p for p in needed if facts(view, p) is None]
    if not missing:
        return None
    if any(view.was_read(p) for p in missing):
        # Lost to compaction: fetch everything needed at once, so it is all visible together.
        lost = [p for p in needed if not view.note(p)]   # known only while visible
        return Step(f"Re-reading {len(lost)} file(s) whose results were compacted away.",
                    _reads(lost))
    return Step(f"Next: read {missing[0]}.", _reads(missing[:1]))


# ---- skills -----------------------------------------------------------------------------

def titles(view: View) -> Step:
    request = view.request
    numbers = [int(n) for n in re.findall(r"\bs(\d{2})(?:_\w+)?", request)]
    wanted = set(range(min(numbers), max(numbers) + 1)) if len(numbers) >= 2 else set(numbers)
    pattern = "s*/README.md"
    listing = facts_of_glob(view, pattern)
    if listing is None:     # tool_use inputs are never compacted: earlier reads name the files
        read = sorted({c.input.get("path", "") for c in view.calls if c.name == "read_file"
                       and re.fullmatch(r"s\d{2}[^/]*/README\.md", c.input.get("path", ""))})
        covered = {int(p[1:3]) for p in read}
        listing = read if wanted and wanted <= covered else None
    if listing is None:
        return Step("Next: list the lessons' README files.", [("glob", {"pattern": pattern})])
    targets = [p for p in listing
               if (m := re.match(r"s(\d{2})", p)) and (not wanted or int(m.group(1)) in wanted)]
    step = _fetch(view, targets)
    if step:
        return step
    found = {p: re.search(r'H1 "(.*)"', facts(view, p) or "") for p in targets}
    heads = {p: m.group(1) for p, m in found.items() if m}
    lines = [f"{i}. {p.split('/')[0]}: {h}" for i, (p, h) in enumerate(heads.items(), 1)]
    values = list(heads.values())
    if values and all(re.fullmatch(r"s\d{2}: .+ — .+", h) for h in values):
        rule = ("every title is `sNN: <Topic> — <tagline>`: the lesson code, a colon, "
                "a short topic name, an em dash, then a one-line tagline")
    elif values and all(re.match(r"s\d{2}: ", h) for h in values):
        rule = "every title starts with the lesson code `sNN` and a colon, then the topic"
    else:
        rule = "the titles share no single pattern"
    return Step(PREFIX + f"The {len(heads)} H1 titles:\n" + "\n".join(lines)
                + f"\n\nNaming pattern: {rule}.")


def facts_of_glob(view: View, pattern: str) -> list[str] | None:
    noted = view.note(f"glob {pattern}")
    if noted:
        return noted[-1].removeprefix("files: ").split(", ")
    listing = view.latest("glob", "pattern", pattern)
    return listing.split() if listing is not None else None


def json_structure(view: View) -> Step:
    path = re.findall(r"[\w./-]+\.json", view.request)[0]
    step = _fetch(view, [path])
    if step:
        return step
    return Step(PREFIX + f"Structure of {path}: {facts(view, path)}.")


def compare(view: View) -> Step:
    paths = list(dict.fromkeys(re.findall(CODE, view.request)))
    step = _fetch(view, paths)
    if step:
        return step
    lines = [f"- {p}: {facts(view, p)}" for p in paths]
    docs = [re.search(r'docstring "([^"]*)"', facts(view, p) or "") for p in paths]
    gist = "; ".join(f"{p} — {d.group(1)}" for p, d in zip(paths, docs, strict=True) if d)
    source = " (from the summary's notes)" if view.compacted_before else ""
    return Step(PREFIX + f"Comparison{source}:\n" + "\n".join(lines)
                + f"\n\nHow each manages its context: {gist}")


def write_file(view: View) -> Step:
    """"Write P containing 'T'" (and, if asked, compact afterwards): once, never again."""
    match = re.search(r"write\s+(?:a file\s+)?(?:called\s+|named\s+)?`?([\w./-]+)`?.*?"
                      r"(?:containing|saying|with)\s+['\"](.+?)['\"]", view.request, re.I | re.S)
    path, text = match.group(1), match.group(2)
    written = bool(view.note(f"write_file {path}")) or any(
        c.name == "write_file" and c.input.get("path") == path for c in view.calls) or any(
        f"write_file {path}" in ref for ref in view.reference)
    wants_compact = bool(re.search(r"\bcompact", view.request.replace(path, ""), re.I))
    if not written:
        calls = [("write_file", {"path": path, "content": text})]
        return Step(f"Writing {path}" + (", then asking for compaction." if wants_compact else "."),
                    calls + ([("compact", {})] if wants_compact else []))
    if wants_compact:
        return Step(PREFIX + f"Done: {path} is written (once) and the finished turn was compacted.")
    return Step(PREFIX + f"Done: {path} is written.")


def run_command(view: View) -> Step:
    """"Run `cmd`": run it once, then report what the output says."""
    command = re.search(r"`([^`]+)`", view.request).group(1)
    key = f"bash {command}"
    known = view.fresh_note(key)
    if not known:
        result = view.latest("bash", "command", command, current=True)
        if result is None:
            return Step(f"Next: run {command}.", [("bash", {"command": command})])
        known = [describe_output(result)]
    return Step(PREFIX + f"`{command}`: {known[-1]}")


def describe_output(text: str) -> str:
    """A command's output in one line: size, first line, and the lines that matter."""
    lines = [line for line in text.splitlines() if line.strip()]
    salient = [line for line in lines if re.search(r"FAIL|ERROR|TODO|WARN|port|def ", line)]
    fact = f"{len(lines)} lines; first: {one_line(lines[0] if lines else '', 120)!r}"
    if salient:
        fact += "; notable: " + " / ".join(one_line(line, 120) for line in salient[:4])
    saved = persisted_path(text)
    if saved:
        fact += f"; full output persisted at {saved}"
    return fact


def remember(view: View) -> Step:
    """A constraint or fact the user states: acknowledge it and keep it as a note."""
    text = one_line(re.sub(r"^(constraint|remember( that)?)\s*:?\s*", "", view.request,
                           flags=re.I), 300)
    return Step(note_line("constraint", text) + "\n" + PREFIX + f"Noted: {text}")


def read_files(view: View) -> Step:
    """"Read a, b": read them (again, if asked again), all in one batch, then report."""
    paths = list(dict.fromkeys(re.findall(ANY_FILE, view.request)))

    def known(path: str) -> str | None:
        if view.fresh_note(path):
            return view.fresh_note(path)[-1]
        raw = view.latest("read_file", "path", path, current=True)
        return describe(path, raw) if raw is not None else None
    missing = [p for p in paths if known(p) is None]
    if missing:
        return Step(f"Reading {len(missing)} file(s).", _reads(missing))
    return Step(PREFIX + "\n".join(f"- {p}: {known(p)}" for p in paths))


def plain(view: View) -> Step:
    return Step(PREFIX + "I am the offline teaching model. I can list, read, compare and "
                "summarise files in the workspace; I received: " + one_line(view.request, 200))


SKILLS: list[tuple[Callable[[str], bool], Callable[[View], Step]]] = [
    (lambda r: bool(re.match(r"\s*(constraint|remember)\b", r, re.I)), remember),
    (lambda r: bool(re.search(r"\bwrite\b.*(containing|saying|with)\s+['\"]", r, re.I | re.S)),
     write_file),
    (lambda r: bool(re.search(r"\brun\b[^`]*`[^`]+`", r, re.I)), run_command),
    (lambda r: "readme" in r.lower() and bool(re.search(r"title|h1|heading|标题", r, re.I)),
     titles),
    (lambda r: bool(re.search(r"[\w./-]+\.json", r)), json_structure),
    (lambda r: len(set(re.findall(CODE, r))) >= 2
     and bool(re.search(r"compar|比较|differ", r, re.I)), compare),
    (lambda r: bool(re.search(ANY_FILE, r)), read_files),
]


def decide(view: View, take_notes: bool = True) -> Step:
    skill = next((s for test, s in SKILLS if test(view.request)), plain)
    notes = new_notes(view) if take_notes else []
    step = skill(view)
    text = "\n".join([*notes, step.text]) if notes else step.text
    return Step(text, step.calls)
