"""Skill: compare programs by their structure, and by what explains them.

A careful agent reads each program, then lists the documentation beside them and reads
each one's README (in the request's language when there is one), and answers from its
notes: what each program defines, which of those names concern the live context and which
what is kept on disk, and what only one of them has.
"""

from __future__ import annotations

import posixpath
import re

from .knowledge import PREFIX, Step, facts, fetch, listing, say
from .read_code import CONSTANTS_LABEL, PATHS_LABEL
from .read_markdown import CODE_NAMES_LABEL
from .request_text import CODE_EXTENSIONS, code_paths, folders, language
from .view import View

_CONTEXT = re.compile(r"compact|snip|micro|summar|trim|truncat|budget|context|window|token|"
                      r"prune|clip|evict|placeholder|preview|limit|history|shrink|squeez", re.I)
_DISK = re.compile(r"memor|persist|save|store|recall|remember|transcript|archive|consolidat|"
                   r"journal|note|disk|_dir\b|dir$", re.I)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{2,}")
_LABELS = ("class", "top-level function", CONSTANTS_LABEL, CODE_NAMES_LABEL)
_README_ORDER = {"en": ("README.en.md", "README.md", "README_en.md"),
                 "zh": ("README.zh.md", "README.zh-CN.md", "README.zh-cn.md", "README.md",
                        "README_zh.md")}


def _programs(view: View) -> tuple[list[str], Step | None]:
    """The programs to compare: code paths in the request, else one per named folder."""
    named = code_paths(view.request)
    if len(named) >= 2:
        return named, None
    programs = []
    for folder in folders(view.request):
        files = listing(view, f"{folder}/*")
        if files is None:
            return [], Step(f"Next: list {folder}/ to find its program.",
                            [("glob", {"pattern": f"{folder}/*"})])
        code = sorted(f for f in files if f.rsplit(".", 1)[-1] in CODE_EXTENSIONS)
        preferred = [f for f in code if posixpath.basename(f).startswith(("code.", "main."))]
        if preferred or code:
            programs.append((preferred or code)[0])
    return programs, None


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
    programs, step = _programs(view)
    if step:
        return step
    if len(programs) < 2:
        return Step(PREFIX + say(lang, "I found fewer than two programs to compare in what the "
                                       "request names.", "请求中能找到的程序不足两个，无法比较。"))
    step = fetch(view, programs, lang)
    if step:
        return step
    docs: dict[str, str | None] = {}
    for pattern in doc_patterns(programs) if view.can("glob") else []:   # else: docstrings
        files = listing(view, pattern)
        if files is None:
            return Step("Next: list the documentation beside the programs.",
                        [("glob", {"pattern": pattern})])
        for program in programs:
            docs.setdefault(program, pick_doc(files, program, lang))
    step = fetch(view, [d for d in docs.values() if d], lang)
    if step:
        return step
    return answer(view, programs, docs, lang)


def _part(fact: str, label: str) -> str:
    return next((p for p in fact.split("; ") if label in p), "")


def names_in(fact: str) -> list[str]:
    """Identifiers a note lists as defined or explained (classes, functions, constants)."""
    names: list[str] = []
    for part in fact.split("; "):
        if not any(label in part for label in _LABELS):
            continue
        body = part.split(":", 1)[1] if ":" in part else part
        if part.startswith(CODE_NAMES_LABEL):
            names += [n.strip() for n in body.split(", ") if n.strip() not in ("", "…")]
            continue
        if part.startswith(CONSTANTS_LABEL):
            body = " ".join(item.split("=")[0] for item in body.split(", "))
        names += [n for n in _IDENTIFIER.findall(body) if n not in ("methods", "class", "classes")]
    return list(dict.fromkeys(names))


def paths_in(fact: str) -> list[str]:
    part = _part(fact, PATHS_LABEL)
    return [p.strip() for p in part.split(":", 1)[1].split(", ") if p.strip() not in ("", "…")] \
        if part else []


def answer(view: View, programs: list[str], docs: dict[str, str | None], lang: str) -> Step:
    source = say(lang, " (from the summary's notes)", "（根据摘要中的笔记）") \
        if view.compacted_before else ""
    lines = [say(lang, f"Comparison{source}:", f"比较{source}：")]
    mechanisms = {}
    for program in programs:
        code = facts(view, program) or ""
        doc_path = docs.get(program)
        doc = facts(view, doc_path) if doc_path else None
        doc_note = _part(code, "docstring")
        lines.append(f"\n{program}")
        if doc_note:
            lines.append(f"- {say(lang, 'what it says it is', '自述')}: {doc_note}")
        structure = [p for p in code.split("; ") if p and not p.startswith("docstring")]
        lines.append(f"- {say(lang, 'structure', '结构')}: {'; '.join(structure)}")
        if doc_path and doc:
            lines.append(f"- {say(lang, 'explained in', '说明文档')} {doc_path}: {doc}")
        elif docs:
            lines.append("- " + say(lang, "no README beside it; its docstring is the explanation",
                                    "旁边没有 README，以其文档字符串为说明"))
        elif not view.can("glob"):
            lines.append("- " + say(lang, "no tool to list files was offered, so no README was "
                                          "looked for; its docstring is the explanation",
                                    "没有可列出文件的工具，未查找 README；以其文档字符串为说明"))
        names = names_in(code) + names_in(doc or "")
        disk = list(dict.fromkeys(paths_in(code) + [n for n in names if _DISK.search(n)]))
        live = [n for n in dict.fromkeys(names) if _CONTEXT.search(n) and n not in disk]
        mechanisms[program] = (live, disk)
    lines.append("\n" + say(lang, "How each manages the current context and what it keeps on "
                                  "disk (by the names in its code and README):",
                            "各自如何管理当前上下文、在磁盘上保存什么（依据代码和 README 中的名字）："))
    for program, (live, disk) in mechanisms.items():
        lines.append(f"- {program}: " + say(
            lang, f"context — {', '.join(live[:14]) or 'no names about the context'}; "
                  f"on disk / memory — {', '.join(disk[:14]) or 'no names about storage'}",
            f"上下文 — {', '.join(live[:14]) or '没有与上下文相关的名字'}；"
            f"磁盘 / 记忆 — {', '.join(disk[:14]) or '没有与存储相关的名字'}"))
    first, second = (set(sum(mechanisms[p], [])) for p in programs[:2])
    shared = sorted(first & second)
    lines.append(say(lang, f"\nShared by both: {', '.join(shared) or 'none of these names'}.",
                     f"\n两者共有：{', '.join(shared) or '这些名字都不相同'}。"))
    return Step(PREFIX + "\n".join(lines))
