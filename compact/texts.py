"""Every text the package shows a learner, in English and Chinese; one language per notebook.

``language("zh")`` (or the environment's ``COMPACT_LANG`` / locale) picks it once;
``say(key, **fields)`` gives the text in it. The tables of each part (the checker, the plots,
the lab, the REPL, the stage events) are merged here, so a test can assert that every key has
both languages. Imports nothing.
"""

from __future__ import annotations

import locale
import os

LANGUAGES = ("en", "zh")
_TABLES: dict[str, dict[str, str]] = {}
_chosen: list[str] = []


def register(table: dict[str, dict[str, str]]) -> None:
    """Add a part's texts: ``{key: {"en": ..., "zh": ...}}`` (str.format fields allowed)."""
    clash = set(table) & set(_TABLES)
    if clash:
        raise ValueError(f"text keys registered twice: {sorted(clash)}")
    _TABLES.update(table)


def _from_environment() -> str:
    wanted = os.environ.get("COMPACT_LANG") or (locale.getlocale()[0] or "")
    return "zh" if wanted.lower().startswith("zh") else "en"


def language(code: str | None = None) -> str:
    """Choose the language (``"en"`` or ``"zh"``) for everything shown from now on; without an
    argument, say which one is in use."""
    if code is not None:
        if code not in LANGUAGES:
            raise ValueError(f"language {code!r} is not available; choose one of {LANGUAGES}")
        _chosen[:] = [code]
    return _chosen[0] if _chosen else _from_environment()


def say(key: str, **fields: object) -> str:
    """The text for ``key`` in the chosen language, its fields filled in."""
    entry = _TABLES[key]
    return entry[language()].format(**fields)


def texts() -> dict[str, dict[str, str]]:
    """The whole table (for tests and translators)."""
    return dict(_TABLES)
