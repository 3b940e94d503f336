"""Skill: the structure of a data file (JSON of any shape), from the whole file or a preview."""

from __future__ import annotations

from .knowledge import Step, facts, fetch, offline_label
from .phrases import phrase, split_parts
from .request_text import language, paths
from .view import View


def json_structure(view: View) -> Step:
    lang = language(view.request)
    path = paths(view.request, ("json",))[0]
    step = fetch(view, [path], lang)
    if step:
        return step
    parts = [p.strip() for p in split_parts(facts(view, path) or "") if p.strip()]
    head = phrase("structure_of", lang, path=path)
    return Step(offline_label(lang) + head + "\n" + "\n".join(f"- {p}" for p in parts))
