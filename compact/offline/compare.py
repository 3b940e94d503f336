"""Skill: compare programs, answering the question asked from what each program contains.

A careful agent reads each program, then lists the documentation beside them and reads
each one's README (in the request's language when there is one), and answers from its
notes: what each program is and defines, then what the question asks about. The question's
own words choose the answer's parts (``compare_facets``): what each stores and where, what
it keeps in the prompt, how it handles errors; when they point at none, every part the notes
have something for. The names in each program that carry the question's words follow.
"""

from __future__ import annotations

import posixpath
import re

from .compare_facets import FACETS, facet_line, facets_for
from .knowledge import Step, facts, fetch, listing, next_step, offline_label
from .phrases import after_label, forms, phrase, split_parts
from .program_choice import choose_programs
from .question_words import Word, carries, question_words
from .request_text import code_paths, folders, language
from .view import View

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{2,}")
_LABELS = ("class", "top-level function", "个类", "个顶层函数", *forms("constants"),
           *forms("code_names"))
_EFFECTS = tuple(form for f in FACETS for form in forms(f.label))   # shown in the answer's own parts
_README_ORDER = {"en": ("README.en.md", "README.md", "README_en.md"),
                 "zh": ("README.zh.md", "README.zh-CN.md", "README.zh-cn.md", "README.md",
                        "README_zh.md")}
SHOWN_NAMES = 6             # names listed per question word and program
SHOWN_ITEMS = 10            # items of a list in the structure line (the note has them all)


def doc_patterns(programs: list[str]) -> list[str]:
    """One glob that lists the Markdown beside every program, when their folders allow it."""
    dirs = list(dict.fromkeys(posixpath.dirname(p) for p in programs if posixpath.dirname(p)))
    if not dirs:
        return []
    if len(dirs) == 1:
        return [f"{dirs[0]}/*.md"]
    parts = [d.split("/") for d in dirs]
    if len({len(p) for p in parts}) != 1:
        return [f"{d}/*.md" for d in dirs]
    common = []
    for column in zip(*parts, strict=True):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    return ["/".join(common + ["*"] * (len(parts[0]) - len(common)) + ["*.md"])]


def pick_doc(files: list[str], program: str, lang: str) -> str | None:
    """The README beside ``program``, in the request's language when there is one."""
    here = [f for f in files if posixpath.dirname(f) == posixpath.dirname(program)]
    names = {posixpath.basename(f): f for f in here}
    for name in _README_ORDER[lang]:
        if name in names:
            return names[name]
    readmes = sorted(f for f in here if posixpath.basename(f).lower().startswith("readme"))
    return readmes[0] if readmes else None


def compare(view: View) -> Step:
    lang = language(view.request)
    programs, why, step = choose_programs(view, lang)
    if step:
        return step
    if len(programs) < 2:
        return Step(offline_label(lang) + phrase("too_few_programs", lang))
    step = fetch(view, programs, lang)
    if step:
        return step
    docs: dict[str, str | None] = {}
    for pattern in doc_patterns(programs) if view.can("glob") else []:   # else: docstrings
        files = listing(view, pattern)
        if files is None:
            return Step(next_step(lang, "next_list_docs"), [("glob", {"pattern": pattern})])
        for program in programs:
            docs.setdefault(program, pick_doc(files, program, lang))
    step = fetch(view, [d for d in docs.values() if d], lang)
    if step:
        return step
    return answer(view, programs, why, docs, lang)


def _part(fact: str, key: str) -> str:
    """The part of a note under ``key``'s label, in either language."""
    return next((p for p in split_parts(fact) if any(f in p for f in forms(key))), "")


def _body(part: str) -> str:
    """What follows a part's label (its first colon, either width)."""
    return re.split(r"[:：]", part, maxsplit=1)[1] if re.search(r"[:：]", part) else part


def names_in(fact: str) -> list[str]:
    """Identifiers a note lists as defined or explained (classes, functions, constants)."""
    names: list[str] = []
    for part in split_parts(fact):
        if not any(label in part for label in _LABELS):
            continue
        body = _body(part)
        if after_label(part, "code_names") is not None:
            names += [n.strip() for n in body.split(", ") if n.strip() not in ("", "…")]
            continue
        if after_label(part, "constants") is not None:
            body = " ".join(item.split("=")[0] for item in body.split(", "))
        names += [n for n in _IDENTIFIER.findall(body) if n not in ("methods", "class", "classes")]
    return list(dict.fromkeys(names))


def paths_in(fact: str) -> list[str]:
    part = _part(fact, "paths_named")
    return [p.strip() for p in _body(part).split(", ") if p.strip() not in ("", "…")] \
        if part else []


_LEAD = re.compile(r"^(?:[\s,，、。:：;；.!?]|and\b|then\b|explain\b|describe\b|say\b|tell me\b|"
                   r"说明|解释|描述|讲讲|并)*", re.I)


def question_of(request: str, programs: list[str]) -> str:
    """What the request asks about the programs: the words after the last one it names."""
    named = [p for p in code_paths(request) + folders(request) if p in request]
    end = max((request.rfind(p) + len(p) for p in named), default=0)
    rest = _LEAD.sub("", request[end:])
    rest = " ".join(rest.split()).rstrip("。.!！")
    if len(rest) >= 8:
        return rest
    for name in sorted(named, key=len, reverse=True):     # the request without the names
        request = request.replace(name, "…")
    return " ".join(request.split())


def _shortened(part: str, limit: int = SHOWN_ITEMS) -> str:
    """A note's list cut to its first ``limit`` items (commas inside brackets kept)."""
    colon = next((c for c in (": ", "：") if c in part), ": ")
    head, colon, body = part.partition(colon)
    items, depth, start = [], 0, 0
    for index, char in enumerate(body):
        depth += char in "([（" and 1 or (char in ")]）" and -1 or 0)
        if depth == 0 and body.startswith(", ", index):
            items.append(body[start:index])
            start = index + 2
    items.append(body[start:])
    if not colon or len(items) <= limit:
        return part
    return f"{head}{colon}{', '.join(items[:limit])}, …"


_LEFT_OUT = tuple(f for key in ("constants", "paths_named", "sections") for f in forms(key)) \
    + ("source:", "来源：")                                     # said elsewhere, or long
_EXPLAINED = tuple(f for key in ("no_h1", "front_matter", "code_names") for f in forms(key)) \
    + ("H1", "一级标题")


def _program_block(view: View, program: str, doc_path: str | None, has_docs: bool,
                   lang: str) -> list[str]:
    code = facts(view, program) or ""
    doc = facts(view, doc_path) if doc_path else None
    lines = [f"\n{program}"]
    sep = phrase("sep", lang)
    doc_note = next((p for p in split_parts(code) if p.startswith(("docstring", "文档字符串"))), "")
    if doc_note:
        lines.append("- " + phrase("says_it_is", lang, text=doc_note))
    structure = [_shortened(p) for p in split_parts(code) if p
                 and not p.startswith(("docstring", "文档字符串") + _EFFECTS + _LEFT_OUT)]
    lines.append("- " + phrase("structure", lang, text=sep.join(structure)))
    if doc_path and doc:
        explained = sep.join(_shortened(p) for p in split_parts(doc) if p.startswith(_EXPLAINED))
        lines.append("- " + phrase("explained_in", lang, path=doc_path, text=explained))
    elif has_docs:
        lines.append("- " + phrase("no_readme_beside", lang))
    elif not view.can("glob"):
        lines.append("- " + phrase("no_listing_tool", lang))
    return lines


def _word_lines(names: dict[str, list[str]], words: list[Word], lang: str) -> list[str]:
    """For each program, its names that carry each of the question's words."""
    lines, unmatched = [], [w.text for w in words]
    for program, own in names.items():
        found = []
        for word in words:
            hits = [n for n in own if carries(n, word)]
            if hits:
                found.append(f"{word.text} — {', '.join(hits[:SHOWN_NAMES])}"
                             + (", …" if len(hits) > SHOWN_NAMES else ""))
                unmatched = [u for u in unmatched if u != word.text]
        lines.append(f"- {program}: " + ("; ".join(found) or phrase("no_name_found", lang)))
    if not words:
        return []
    listed = phrase("list_sep", lang)
    head = phrase("names_head", lang, words=listed.join(w.text for w in words))
    tail = [phrase("names_unmatched", lang, words=listed.join(unmatched))] if unmatched else []
    return [head, *lines, *tail]


def answer(view: View, programs: list[str], why: dict[str, str], docs: dict[str, str | None],
           lang: str) -> Step:
    source = phrase("from_summary", lang) if view.compacted_before else ""
    chosen = ", ".join(f"{p} ({why[p]})" for p in programs if p in why)
    lines = [phrase("comparison", lang, source=source), phrase("programs", lang, chosen=chosen)]
    notes = {p: facts(view, p) or "" for p in programs}
    readmes = {p: (facts(view, docs[p]) or "") if docs.get(p) else "" for p in programs}
    for program in programs:
        lines += _program_block(view, program, docs.get(program), bool(docs), lang)
    question = question_of(view.request, programs)
    words = question_words(question)
    lines.append("\n" + phrase("the_question", lang, question=question))
    for facet in facets_for(words, notes):
        lines.append(phrase(f"facet_{facet.label}", lang))
        lines += [f"- {p}: {facet_line(facet, notes[p], readmes[p], lang)}" for p in programs]
    names = {p: list(dict.fromkeys(names_in(notes[p]) + paths_in(notes[p]) + names_in(readmes[p])))
             for p in programs}
    lines += _word_lines(names, words, lang)
    first, second = (set(names[p]) for p in programs[:2])
    shared = sorted(first & second)
    lines.append("\n" + phrase("shared", lang, names=", ".join(shared[:16])
                                or phrase("no_shared", lang)))
    return Step(offline_label(lang) + "\n".join(lines))
