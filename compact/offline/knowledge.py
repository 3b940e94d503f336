"""The paths a request names, what the model knows about a file, and how it fetches the rest.
``describe`` gives the one line of facts the model notes as ``Note [<path>]: <facts>``."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from .markers import CLIPPED, is_placeholder, read_persisted
from .phrases import forms, labelled, listed, phrase
from .read_code import describe_code
from .read_json import describe_json
from .view import Call, View, note_key

NOTE_LIMIT = 1_800
CODE_EXTENSIONS = ("py", "js", "ts", "go", "rs", "java", "rb", "c", "cpp", "h", "sh")


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_HTML_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.I | re.S)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_NAME = re.compile(r"`([A-Za-z_][\w.]*(?:\(\))?|[\w./-]*[./][\w./-]+|[\w.-]+/)`")
_FRONT_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


@dataclass
class MarkdownFacts:
    front_matter: dict[str, str] = field(default_factory=dict)
    headings: list[tuple[int, str]] = field(default_factory=list)
    code_names: list[str] = field(default_factory=list)

    @property
    def h1(self) -> str | None:
        return next((h for level, h in self.headings if level == 1 and h), None)

    @property
    def title(self) -> str | None:
        """The H1, else the front matter's title."""
        return self.h1 or self.front_matter.get("title") or None


def _strip_inline(text: str) -> str:
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return html.unescape(text).strip()


def _front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    """The front matter's keys, and the line after it."""
    fence = lines[0].strip() if lines and lines[0].strip() in ("---", "+++") else None
    end = next((i for i in range(1, min(len(lines), 200)) if lines[i].strip() == fence), 0)
    found = (_FRONT_KEY.match(line.strip()) for line in lines[1:end])
    return {m.group(1): m.group(2).strip().strip("'\"") for m in found if m}, end and end + 1


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
        atx, setext = _ATX.match(line), _SETEXT.match(line)    # ``#``, or underlined ``===``
        if atx and atx.group(2):
            facts.headings.append((len(atx.group(1)), _strip_inline(atx.group(2))))
            previous = ""
        elif setext and previous.strip() and not _ATX.match(previous):
            facts.headings.append((1 if setext.group(1)[0] == "=" else 2, _strip_inline(previous)))
            previous = ""
        else:
            facts.headings += [(1, _strip_inline(m.group(1))) for m in _HTML_H1.finditer(line)]
            facts.code_names += _CODE_NAME.findall(line)
            previous = line
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
    if facts.h1:
        parts.append(phrase("h1", lang, title=title_token(facts.h1)))
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
        parts.append(labelled("code_names", lang, listed(facts.code_names, 16)))
    return phrase("sep", lang).join(parts)


def _seen(text: str) -> tuple:
    """(the persisted block, the text seen, the clip marker) of a tool result."""
    persisted = read_persisted(text)
    body = persisted.preview if persisted else text
    return persisted, body, CLIPPED.search(body)   # the marker pipeline.summary.clip leaves


def _excerpt(body: str, clipped: re.Match | None, lang: str) -> str:
    if not clipped:
        return ""
    seen = len(body) - len(clipped.group(0))
    return phrase("excerpt", lang, seen=seen, total=seen + int(clipped.group(1)))


@lru_cache(maxsize=256)      # a text is at most a tool's 50,000 chars: ≤ ~13 MB held
def describe(path: str, text: str, lang: str = "en") -> str:
    """The facts the model keeps about one read of ``path`` (saying how much was seen), in ``lang``;
    remembered, as a long session shows the model the same results again and again."""
    if text.startswith("Error"):
        return phrase("error_fact", lang, text=one_line(text, 200))
    persisted, body, clipped = _seen(text)
    total = persisted.total_chars if persisted else None
    partial = phrase("preview_seen", lang, n=len(body), total=phrase("of_total", lang, n=total)
                     if total else "") if persisted else _excerpt(body, clipped, lang)
    how = phrase("partial_paren", lang, how=partial) if partial else ""
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if suffix in ("md", "markdown", "rst"):
        fact = describe_markdown(body, cut=bool(partial), lang=lang) + how
    elif suffix in CODE_EXTENSIONS:
        fact = describe_code(body, path, partial, lang)
    elif suffix == "json" or (not suffix and body.lstrip()[:1] in ("{", "[")):
        fact = describe_json(body[:clipped.start()] if clipped else body, total, lang=lang)
    else:
        lines = body.splitlines()
        first = repr(one_line(lines[0] if lines else "", 160))
        fact = (phrase("text_fact_seen", lang, line=first) + how if partial    # the part's size
                else phrase("text_fact", lang, n=len(body), line=first))   # is not the file's
    if persisted:
        size = phrase("size_chars", lang, n=total) if total else ""
        fact += phrase("sep", lang) + phrase("persisted_fact", lang, size=size, path=persisted.path)
    return fact


def note_line(key: str, fact: str, lang: str = "en") -> str:
    return phrase("note", lang, key=key, fact=one_line(fact, NOTE_LIMIT))


def describe_output(text: str, lang: str = "en") -> str:
    """A command's output in one line: size, first line, and the lines that matter."""
    persisted, body, clipped = _seen(text)      # clipped: the summariser saw head and tail only
    how = phrase("partial_paren", lang, how=_excerpt(body, clipped, lang)) if clipped else ""
    if clipped:
        body = body[:clipped.start()] + "\n" + body[clipped.end():]
    lines = [line for line in body.splitlines() if line.strip()]
    salient = [line for line in lines if re.search(r"FAIL|ERROR|TODO|WARN|port|def ", line)]
    fact = phrase("output_lines_seen" if persisted or clipped else "output_lines", lang, n=len(lines),
                  first=repr(one_line(lines[0] if lines else "", 120))) + how
    if salient:
        fact += phrase("notable", lang, lines=" / ".join(one_line(line, 120) for line in salient[:4]))
    if persisted:
        fact += phrase("output_persisted", lang, path=persisted.path)
    return fact


FILE_EXTENSIONS = ("md", "json", "jsonl", "txt", "toml", "yaml", "yml", "cfg", "ini", "log",
                   "csv", "html", "css", "rst", *CODE_EXTENSIONS)
_PATH = re.compile(r"(?<![A-Za-z0-9_./-])(?:\./)?((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]"
                   r"(?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?\.([A-Za-z0-9]+))(?![A-Za-z0-9_/-])",
                   re.ASCII)
_FOLDER = re.compile(r"(?<![A-Za-z0-9_./-])(?:\./)?([A-Za-z][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)/?"
                     r"(?![A-Za-z0-9_./-])", re.ASCII)
_HEADING_LEVELS = re.compile(r"^[Hh][1-6]$")


def paths(request: str, extensions: tuple[str, ...] = FILE_EXTENSIONS) -> list[str]:
    """File paths written in the request, in order, once each."""
    found = [m.group(1) for m in _PATH.finditer(request) if m.group(2).lower() in extensions]
    return list(dict.fromkeys(found))


def code_paths(request: str) -> list[str]:
    return paths(request, CODE_EXTENSIONS)


def folders(request: str) -> list[str]:
    """Folder-like names with a number (``s08_context_compact``), not file names."""
    names = (match.group(1) for match in _FOLDER.finditer(request))
    return list(dict.fromkeys(n for n in names if not _HEADING_LEVELS.match(n)))


@dataclass
class Step:
    text: str = ""
    calls: list[tuple[str, dict]] = field(default_factory=list)   # (role, planned input)


def facts(view: View, path: str, current: bool = False) -> str | None:
    """What the model knows about ``path``: its notes, else the visible result; ``current``: only
    notes and reads made for this request."""
    noted = view.fresh_note(path) if current else view.note(path)
    if noted:
        return noted[-1]
    raw = view.latest("read_file", "path", path, current)
    return describe(path, raw, view.lang) if raw is not None else None


def knows(view: View, path: str, current: bool = False) -> bool:
    """Whether ``facts`` would find anything, without describing a read."""
    noted = view.fresh_note(path) if current else view.note(path)
    return bool(noted) or view.latest("read_file", "path", path, current) is not None


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
        if key is None or view.fresh_note(key) or (fact := describe_call(call, view.lang)) is None:
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
