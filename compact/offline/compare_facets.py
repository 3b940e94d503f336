"""The parts a comparison of programs can answer, and the question words that ask for each.

Each part reads one kind of fact from a program's note (``read_effects`` writes them): the
files it writes, what it sends a model, the errors it catches and raises. A question asks
for a part when one of its words is one of the part's words (matched by stem, so
"persistent", "stores", "fails" all count); a question that asks for none gets every part
the notes have something for. When a note comes from part of the text only, the line says
so instead of claiming the program does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .phrases import after_label, phrase, split_parts
from .question_words import Word, stem, stems_match


@dataclass(frozen=True)
class Facet:
    label: str                  # the phrase key of the note part it reads
    words: tuple[str, ...]      # question words that ask for it
    # its heading and what a program without such a part does: phrases facet_<label>(_none)


FACETS = (
    Facet("writes", ("store", "storage", "save", "persist", "disk", "file", "write", "keep",
                         "memory", "remember", "database", "data", "archive", "record", "folder",
                         "directory", "path", "transcript")),
    Facet("model_request", ("context", "prompt", "message", "window", "history", "token", "system",
                        "model", "send", "conversation")),
    Facet("errors", ("error", "exception", "fail", "failure", "retry", "crash", "fault",
                         "wrong", "broken", "recover", "raise", "catch")),
)
_STEMS = {facet.label: [stem(w) for w in facet.words] for facet in FACETS}


def asks_for(facet: Facet, words: list[Word]) -> bool:
    return any(stems_match(word.stem, s) for word in words for s in _STEMS[facet.label])


def _part(fact: str, key: str) -> str:
    """What follows ``key``'s label in the note part that starts with it (either language)."""
    return next((rest for p in split_parts(fact) if (rest := after_label(p, key)) is not None), "")


def facets_for(words: list[Word], notes: dict[str, str]) -> list[Facet]:
    """The parts the question asks for, in the order it first asks; else every part some
    note has."""
    asked = sorted((f for f in FACETS if asks_for(f, words)),
                   key=lambda f: min(i for i, w in enumerate(words)
                                     if any(stems_match(w.stem, s) for s in _STEMS[f.label])))
    return asked or [f for f in FACETS if any(_part(n, f.label) for n in notes.values())]


def _partial(note: str) -> bool:
    return any(mark in note for mark in ("at least", "the middle not seen", "only the preview",
                                         "至少", "中间部分未看到", "只看到了预览"))


def facet_line(facet: Facet, note: str, readme: str, lang: str) -> str:
    """What one program's note (and README) says for ``facet``."""
    part = _part(note, facet.label)
    if part:
        return part
    said = []
    if facet.label == "writes":
        paths = _part(note, "paths_named")
        named = [n.strip() for n in _part(readme, "code_names").split(", ")
                 if "/" in n or "." in n.strip(" .")]
        if paths:
            said.append(phrase("paths_it_names", lang, paths=paths))
        if named:
            said.append(phrase("readme_names", lang, names=", ".join(named)))
    sep = phrase("sep", lang)
    if _partial(note):
        return sep.join([phrase("no_write_seen" if facet.label == "writes" else "none_seen", lang),
                         *said])
    if not note:
        return phrase("nothing_noted", lang)
    return sep.join([phrase(f"facet_{facet.label}_none", lang), *said])
