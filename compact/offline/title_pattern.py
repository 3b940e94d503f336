"""The naming pattern shared by a set of titles, found from the titles themselves.

Each title is split at its separators (colon, dashes, bars, middle dots, a spaced slash);
titles with the same separators in the same order share a shape. Within a shape, each part
is named by what it holds across the titles: the chapter code (its number is the folder's),
the same word in every title, or free text, named by what that text is (``title_columns``:
a name, a phrase, a question, a number, a date).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .title_columns import free_labels

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


def split(title: str) -> tuple[list[str], tuple[str, ...]]:
    pieces = _SEPARATOR.split(title.strip())
    texts = [p.strip() for p in pieces[0::2]]
    separators = tuple(p.strip() for p in pieces[1::2])
    return texts, separators


def _spaced(title: str) -> list[str]:
    """The separators as the title writes them: ``": "``, ``" — "``, ``"——"``."""
    pieces = _SEPARATOR.split(title.strip())[1::2]
    return [(" " if p[:1].isspace() else "") + p.strip() + (" " if p[-1:].isspace() else "")
            for p in pieces]


def _code_template(text: str) -> str | None:
    """``s01`` → ``sNN``, ``Chapter 3`` → ``Chapter N``, ``第2课`` → ``第N课``; else None."""
    match = _CODE.match(text)
    if not match:
        return None
    digits = "N" * len(match.group(4))
    if match.group(3):
        return f"第{digits}{(match.group(5) or '').strip()}"
    return f"{match.group(1)}{match.group(2)}{digits}"


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
    spelled_separators = _spaced(titles[members[0]])
    columns = list(zip(*[texts for texts, _ in split_titles], strict=True))
    wanted = [numbers[i] for i in members]
    fixed = [_fixed_column(column, wanted, lang) for column in columns]
    free = free_labels([c for c, f in zip(columns, fixed, strict=True) if f is None], lang)
    template, words = [], []
    for index, known in enumerate(fixed):
        label, said = known if known else free.pop(0)
        template.append(label)
        words.append(said)
        if index < len(separators):
            template.append(spelled_separators[index])
            name = _SEPARATOR_NAMES.get(separators[index], (f"“{separators[index]}”",) * 2)
            words.append(name[0] if lang == "en" else name[1])
    text = "".join(template).strip()
    if lang == "en":
        spelled = ", ".join(words[:-1]) + (", then " if len(words) > 1 else "") + words[-1]
    else:
        spelled = "、".join(words)
    return Pattern(text, spelled, members)


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
