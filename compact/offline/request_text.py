"""What a request asks for, in English or Chinese, however it is phrased.

Paths are taken only as written (``./`` dropped, ASCII path characters, a whole extension:
``transcript_1.jsonl`` is never read as ``.json``); chapter references (``s01_agent_loop``,
``ch03``, ``lesson-7``) give the range of chapters a request covers.
"""

from __future__ import annotations

import re

CODE_EXTENSIONS = ("py", "js", "ts", "go", "rs", "java", "rb", "c", "cpp", "h", "sh")
FILE_EXTENSIONS = ("md", "json", "jsonl", "txt", "toml", "yaml", "yml", "cfg", "ini", "log",
                   "csv", "html", "css", "rst", *CODE_EXTENSIONS)
_PATH = re.compile(r"(?<![A-Za-z0-9_./-])(?:\./)?((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]"
                   r"(?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?\.([A-Za-z0-9]+))(?![A-Za-z0-9_/-])",
                   re.ASCII)
_FOLDER = re.compile(r"(?<![A-Za-z0-9_./-])(?:\./)?([A-Za-z][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)/?"
                     r"(?![A-Za-z0-9_./-])", re.ASCII)
_CHAPTER = re.compile(r"^([A-Za-z]*[-_]?)(\d{1,3})(?:[-_.].*)?$", re.ASCII)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_HEADING_LEVELS = re.compile(r"^[Hh][1-6]$")

COMPARE = re.compile(r"compar|differ|versus|\bvs\.?\b|contrast|比较|比對|对比|對比|区别|區別|异同|不同",
                     re.I)
TITLES = re.compile(r"title|heading|\bh1\b|标题|標題|题目|命名", re.I)
STRUCTURE = re.compile(r"structur|field|schema|shape|format|record|key|analy[sz]|结构|結構|字段|"
                       r"欄位|分析|格式|记录|記錄", re.I)


def language(request: str) -> str:
    """``zh`` when the request is written in Chinese (any CJK character), else ``en``."""
    return "zh" if _CJK.search(request) else "en"


def paths(request: str, extensions: tuple[str, ...] = FILE_EXTENSIONS) -> list[str]:
    """File paths written in the request, in order, once each."""
    found = [m.group(1) for m in _PATH.finditer(request) if m.group(2).lower() in extensions]
    return list(dict.fromkeys(found))


def code_paths(request: str) -> list[str]:
    return paths(request, CODE_EXTENSIONS)


def folders(request: str) -> list[str]:
    """Folder-like names with a number (``s08_context_compact``), not file names."""
    names = []
    for match in _FOLDER.finditer(request):
        name = match.group(1)
        if _HEADING_LEVELS.match(name) or "." in name:
            continue
        names.append(name)
    return list(dict.fromkeys(names))


def chapter_number(name: str) -> tuple[str, int] | None:
    """(prefix, number) of a chapter folder name: ``s08_context_compact`` → ("s", 8)."""
    match = _CHAPTER.match(name)
    if not match:
        return None
    return match.group(1), int(match.group(2))


def chapter_range(request: str) -> tuple[str, set[int]] | None:
    """The chapter prefix and numbers a request covers (``s01_x 到 s05_y`` → s, {1..5})."""
    groups: dict[str, list[int]] = {}
    for name in folders(request):
        parsed = chapter_number(name)
        if parsed:
            groups.setdefault(parsed[0], []).append(parsed[1])
    if not groups:
        return None
    prefix, numbers = max(groups.items(), key=lambda item: len(item[1]))
    low, high = min(numbers), max(numbers)
    return prefix, set(range(low, high + 1)) if len(numbers) >= 2 else set(numbers)


def readme_name(request: str) -> str:
    """The README file name the request asks for (``README.md`` unless it names another)."""
    named = re.search(r"(?<![\w.])(README(?:\.[A-Za-z-]+)?\.md)\b", request, re.I | re.ASCII)
    return named.group(1) if named else "README.md"


def wants_titles(request: str) -> bool:
    return "readme" in request.lower() and bool(TITLES.search(request))


def wants_structure(request: str) -> bool:
    return bool(paths(request, ("json",))) and (bool(STRUCTURE.search(request))
                                                 or len(paths(request)) == 1)


def wants_comparison(request: str) -> bool:
    if not COMPARE.search(request):
        return False
    return len(code_paths(request)) >= 2 or len(folders(request)) >= 2
