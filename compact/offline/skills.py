"""The offline model's skills: each recognises a kind of request and asks for tools or answers.
``run_command`` runs only a command the user's own request names in backticks (SECURITY.md)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .compare import compare
from .knowledge import (
    Step,
    code_paths,
    describe_output,
    facts,
    fetch,
    folders,
    knows,
    listing,
    new_notes,
    next_step,
    note_line,
    one_line,
    paths,
    read_markdown,
    reads,
    title_from_note,
    title_token,
)
from .phrases import language, offline_label, phrase, split_parts
from .view import View

# One pattern both picks the skill and reads the request, so a request it picks is one it can read.
WRITE = re.compile(r"(?:write|写入)\s*(?:a file\s+)?(?:called\s+|named\s+)?`?([\w./-]+)`?.*?"
                   r"(?:containing|saying|with|内容为|内容是)\s*['\"“「](.+?)['\"”」]", re.I | re.S)


def write_file(view: View) -> Step:
    """"Write P containing 'T'" or 「写入 P，内容为 'T'」, and compact afterwards if asked: once only."""
    match = WRITE.search(view.request)
    path, text = match.group(1).removeprefix("./"), match.group(2)
    written = bool(view.note(f"write_file {path}")) or any(
        c.name == "write_file" and c.input.get("path") == path for c in view.calls) or any(
        f"write_file {path}" in ref for ref in view.reference)
    wants_compact = bool(re.search(r"\bcompact|压缩", view.request.replace(path, ""), re.I))
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
    missing = [p for p in wanted if not knows(view, p, current=True)]
    if missing:
        return Step(phrase("reading", view.lang, n=len(missing)), reads(missing))
    return Step(offline_label(view.lang) + "\n".join(f"- {p}: {facts(view, p, True)}"
                                                      for p in wanted))


def plain(view: View) -> Step:
    return Step(offline_label(view.lang) + phrase("plain", view.lang,
                                                  request=one_line(view.request, 200)))


_CHAPTER = re.compile(r"^([A-Za-z]*[-_]?)(\d{1,3})(?:[-_.].*)?$", re.ASCII)
COMPARE = re.compile(r"compar|differ|versus|\bvs\.?\b|contrast|比较|比對|对比|對比|区别|區別|异同|不同",
                     re.I)
TITLES = re.compile(r"title|heading|\bh1\b|标题|標題|题目|命名", re.I)
STRUCTURE = re.compile(r"structur|field|schema|shape|format|record|key|analy[sz]|结构|結構|字段|"
                       r"欄位|分析|格式|记录|記錄", re.I)


def chapter_number(name: str) -> tuple[str, int] | None:
    """(prefix, number) of a chapter folder name: ``s08_context_compact`` → ("s", 8)."""
    match = _CHAPTER.match(name)
    return (match.group(1), int(match.group(2))) if match else None


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
    return prefix, set(range(min(numbers), max(numbers) + 1))


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
    return bool(COMPARE.search(request)) and len(code_paths(request)) >= 2


def wants_one_title(request: str) -> bool:
    """"What is the title of README.md?": a title asked of exactly one named Markdown file (not
    the README of a range of chapters: ``titles`` answers those)."""
    named = paths(request, ("md",))
    return len(named) == 1 and len(paths(request)) == 1 and not folders(request) \
        and bool(TITLES.search(request))


def file_title(view: View) -> Step:
    """The H1 title of the one file the request names (read it first if it is unknown)."""
    path = paths(view.request, ("md",))[0]
    if step := fetch(view, [path], view.lang):
        return step
    raw, noted, lang = view.latest("read_file", "path", path), view.note(path), view.lang
    title = read_markdown(raw).title if raw is not None else title_from_note(noted[-1]) if noted else None
    return Step(offline_label(lang) + (phrase("title_of", lang, path=path, title=title_token(title))
                                       if title else phrase("no_title", lang, path=path,
                                                            facts=facts(view, path))))


def json_structure(view: View) -> Step:
    lang = language(view.request)
    path = paths(view.request, ("json",))[0]
    if step := fetch(view, [path], lang):
        return step
    parts = [p.strip() for p in split_parts(facts(view, path) or "") if p.strip()]
    head = phrase("structure_of", lang, path=path)
    return Step(offline_label(lang) + head + "\n" + "\n".join(f"- {p}" for p in parts))


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_SMALL_WORDS = {"a", "an", "the", "of", "and", "or", "to", "in", "on", "for", "with", "vs",
                "at", "by", "from", "into", "as"}
_CJK_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff00-\uffef，。、！？；：]")
NAME_WORDS = 4          # a name has at most this many words...
NAME_CJK_CHARS = 5      # ...or a column of CJK text this long (the median, punctuation not counted)

# kind → template label and words in English, then in Chinese
_KINDS = {"question": ("<question>", "a question", "<问题>", "问句"),
          "name": ("<Name>", "a short name", "<名称>", "简短名称"),
          "phrase": ("<phrase>", "a phrase", "<短语>", "短语")}
_SCRIPTS = {"Chinese": ("Chinese", "中文"), "English": ("English", "英文")}


def _cjk_length(text: str) -> int | None:
    """Characters of a text written in CJK (punctuation and spaces not counted), else None."""
    return len(_CJK_PUNCTUATION.sub("", text).replace(" ", "")) if _CJK.search(text) else None


def script(texts: tuple[str, ...] | list[str]) -> str | None:
    """Chinese or English when every text is written in it, else None."""
    if all(_CJK.search(t) for t in texts):
        return "Chinese"
    if all(_LATIN.search(t) and not _CJK.search(t) for t in texts):
        return "English"
    return None


def column_kind(texts: tuple[str, ...] | list[str]) -> tuple[str, bool]:
    """The kind of a column (question, name or phrase), and whether every text is of that kind."""
    lengths = sorted(n for n in map(_cjk_length, texts) if n is not None)
    # CJK: the column's median length decides, so one long name is still one of the names
    cjk = "name" if (lengths[len(lengths) // 2] if lengths else 0) <= NAME_CJK_CHARS else "phrase"
    kinds = []
    for text in (t.strip() for t in texts):
        words = text.split()
        significant = [w for w in words if w.lower() not in _SMALL_WORDS] or words
        capitalised = all(w[:1].isupper() or w[:1].isdigit() for w in significant)
        kinds.append("question" if text.endswith(("?", "？")) else cjk if _CJK.search(text)
                     else "name" if len(words) <= NAME_WORDS and capitalised else "phrase")
    kind, count = Counter(kinds).most_common(1)[0]
    return kind, count == len(texts)


def _words(kind: str, texts: tuple[str, ...] | list[str], every: bool, lang: str) -> str:
    en, zh = _KINDS[kind][1], _KINDS[kind][3]
    in_script = script(texts)
    if kind == "name" and in_script == "English":
        en, zh = "a short name in title case", "首字母大写的简短名称"
    if kind == "phrase" and all(_LATIN.match(t.strip()) and t.strip()[0].islower() for t in texts):
        en, zh = "a lowercase phrase", "小写开头的短语"
    if not every:
        en, zh = f"mostly {en}", f"大多是{zh}"
    if in_script:
        en, zh = f"{en} (in {in_script})", f"{zh}（{_SCRIPTS[in_script][1]}）"
    return en if lang == "en" else zh


def free_labels(columns: list[tuple[str, ...]], lang: str) -> list[tuple[str, str]]:
    """(template label, words) for each free column, in order."""
    kinds = [column_kind(column) for column in columns]
    labels, seen = [], Counter()
    for column, (kind, every) in zip(columns, kinds, strict=True):
        label, own, seen[kind] = _KINDS[kind][0 if lang == "en" else 2], script(column), seen[kind] + 1
        scripts = [script(c) for c, (k, _) in zip(columns, kinds, strict=True) if k == kind]
        if len(scripts) > 1 and own and scripts.count(own) == 1:     # named by its script
            word = _SCRIPTS[own][lang != "en"]
            label = f"<{word} {label[1:-1].lower()}>" if lang == "en" else f"<{word}{label[1:-1]}>"
        elif len(scripts) > 1:                                        # else numbered
            label = f"{label[:-1]} {seen[kind]}>"
        labels.append((label, _words(kind, column, every, lang)))
    return labels


_SEPARATOR = re.compile(r"(\s*(?:——|—|–|--|:|：|\||｜|·|•)\s*| - | / )")
_CODE = re.compile(r"^(?:([A-Za-z]+)([-_ ]?)|(第)\s*)(\d+)(\s*[课章节讲篇回])?$")
_SEPARATOR_NAMES = {
    ":": ("a colon", "冒号"), "：": ("a full-width colon", "全角冒号"),
    "—": ("an em dash", "破折号"), "——": ("a double em dash", "双破折号"),
    "–": ("an en dash", "短破折号"), "--": ("a double hyphen", "双连字符"),
    "-": ("a spaced hyphen", "带空格的连字符"), "|": ("a bar", "竖线"),
    "｜": ("a full-width bar", "全角竖线"),
    "·": ("a middle dot", "间隔号"), "•": ("a bullet", "圆点"), "/": ("a slash", "斜线"),
}


@dataclass
class Pattern:
    template: str               # "sNN: <Name> — <phrase>"
    words: str                  # the same in words
    members: list[int]          # which titles follow it


def split(title: str) -> tuple[list[str], list[str]]:
    """The title's texts, and its separators as written: ``": "``, ``" — "``, ``"——"``."""
    pieces = _SEPARATOR.split(title.strip())
    return [p.strip() for p in pieces[0::2]], [
        (" " if p[:1].isspace() else "") + p.strip() + (" " if p[-1:].isspace() else "")
        for p in pieces[1::2]]


def _code_template(text: str) -> str | None:
    """``s01`` → ``sNN``, ``Chapter 3`` → ``Chapter N``, ``第2课`` → ``第N课``; else None."""
    match = _CODE.match(text)
    return re.sub(r"\d", "N", re.sub(r"\s", "", text) if match.group(3) else text) if match else None


def _fixed_column(column: tuple[str, ...], wanted: list[int | None], lang: str
                  ) -> tuple[str, str] | None:
    """(template, words) of a column that is a chapter code or the same word everywhere."""
    codes = [_code_template(text) for text in column]
    if all(codes) and len(set(codes)) == 1:
        found = [int(re.search(r"\d+", t).group()) for t in column]
        matches = all(w is None or w == f for w, f in zip(wanted, found, strict=True))
        return codes[0], (("the chapter code" + (" (its number is the folder's)" if matches else ""))
                          if lang == "en" else ("章节编号" + ("（与文件夹编号一致）" if matches else "")))
    if len(set(column)) == 1:
        return column[0], (f"the word “{column[0]}”" if lang == "en" else f"固定的“{column[0]}”")
    return None


def _shape_pattern(titles: list[str], members: list[int], numbers: list[int | None],
                   lang: str) -> Pattern:
    split_titles = [split(titles[i]) for i in members]
    separators = split_titles[0][1]
    columns = list(zip(*[texts for texts, _ in split_titles], strict=True))
    wanted = [numbers[i] for i in members]
    fixed = [_fixed_column(column, wanted, lang) for column in columns]
    free = free_labels([c for c, f in zip(columns, fixed, strict=True) if f is None], lang)
    template, words = [], []
    for index, known in enumerate(fixed):
        label, said = known or free.pop(0)
        template.append(label)
        words.append(said)
        if index < len(separators):
            bare = separators[index].strip()
            template.append(separators[index])
            words.append(_SEPARATOR_NAMES.get(bare, (f"“{bare}”",) * 2)[lang != "en"])
    spelled = "、".join(words) if lang != "en" else \
        ", ".join(words[:-1]) + (", then " if len(words) > 1 else "") + words[-1]
    return Pattern("".join(template).strip(), spelled, members)


def find_pattern(titles: list[str], numbers: list[int | None], lang: str = "en"
                 ) -> tuple[Pattern | None, list[int]]:
    """The pattern most titles follow, and the indexes of the titles that do not."""
    if not titles:
        return None, []
    shapes = [tuple(s.strip() for s in split(title)[1]) for title in titles]
    shape, count = Counter(shapes).most_common(1)[0]
    members = [i for i, s in enumerate(shapes) if s == shape]
    others = [i for i in range(len(titles)) if i not in members]
    if (count < 2 and len(titles) > 1) or not shape:
        return None, list(range(len(titles)))     # nothing shared, or nothing but free text
    return _shape_pattern(titles, members, numbers, lang), others


def _folder_number(path: str, prefix: str) -> int | None:
    parsed = chapter_number(path.split("/")[0])
    return parsed[1] if parsed and (not prefix or parsed[0] == prefix) else None


def titles(view: View) -> Step:
    lang = language(view.request)
    chapters = chapter_range(view.request)
    prefix, wanted = chapters if chapters else ("", set())
    readme = readme_name(view.request)
    pattern = f"{prefix}*/{readme}" if prefix else f"*/{readme}"
    files = listing(view, pattern)
    if files is None:     # tool_use inputs are never compacted: earlier reads name the files
        read = sorted({c.input.get("path", "") for c in view.calls if c.name == "read_file"
                       and re.fullmatch(rf"{re.escape(prefix)}\d+[^/]*/{re.escape(readme)}",
                                        c.input.get("path", ""))})
        covered = {_folder_number(p, prefix) for p in read}
        files = read if wanted and wanted <= covered else None
    if files is None:
        return Step(next_step(lang, "next_list_readmes"), [("glob", {"pattern": pattern})])
    targets = sorted((p for p in files if p.endswith("/" + readme) and (
                          not chapters or _folder_number(p, prefix) in wanted)),
                     key=lambda p: (_folder_number(p, prefix) or 0, p))
    if not targets:
        return Step(offline_label(lang) + phrase("no_readme", lang, readme=readme, pattern=pattern,
                                                 files=", ".join(files) or phrase("nothing", lang)))
    if step := fetch(view, targets, lang):
        return step
    return titles_answer(view, targets, prefix, lang)


def titles_answer(view: View, targets: list[str], prefix: str, lang: str) -> Step:
    heads = {p: title_from_note(facts(view, p) or "") for p in targets}
    with_title = [p for p in targets if heads[p]]
    lines = [phrase("title_line", lang, i=i, folder=p.split("/")[0], title=heads[p])
             for i, p in enumerate(with_title, 1)]
    missing = [p for p in targets if not heads[p]]
    titles_seen = [heads[p] for p in with_title]
    numbers = [_folder_number(p, prefix) for p in with_title]
    found, others = find_pattern(titles_seen, numbers, lang)
    if found is None:
        rule = phrase("no_pattern", lang)
    else:
        whole = not others and not missing
        rule = (phrase("every_title", lang, template=found.template, words=found.words) if whole
                else phrase("some_titles", lang, n=len(found.members), of=len(targets),
                            template=found.template, words=found.words))
        for i in others:
            rule += phrase("title_differs", lang, folder=with_title[i].split("/")[0],
                           title=titles_seen[i])
    for path in missing:
        rule += phrase("title_missing", lang, path=path, facts=facts(view, path))
    head = phrase("titles_head", lang, n=len(with_title))
    return Step(offline_label(lang) + head + "\n" + "\n".join(lines) + "\n\n"
                + phrase("naming_pattern", lang, rule=rule))


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
