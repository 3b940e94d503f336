"""Skill: compare the programs a request names (and the README beside each) from their notes;
the question's words, stemmed (a glossary for Chinese), choose the parts (``FACETS``) and names."""

from __future__ import annotations

import posixpath
import re
from itertools import takewhile
from typing import NamedTuple

import snowballstemmer

from .knowledge import Step, code_paths, facts, fetch, folders, listing, next_step
from .phrases import after_label, forms, language, listed, offline_label, phrase, split_parts
from .view import View

_STEMMER = snowballstemmer.stemmer("english")
_STOP = set("""a an the and or but of to in on at by for with from into as if then than so also
how what which where when why who whom whose does do did done doing is are was were be been being
has have had each both every either any all some it its they them their this that these those
there here me us you your we our my i please can could would should will shall may might must
explain describe compare comparison contrast tell show say list give between differ differs
different difference differences versus vs code program programs module modules script scripts
file's one other way ways thing things something about work works""".split())
# Common programming words in Chinese → the English word they are matched as.
_GLOSSARY = {
    "上下文": "context", "提示词": "prompt", "提示": "prompt", "消息": "message", "历史": "history",
    "窗口": "window", "令牌": "token", "记忆": "memory", "内存": "memory", "持久": "persistent",
    "存储": "store", "保存": "save", "存放": "store", "存在哪里": "store",
    "磁盘": "disk", "文件": "file", "写入": "write", "读取": "read", "数据": "data",
    "数据库": "database", "错误": "error", "出错": "error", "异常": "exception", "失败": "fail",
    "重试": "retry", "缓存": "cache", "队列": "queue", "日志": "log", "配置": "config",
    "摘要": "summary", "总结": "summary", "压缩": "compact", "裁剪": "snip", "管理": "manage",
    "处理": "handle", "当前": "current", "会话": "session", "工具": "tool", "结果": "result",
    "预算": "budget", "限制": "limit", "索引": "index", "检索": "retrieve", "搜索": "search",
    "整理": "consolidate", "合并": "merge", "删除": "delete", "过期": "expire", "超时": "timeout",
    "锁": "lock", "线程": "thread", "并发": "concurrency", "用户": "user", "模型": "model",
    "请求": "request", "响应": "response", "测试": "test", "权限": "permission", "任务": "task",
    "计划": "plan", "路径": "path", "目录": "directory", "文件夹": "folder", "转存": "persist",
    "清理": "clean", "状态": "state", "调度": "schedule", "作业": "job", "消费": "consume",
}
_ENGLISH = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


class Word(NamedTuple):
    text: str            # as the question writes it
    stem: str


def stem(word: str) -> str:
    return _STEMMER.stemWord(word.lower().strip("'-"))


def question_words(question: str) -> list[Word]:
    """The content words of a question, once each, in the order written."""
    found = [(m.start(), Word(m.group(), stem(m.group()))) for m in _ENGLISH.finditer(question)
             if m.group().lower() not in _STOP and len(m.group()) > 2]
    taken: set[int] = set()
    for term in sorted(_GLOSSARY, key=len, reverse=True):      # longest first: 数据库 before 数据
        for match in re.finditer(re.escape(term), question):
            span = set(range(match.start(), match.end()))
            if not span & taken:
                taken |= span
                found.append((match.start(), Word(term, stem(_GLOSSARY[term]))))
    words: dict[str, Word] = {}
    for _, word in sorted(found, key=lambda item: item[0]):
        words.setdefault(word.stem, word)
    return list(words.values())


def stems_match(a: str, b: str) -> bool:
    """The same stem, or one the start of the other (``handl`` / ``handler``)."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 4 and long.startswith(short))


def carries(name: str, word: Word) -> bool:
    """A part of the name has the word's stem: ``MemoryStore`` → memori, store."""
    return any(stems_match(word.stem, stem(part)) for part in _PARTS.findall(name) if len(part) > 1)


# The parts of a note a question can ask for: its label (a phrase key, with the headings
# facet_<label> and facet_<label>_none) → the stems of the question words that ask for it.
FACETS = {label: [stem(w) for w in words.split()] for label, words in (
    ("writes", "store storage save persist disk file write keep memory remember database data "
               "archive record folder directory path transcript"),
    ("model_request", "context prompt message window history token system model send conversation"),
    ("errors", "error exception fail failure retry crash fault wrong broken recover raise catch"))}


def asks_for(facet: str, word: Word) -> bool:
    return any(stems_match(word.stem, s) for s in FACETS[facet])


def _labelled_part(fact: str, key: str) -> str:
    """What follows ``key``'s label in the note part that starts with it (either language)."""
    return next((rest for p in split_parts(fact) if (rest := after_label(p, key)) is not None), "")


def facet_line(facet: str, note: str, readme: str, lang: str) -> str:
    """What one program's note (and README) says for ``facet``."""
    part = _labelled_part(note, facet)
    if part:
        return part
    said = []
    if facet == "writes":
        paths = _labelled_part(note, "paths_named")
        named = [n.strip() for n in _labelled_part(readme, "code_names").split(", ")
                 if "/" in n or "." in n.strip(" .")]
        said = [phrase("paths_it_names", lang, paths=paths)] if paths else []
        said += [phrase("readme_names", lang, names=", ".join(named))] if named else []
    sep = phrase("sep", lang)
    if any(mark in note for mark in ("at least", "the middle not seen", "only the preview",
                                     "至少", "中间部分未看到", "只看到了预览")):    # partly seen
        return sep.join([phrase("no_write_seen" if facet == "writes" else "none_seen", lang),
                         *said])
    if not note:
        return phrase("nothing_noted", lang)
    return sep.join([phrase(f"facet_{facet}_none", lang), *said])


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{2,}")
_LABELS = ("class", "top-level function", "个类", "个顶层函数", *forms("constants"),
           *forms("code_names"))
_EFFECTS = tuple(form for f in FACETS for form in forms(f))   # shown in the answer's own parts
_README_ORDER = {"en": ("README.en.md", "README.md", "README_en.md"),
                 "zh": ("README.zh.md", "README.zh-CN.md", "README.zh-cn.md", "README.md",
                        "README_zh.md")}
SHOWN_NAMES = 6             # names listed per question word and program
SHOWN_ITEMS = 10            # items of a list in the structure line (the note has them all)


def doc_patterns(programs: list[str]) -> list[str]:
    """One glob that lists the Markdown beside every program, when their folders allow it."""
    dirs = list(dict.fromkeys(posixpath.dirname(p) for p in programs if posixpath.dirname(p)))
    parts = [d.split("/") for d in dirs]
    if len({len(p) for p in parts}) != 1:            # none, or folders of different depths
        return [f"{d}/*.md" for d in dirs]
    common = [c[0] for c in takewhile(lambda c: len(set(c)) == 1, zip(*parts, strict=True))]
    return ["/".join(common + ["*"] * (len(parts[0]) - len(common)) + ["*.md"])]


def pick_doc(files: list[str], program: str, lang: str) -> str | None:
    """The README beside ``program``, in the request's language when there is one."""
    here = [f for f in files if posixpath.dirname(f) == posixpath.dirname(program)]
    names = {posixpath.basename(f): f for f in here}
    readmes = [f for f in here if posixpath.basename(f).lower().startswith("readme")]
    return next((names[n] for n in _README_ORDER[lang] if n in names), None) or min(readmes, default=None)


def compare(view: View) -> Step:
    """The programs are the code files the request names (``wants_comparison``: two or more)."""
    lang = language(view.request)
    programs = code_paths(view.request)
    if step := fetch(view, programs, lang):
        return step
    docs: dict[str, str | None] = {}
    for pattern in doc_patterns(programs) if view.can("glob") else []:   # else: docstrings
        files = listing(view, pattern)
        if files is None:
            return Step(next_step(lang, "next_list_docs"), [("glob", {"pattern": pattern})])
        for program in programs:
            docs.setdefault(program, pick_doc(files, program, lang))
    if step := fetch(view, [d for d in docs.values() if d], lang):
        return step
    return answer(view, programs, docs, lang)


def names_in(fact: str) -> list[str]:
    """Identifiers a note lists as defined or explained (classes, functions, constants)."""
    names: list[str] = []
    for part in split_parts(fact):
        if not any(label in part for label in _LABELS):
            continue
        body = re.split(r"[:：]", part, maxsplit=1)[-1]      # what follows its label
        if after_label(part, "code_names") is not None:
            names += [n.strip() for n in body.split(", ") if n.strip() not in ("", "…")]
            continue
        if after_label(part, "constants") is not None:
            body = " ".join(item.split("=")[0] for item in body.split(", "))
        names += [n for n in _IDENTIFIER.findall(body) if n not in ("methods", "class", "classes")]
    names += [p.strip() for p in _labelled_part(fact, "paths_named").split(", ")]
    return list(dict.fromkeys(n for n in names if n not in ("", "…")))


def lists_cut(note: str) -> bool:
    """Whether a note lists only some of its file's names: a list cut with "…", or an excerpt's."""
    return any(part.rstrip().endswith("…") or any(f in part for f in forms("at_least"))
               for part in split_parts(note) if any(label in part for label in _LABELS))


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
    if not words:
        return []
    hits = {(p, w): [n for n in own if carries(n, w)] for p, own in names.items() for w in words}
    lines = [f"- {p}: " + ("; ".join(f"{w.text} — {listed(hits[p, w], SHOWN_NAMES)}"
                                     for w in words if hits[p, w]) or phrase("no_name_found", lang))
             for p in names]
    unmatched = [w.text for w in words if not any(hits[p, w] for p in names)]
    sep = phrase("list_sep", lang)
    head = phrase("names_head", lang, words=sep.join(w.text for w in words))
    tail = [phrase("names_unmatched", lang, words=sep.join(unmatched))] if unmatched else []
    return [head, *lines, *tail]


def answer(view: View, programs: list[str], docs: dict[str, str | None], lang: str) -> Step:
    source = phrase("from_summary", lang) if view.compacted_before else ""
    chosen = ", ".join(f"{p} ({phrase('named_in_request', lang)})" for p in programs)
    lines = [phrase("comparison", lang, source=source), phrase("programs", lang, chosen=chosen)]
    notes = {p: facts(view, p) or "" for p in programs}
    readmes = {p: (facts(view, docs[p]) or "") if docs.get(p) else "" for p in programs}
    for program in programs:
        lines += _program_block(view, program, docs.get(program), bool(docs), lang)
    question = question_of(view.request, programs)
    words = question_words(question)
    lines.append("\n" + phrase("the_question", lang, question=question))
    # the parts the question asks for, in the order it first asks; else every part a note has
    asked = sorted((f for f in FACETS if any(asks_for(f, w) for w in words)),
                   key=lambda f: min(i for i, w in enumerate(words) if asks_for(f, w)))
    for facet in asked or [f for f in FACETS if any(_labelled_part(n, f) for n in notes.values())]:
        lines.append(phrase(f"facet_{facet}", lang))
        lines += [f"- {p}: {facet_line(facet, notes[p], readmes[p], lang)}" for p in programs]
    names = {p: list(dict.fromkeys(names_in(notes[p]) + names_in(readmes[p]))) for p in programs}
    lines += _word_lines(names, words, lang)
    first, second = (set(names[p]) for p in programs[:2])
    shared = sorted(first & second)
    cut = [p for p in programs[:2] if lists_cut(notes[p]) or lists_cut(readmes[p])]
    lines.append("\n" + phrase("shared", lang, names=", ".join(shared[:16])
                                or phrase("no_shared", lang))
                 + (phrase("shared_partial", lang, paths=phrase("list_sep", lang).join(cut)) if cut else ""))
    return Step(offline_label(lang) + "\n".join(lines))
