"""The offline model's policy: from what it sees, choose the next tool calls or answer.

Each skill recognises a kind of request (in English or Chinese, however phrased), works out
what it still needs to know (from raw tool results, its own notes, or a summary's notes), and
either asks for tools or answers: the lesson's three experiments (``titles``, ``json_structure``,
``compare``) and the small tasks here. ``run_command`` runs only a command the user's own
request names in backticks, so the person typing is the person confirming (SECURITY.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .compare import compare
from .knowledge import (
    TITLES,
    Step,
    describe,
    describe_output,
    facts,
    fetch,
    folders,
    knows,
    new_notes,
    next_step,
    note_line,
    one_line,
    paths,
    reads,
    wants_comparison,
    wants_structure,
    wants_titles,
)
from .phrases import language, offline_label, phrase, split_parts
from .read_markdown import read_markdown, title_from_note, title_token
from .titles import titles
from .view import View

# One pattern both picks the skill and reads the request, so a request it picks is one it can read.
WRITE = re.compile(r"write\s+(?:a file\s+)?(?:called\s+|named\s+)?`?([\w./-]+)`?.*?"
                   r"(?:containing|saying|with)\s+['\"](.+?)['\"]", re.I | re.S)


def write_file(view: View) -> Step:
    """"Write P containing 'T'" (and, if asked, compact afterwards): once, never again."""
    match = WRITE.search(view.request)
    path, text = match.group(1).removeprefix("./"), match.group(2)
    written = bool(view.note(f"write_file {path}")) or any(
        c.name == "write_file" and c.input.get("path") == path for c in view.calls) or any(
        f"write_file {path}" in ref for ref in view.reference)
    wants_compact = bool(re.search(r"\bcompact", view.request.replace(path, ""), re.I))
    lang = view.lang
    if not written:
        calls = [("write_file", {"path": path, "content": text})]
        return Step(phrase("writing_compact" if wants_compact else "writing", lang, path=path),
                    calls + ([("compact", {})] if wants_compact else []))
    return Step(offline_label(lang) + phrase("written_compacted" if wants_compact else "written",
                                             lang, path=path))


def run_command(view: View) -> Step:
    """"Run `cmd`": run it once, then report what the output says."""
    command = re.search(r"`([^`]+)`", view.request).group(1)
    key = f"bash {command}"
    known = view.fresh_note(key)
    if not known:
        result = view.latest("bash", "command", command, current=True)
        if result is None:
            return Step(next_step(view.lang, "next_run", command=command),
                        [("bash", {"command": command})])
        known = [describe_output(result, view.lang)]
    return Step(offline_label(view.lang) + f"`{command}`: {known[-1]}")


def remember(view: View) -> Step:
    """A constraint or fact the user states: acknowledge it and keep it as a note."""
    text = one_line(re.sub(r"^(constraint|remember( that)?)\s*:?\s*", "", view.request,
                           flags=re.I), 300)
    lang = view.lang
    return Step(note_line("constraint", text, lang) + "\n" + offline_label(lang)
                + phrase("noted", lang, text=text))


def read_files(view: View) -> Step:
    """"Read a, b": read them (again, if asked again), all in one batch, then report."""
    wanted = paths(view.request)

    def known(path: str) -> str | None:
        if view.fresh_note(path):
            return view.fresh_note(path)[-1]
        raw = view.latest("read_file", "path", path, current=True)
        return describe(path, raw, view.lang) if raw is not None else None
    missing = [p for p in wanted if not knows(view, p, current=True)]
    if missing:
        return Step(phrase("reading", view.lang, n=len(missing)), reads(missing))
    return Step(offline_label(view.lang) + "\n".join(f"- {p}: {known(p)}" for p in wanted))


def plain(view: View) -> Step:
    return Step(offline_label(view.lang) + phrase("plain", view.lang,
                                                  request=one_line(view.request, 200)))


def wants_one_title(request: str) -> bool:
    """"What is the title of README.md?": a title asked of exactly one named Markdown file (not
    the README of a range of chapters: ``titles`` answers those)."""
    named = paths(request, ("md",))
    return len(named) == 1 and len(paths(request)) == 1 and not folders(request) \
        and bool(TITLES.search(request))


def file_title(view: View) -> Step:
    """The H1 title of the one file the request names (read it first if it is unknown)."""
    path = paths(view.request, ("md",))[0]
    step = fetch(view, [path], view.lang)
    if step:
        return step
    raw = view.read_result(path)
    noted = view.note(path)
    title = read_markdown(raw).title if raw is not None else title_from_note(noted[-1]) if noted else None
    if not title:
        return Step(offline_label(view.lang) + phrase("no_title", view.lang, path=path,
                                                      facts=facts(view, path)))
    return Step(offline_label(view.lang) + phrase("title_of", view.lang, path=path,
                                                  title=title_token(title)))


def json_structure(view: View) -> Step:
    lang = language(view.request)
    path = paths(view.request, ("json",))[0]
    step = fetch(view, [path], lang)
    if step:
        return step
    parts = [p.strip() for p in split_parts(facts(view, path) or "") if p.strip()]
    head = phrase("structure_of", lang, path=path)
    return Step(offline_label(lang) + head + "\n" + "\n".join(f"- {p}" for p in parts))


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
