"""Skill: the structure of a data file (JSON of any shape), from the whole file or a preview."""

from __future__ import annotations

from .knowledge import PREFIX, Step, facts, fetch, say
from .request_text import language, paths
from .view import View


def json_structure(view: View) -> Step:
    lang = language(view.request)
    path = paths(view.request, ("json",))[0]
    step = fetch(view, [path], lang)
    if step:
        return step
    parts = [p.strip() for p in (facts(view, path) or "").split("; ") if p.strip()]
    head = say(lang, f"Structure of {path}:", f"{path} 的数据结构：")
    return Step(PREFIX + head + "\n" + "\n".join(f"- {p}" for p in parts))
