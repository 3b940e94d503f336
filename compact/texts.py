"""Every text the package shows a learner, in English and Chinese; one language per notebook.

``language("zh")`` (or the environment's ``COMPACT_LANG`` / locale) picks it once;
``say(key, **fields)`` gives the text in it. The texts are the catalogs in ``locale/`` (one per
language, the same keys). Imports nothing.
"""

from __future__ import annotations

import json
import locale
import os
from pathlib import Path

LANGUAGES = ("en", "zh")
CATALOGS = {lang: json.loads((Path(__file__).parent / "locale" / f"{lang}.json").read_text(encoding="utf-8"))
            for lang in LANGUAGES}
_TABLE = {key: {lang: CATALOGS[lang][key] for lang in LANGUAGES} for key in CATALOGS["en"]}
_chosen: list[str] = []


def _from_environment() -> str:
    wanted = os.environ.get("COMPACT_LANG") or (locale.getlocale()[0] or "")
    return "zh" if wanted.lower().startswith("zh") else "en"


def language(code: str | None = None) -> str:
    """Choose the language (``"en"`` or ``"zh"``) for everything shown from now on, programs this
    process starts included (``COMPACT_LANG``); without an argument, say which one is in use."""
    if code is not None:
        if code not in LANGUAGES:
            raise ValueError(f"language {code!r} is not available; choose one of {LANGUAGES}")
        _chosen[:] = [code]
        os.environ["COMPACT_LANG"] = code
    return _chosen[0] if _chosen else _from_environment()


def say(key: str, **fields: object) -> str:
    """The text for ``key`` in the chosen language, its fields filled in."""
    return _TABLE[key][language()].format(**fields)


def translated(text: str, prefix: str = "notebook.", /, **fields: object) -> str:
    """``text``, English and its own key after ``prefix`` (a notebook's line, a strategy's
    description, a probe's name), in the chosen language, its fields filled in; any other text as
    it is (its fields filled in, if any)."""
    if prefix + text in _TABLE:
        return say(prefix + text, **fields)
    return text.format(**fields) if fields else text


def known(key: str) -> bool:
    """Whether the catalogs hold ``key``."""
    return key in _TABLE


def texts() -> dict[str, dict[str, str]]:
    """The whole table, ``{key: {language: text}}`` (for tests and translators)."""
    return dict(_TABLE)
