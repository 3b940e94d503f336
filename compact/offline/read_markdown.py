"""Markdown read by its structure: the title, the sections, the code names it explains.

The title is the first level-1 heading in any of Markdown's spellings (``# Title``, a line
underlined with ``===``, an HTML ``<h1>``), outside front matter, code fences and HTML
comments; front matter's own ``title:`` is kept beside it.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field

from .phrases import labelled, phrase

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_HTML_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.I | re.S)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_NAME = re.compile(r"`([A-Za-z_][\w.]*(?:\(\))?|[\w./-]*[./][\w./-]+|[\w.-]+/)`")
_FRONT_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


@dataclass
class MarkdownFacts:
    title: str | None = None
    title_style: str = ""                 # "#", "===", "<h1>" or "front matter"
    front_matter: dict[str, str] = field(default_factory=dict)
    headings: list[tuple[int, str]] = field(default_factory=list)
    code_names: list[str] = field(default_factory=list)


def _strip_inline(text: str) -> str:
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return html.unescape(text).strip()


def _front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    if not lines or lines[0].strip() not in ("---", "+++"):
        return {}, 0
    fence = lines[0].strip()
    for end in range(1, min(len(lines), 200)):
        if lines[end].strip() == fence:
            meta = {}
            for line in lines[1:end]:
                match = _FRONT_KEY.match(line.strip())
                if match:
                    meta[match.group(1)] = match.group(2).strip().strip("'\"")
            return meta, end + 1
    return {}, 0


def _heading(line: str, previous: str) -> tuple[int, str] | None:
    """A ``#`` heading, or the previous line underlined with ``===`` / ``---``."""
    atx, setext = _ATX.match(line), _SETEXT.match(line)
    if atx and atx.group(2):
        return len(atx.group(1)), _strip_inline(atx.group(2))
    if setext and previous.strip() and not _ATX.match(previous):
        return 1 if setext.group(1)[0] == "=" else 2, _strip_inline(previous)
    return None


def read_markdown(text: str) -> MarkdownFacts:
    lines = text.lstrip("\ufeff").splitlines()
    facts = MarkdownFacts()
    facts.front_matter, start = _front_matter(lines)
    fence, in_comment, previous = None, False, ""
    for line in lines[start:]:
        if in_comment:
            in_comment, previous = "-->" not in line, ""
            continue
        if fence:
            fence = None if line.strip().startswith(fence) else fence
            continue
        opened = _FENCE.match(line)
        if opened:
            fence, previous = opened.group(1)[:3], ""
            continue
        if line.strip().startswith("<!--"):
            in_comment = "-->" not in line
            continue
        heading = _heading(line, previous)
        if heading:
            facts.headings.append(heading)
            previous = ""
            continue
        facts.headings += [(1, _strip_inline(match.group(1))) for match in _HTML_H1.finditer(line)]
        previous = line
        facts.code_names += _CODE_NAME.findall(line)
    h1 = next((h for level, h in facts.headings if level == 1 and h), None)
    if h1:
        facts.title, facts.title_style = h1, "#"
    elif facts.front_matter.get("title"):
        facts.title, facts.title_style = facts.front_matter["title"], "front matter"
    facts.code_names = list(dict.fromkeys(n.removesuffix("()") for n in facts.code_names
                                          if len(n.removesuffix("()")) > 3))
    return facts


def title_token(title: str) -> str:
    """The title as the model writes it in a note (JSON-quoted, so it can be read back)."""
    return json.dumps(title, ensure_ascii=False)


_TITLE_IN_NOTE = re.compile(r'(?:H1|一级标题) ("(?:[^"\\]|\\.)*")')


def title_from_note(note: str) -> str | None:
    match = _TITLE_IN_NOTE.search(note)
    return json.loads(match.group(1)) if match else None


def describe_markdown(text: str, cut: bool = False, lang: str = "en") -> str:
    facts = read_markdown(text)
    parts = []
    if facts.title and facts.title_style != "front matter":
        parts.append(phrase("h1", lang, title=title_token(facts.title)))
    else:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        parts.append(phrase("no_h1", lang) + (phrase("in_text_seen", lang) if cut else "")
                     + phrase("sep", lang) + phrase("starts", lang, first=repr(first[:80])))
    if facts.front_matter:
        shown = ", ".join(f"{k}: {v[:40]}" for k, v in list(facts.front_matter.items())[:5])
        parts.append(phrase("front_matter", lang) + phrase("partial_paren", lang, how=shown))
    sections = [h for level, h in facts.headings if level == 2]
    if sections:
        more = phrase("in_all", lang, n=len(sections)) if len(sections) > 10 else ""
        shown = [phrase("section", lang, name=s[:60], quoted=title_token(s[:60])) for s in sections[:10]]
        parts.append(labelled("sections", lang, phrase("section_sep", lang).join(shown) + more))
    if facts.code_names:
        names = facts.code_names[:16]
        parts.append(labelled("code_names", lang, ", ".join(names)
                              + (", …" if len(facts.code_names) > 16 else "")))
    return phrase("sep", lang).join(parts)
