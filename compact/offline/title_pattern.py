"""The naming pattern shared by a set of titles, found from the titles themselves.

Each title is split at its separators (colon, dashes, bars, middle dots, a spaced slash);
titles with the same separators in the same order share a shape. Within a shape, each part
is named by what it holds across the titles: the chapter code (its number is the folder's),
the same word in every title, or free text (a topic, then a tagline).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_SEPARATOR = re.compile(r"(\s*(?:—|–|--|:|：|\||｜|·|•)\s*| - | / )")
_CODE = re.compile(r"^(?:([A-Za-z]+)([-_ ]?)|(第)\s*)(\d+)(\s*[课章节讲篇回])?$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
_SEPARATOR_NAMES = {
    ":": ("a colon", "冒号"), "：": ("a full-width colon", "全角冒号"),
    "—": ("an em dash", "破折号"), "–": ("an en dash", "短破折号"), "--": ("a double hyphen", "双连字符"),
    "-": ("a spaced hyphen", "带空格的连字符"), "|": ("a bar", "竖线"),
    "｜": ("a full-width bar", "全角竖线"),
    "·": ("a middle dot", "间隔号"), "•": ("a bullet", "圆点"), "/": ("a slash", "斜线"),
}
_FREE = (("<Topic>", "a short topic name", "简短的主题名"),
         ("<tagline>", "a one-line tagline", "一句话的副标题"))


@dataclass
class Pattern:
    template: str               # "sNN: <Topic> — <tagline>"
    words: str                  # the same in words
    members: list[int]          # which titles follow it


def split(title: str) -> tuple[list[str], tuple[str, ...]]:
    pieces = _SEPARATOR.split(title.strip())
    texts = [p.strip() for p in pieces[0::2]]
    separators = tuple(p.strip() for p in pieces[1::2])
    return texts, separators


def _code_template(text: str) -> str | None:
    """``s01`` → ``sNN``, ``Chapter 3`` → ``Chapter N``, ``第2课`` → ``第N课``; else None."""
    match = _CODE.match(text)
    if not match:
        return None
    digits = "N" * len(match.group(4))
    if match.group(3):
        return f"第{digits}{(match.group(5) or '').strip()}"
    return f"{match.group(1)}{match.group(2)}{digits}"


def _script(texts: list[str], lang: str) -> str:
    cjk = [bool(_CJK.search(t)) for t in texts]
    latin = [bool(_LATIN.search(t)) and not _CJK.search(t) for t in texts]
    if all(cjk):
        return " (in Chinese)" if lang == "en" else "（中文）"
    if all(latin):
        return " (in English)" if lang == "en" else "（英文）"
    return ""


def _shape_pattern(titles: list[str], members: list[int], numbers: list[int | None],
                   lang: str) -> Pattern:
    split_titles = [split(titles[i]) for i in members]
    separators = split_titles[0][1]
    columns = list(zip(*[texts for texts, _ in split_titles], strict=True))
    template, words, free = [], [], 0
    for index, column in enumerate(columns):
        codes = [_code_template(text) for text in column]
        if all(codes) and len(set(codes)) == 1:
            wanted = [numbers[i] for i in members]
            found = [int(re.search(r"\d+", t).group()) for t in column]
            matches = all(w is None or w == f for w, f in zip(wanted, found, strict=True))
            template.append(codes[0])
            words.append(("the chapter code" + (" (its number is the folder's)" if matches else ""))
                         if lang == "en" else ("章节编号" + ("（与文件夹编号一致）" if matches else "")))
        elif len(set(column)) == 1:
            template.append(column[0])
            words.append(f"the word “{column[0]}”" if lang == "en" else f"固定的“{column[0]}”")
        else:
            label, en, zh = _FREE[free] if free < len(_FREE) else (
                f"<part {index + 1}>", f"part {index + 1}", f"第 {index + 1} 部分")
            free += 1
            template.append(label)
            words.append((en if lang == "en" else zh) + _script(list(column), lang))
        if index < len(separators):
            separator = separators[index]
            template.append(_joined(separator))
            name = _SEPARATOR_NAMES.get(separator, (f"“{separator}”", f"“{separator}”"))
            words.append(name[0] if lang == "en" else name[1])
    text = "".join(template).strip()
    if lang == "en":
        spelled = ", ".join(words[:-1]) + (", then " if len(words) > 1 else "") + words[-1]
    else:
        spelled = "、".join(words)
    return Pattern(text, spelled, members)


def _joined(separator: str) -> str:
    if separator == "：":
        return separator
    if separator == ":":
        return ": "
    return f" {separator} "


def find_pattern(titles: list[str], numbers: list[int | None], lang: str = "en"
                 ) -> tuple[Pattern | None, list[int]]:
    """The pattern most titles follow, and the indexes of the titles that do not."""
    if not titles:
        return None, []
    shapes = Counter(split(t)[1] for t in titles)
    shape, count = shapes.most_common(1)[0]
    members = [i for i, t in enumerate(titles) if split(t)[1] == shape]
    others = [i for i in range(len(titles)) if i not in members]
    if (count < 2 and len(titles) > 1) or not shape:
        return None, list(range(len(titles)))     # nothing shared, or nothing but free text
    return _shape_pattern(titles, members, numbers, lang), others
