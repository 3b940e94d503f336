"""What the free text of a title column is, read from the texts across the titles.

Each text is one of: a number, a date, a question (it ends with ``?`` or ``？``), a name (a
few words, each capitalised; or a few CJK characters), or a phrase (anything longer, or a few
words in lower case). CJK text has no capitals: a column of it holds names when its texts
are short (the median), phrases when long. A column is what all its texts are; when they
differ, what most are, and the words say "mostly". Its script (Chinese, Japanese, English)
is said when all its texts share one, and tells two columns of the same kind apart
(``<English name>`` and ``<Chinese name>``); else they are numbered.
"""

from __future__ import annotations

import re
from collections import Counter

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_LATIN = re.compile(r"[A-Za-z]")
_NUMBER = re.compile(r"^[#№]?\d+(?:[.,]\d+)*$")
_DATE = re.compile(r"^\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}日?)?$")
_SMALL_WORDS = {"a", "an", "the", "of", "and", "or", "to", "in", "on", "for", "with", "vs",
                "at", "by", "from", "into", "as"}
_CJK_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff00-\uffef，。、！？；：]")
NAME_WORDS = 4          # a name has at most this many words...
NAME_CJK_CHARS = 5      # ...or a column of CJK text this long (the median, punctuation not counted)

# kind → (template label, words) in English and in Chinese
_KINDS = {
    "number": (("<number>", "a number"), ("<数字>", "数字")),
    "date": (("<date>", "a date"), ("<日期>", "日期")),
    "question": (("<question>", "a question"), ("<问题>", "问句")),
    "name": (("<Name>", "a short name"), ("<名称>", "简短名称")),
    "phrase": (("<phrase>", "a phrase"), ("<短语>", "短语")),
}
_SCRIPTS = {"Chinese": ("Chinese", "中文"), "Japanese": ("Japanese", "日文"),
            "English": ("English", "英文")}


def _cjk_length(text: str) -> int | None:
    """Characters of a text written in CJK (punctuation and spaces not counted), else None."""
    if not (_CJK.search(text) or _KANA.search(text)):
        return None
    return len(_CJK_PUNCTUATION.sub("", text).replace(" ", ""))


def text_kind(text: str, cjk_name_chars: int = NAME_CJK_CHARS) -> str:
    """number, date, question, name or phrase."""
    text = text.strip()
    if _NUMBER.match(text):
        return "number"
    if _DATE.match(text):
        return "date"
    if text.endswith(("?", "？")):
        return "question"
    length = _cjk_length(text)
    if length is not None:
        return "name" if length <= cjk_name_chars else "phrase"
    words = text.split()
    significant = [w for w in words if w.lower() not in _SMALL_WORDS] or words
    capitalised = all(w[:1].isupper() or w[:1].isdigit() for w in significant)
    return "name" if len(words) <= NAME_WORDS and capitalised else "phrase"


def script(texts: tuple[str, ...] | list[str]) -> str | None:
    """Chinese, Japanese or English when every text is written in it, else None."""
    if all(_KANA.search(t) for t in texts):
        return "Japanese"
    if all(_CJK.search(t) for t in texts):
        return "Chinese"
    if all(_LATIN.search(t) and not _CJK.search(t) and not _KANA.search(t) for t in texts):
        return "English"
    return None


def _lowercase(texts: tuple[str, ...] | list[str]) -> bool:
    return all(_LATIN.match(t.strip()) and t.strip()[0].islower() for t in texts)


def column_kind(texts: tuple[str, ...] | list[str]) -> tuple[str, bool]:
    """The kind of a column, and whether every text is of that kind."""
    lengths = sorted(n for n in map(_cjk_length, texts) if n is not None)
    # CJK: the column's median length decides, so one long name is still one of the names
    median = lengths[len(lengths) // 2] if lengths else 0
    limit = 10**6 if median <= NAME_CJK_CHARS else 0
    kinds = Counter(text_kind(t, limit) for t in texts)
    kind, count = kinds.most_common(1)[0]
    return kind, count == len(texts)


def _words(kind: str, texts: tuple[str, ...] | list[str], every: bool, lang: str) -> str:
    en, zh = _KINDS[kind][0][1], _KINDS[kind][1][1]
    in_script = script(texts)
    if kind == "name" and in_script == "English":
        en, zh = "a short name in title case", "首字母大写的简短名称"
    if kind == "phrase" and _lowercase(texts):
        en, zh = "a lowercase phrase", "小写开头的短语"
    if not every:
        en, zh = f"mostly {en}", f"大多是{zh}"
    if in_script:
        en, zh = f"{en} (in {in_script})", f"{zh}（{_SCRIPTS[in_script][1]}）"
    return en if lang == "en" else zh


def free_labels(columns: list[tuple[str, ...]], lang: str) -> list[tuple[str, str]]:
    """(template label, words) for each free column, in order."""
    kinds = [column_kind(column) for column in columns]
    same = Counter(kind for kind, _ in kinds)
    labels = []
    seen: Counter = Counter()
    for column, (kind, every) in zip(columns, kinds, strict=True):
        label = _KINDS[kind][0 if lang == "en" else 1][0]
        if same[kind] > 1:
            scripts = [script(c) for c, (k, _) in zip(columns, kinds, strict=True) if k == kind]
            own = script(column)
            seen[kind] += 1
            if own and scripts.count(own) == 1:
                word = _SCRIPTS[own][0 if lang == "en" else 1]
                inner = label[1:-1]
                label = (f"<{word} {inner.lower()}>" if lang == "en"
                         else f"<{word}{inner}>")
            else:
                label = f"{label[:-1]} {seen[kind]}>"
        labels.append((label, _words(kind, column, every, lang)))
    return labels
