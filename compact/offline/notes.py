"""How the offline model reads a tool result: one line of facts per file.

It writes these as ``Note [<path>]: <facts>`` in its own text, so the facts outlive the
tool result (micro_compact never touches assistant text) and reach the summary. The facts
come from the structure of what was read (``read_json``, ``read_markdown``, ``read_code``),
and say so when only part of it was seen (a persisted preview, an excerpt).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .markers import CLIPPED, read_persisted
from .phrases import phrase
from .read_code import describe_code
from .read_json import describe_json
from .read_markdown import describe_markdown

NOTE_LIMIT = 1_800
CODE_EXTENSIONS = ("py", "js", "ts", "go", "rs", "java", "rb", "c", "cpp", "h", "sh")


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind(path: str, body: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if suffix in ("md", "markdown", "rst"):
        return "markdown"
    if suffix in CODE_EXTENSIONS:
        return "code"
    if suffix == "json" or (not suffix and body.lstrip()[:1] in ("{", "[")):
        return "json"
    return "text"


@lru_cache(maxsize=256)      # a text is at most a tool's 50,000 chars: ≤ ~13 MB held
def describe(path: str, text: str, lang: str = "en") -> str:
    """The facts the model keeps about one read of ``path`` (a persisted preview or a clipped
    excerpt included: then the facts say how much was seen), written in ``lang``.

    A function of its arguments alone, so remembered: a long session shows the model the same
    results again and again (a Python file's facts take a parse of it)."""
    if text.startswith("Error"):
        return phrase("error_fact", lang, text=one_line(text, 200))
    persisted = read_persisted(text)
    body = persisted.preview if persisted else text
    clipped = CLIPPED.search(body)   # the marker pipeline.summary.clip leaves in a result
    omitted = int(clipped.group(1)) if clipped else 0
    partial = ""
    if persisted:
        total = phrase("of_total", lang, n=persisted.total_chars) if persisted.total_chars else ""
        partial = phrase("preview_seen", lang, n=len(body), total=total)
    elif clipped:
        seen = len(body) - len(clipped.group(0))
        partial = phrase("excerpt", lang, seen=seen, total=seen + omitted)
    fact = _facts(path, body, (partial, clipped, persisted.total_chars if persisted else None), lang)
    if persisted:
        size = phrase("size_chars", lang, n=persisted.total_chars) if persisted.total_chars else ""
        fact += phrase("sep", lang) + phrase("persisted_fact", lang, size=size, path=persisted.path)
    return fact


def _facts(path: str, body: str, cut: tuple, lang: str) -> str:
    """The facts of one text by its kind; ``cut``: (how it was partial, the clip marker, the
    persisted output's size)."""
    partial, clipped, _ = cut
    how = phrase("partial_paren", lang, how=partial) if partial else ""
    kind = _kind(path, body)
    if kind == "markdown":
        return describe_markdown(body, cut=bool(partial), lang=lang) + how
    if kind == "code":
        return describe_code(body, path, partial, lang)
    if kind == "json":
        head = body[:clipped.start()] if clipped else body
        return describe_json(head, cut[2], preview=bool(partial), lang=lang)
    lines = body.splitlines()
    return phrase("text_fact", lang, n=len(body),
                  line=repr(one_line(lines[0] if lines else "", 160))) + how


def note_line(key: str, fact: str, lang: str = "en") -> str:
    return phrase("note", lang, key=key, fact=one_line(fact, NOTE_LIMIT))


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
