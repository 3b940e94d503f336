"""Every phrase the offline model writes, in English and Chinese, keyed by name (``offline.<name>``
in the catalogs of ``compact/locale/``).

The model answers in the language of the request it is sent; readers of its own earlier text use
``forms(name)``, every language's form, so a note written in either language is read back.
"""

from __future__ import annotations

import re

from ..texts import CATALOGS as _BY_LANGUAGE
from ..texts import LANGUAGES

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")

# The phrases are the catalogs' ``offline.<name>`` texts, as compact.texts read them (it imports
# nothing of the package); the language is the request's, not the one a notebook chose.
CATALOGS = [_BY_LANGUAGE[lang] for lang in LANGUAGES]


def language(request: str) -> str:
    """``zh`` when the request is written in Chinese (any CJK character), else ``en``."""
    return "zh" if _CJK.search(request) else "en"


def phrase(key: str, lang: str, /, **values: object) -> str:
    """The phrase ``key`` in ``lang`` (English for a language it has no form in)."""
    return CATALOGS[LANGUAGES.index(lang) if lang in LANGUAGES else 0][f"offline.{key}"].format(**values)


def offline_label(lang: str) -> str:
    """How the model labels an answer it writes: as the offline model, in ``lang``."""
    return phrase("prefix", lang)


def forms(name: str) -> tuple[str, ...]:
    """Every language's form of a phrase without values (a label), for readers."""
    return tuple(dict.fromkeys(catalog[f"offline.{name}"] for catalog in CATALOGS))


def labelled(key: str, lang: str, text: str) -> str:
    """``label text``: a note part others read back by its label (no space after a full-width colon)."""
    label = phrase(key, lang)
    return f"{label}{text}" if label.endswith("：") else f"{label} {text}"


def after_label(part: str, key: str) -> str | None:
    """What follows ``key``'s label (either language) at the start of ``part``, else None."""
    found = next((f for f in forms(key) if part.startswith(f)), None)
    return part[len(found):].strip() if found is not None else None


def listed(items: list[str], limit: int) -> str:
    """The first ``limit`` items, joined; ", …" when there are more."""
    return ", ".join(items[:limit]) + (", …" if len(items) > limit else "")


def split_parts(fact: str) -> list[str]:
    """A note's parts, split at either language's separator."""
    return [p for p in re.split(r"; |；", fact) if p]
