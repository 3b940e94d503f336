"""Which programs a comparison is about, and why each was chosen.

Programs the request names by path are taken as named. For a folder the request names, its
listing gives the code files: the only one is the program; of several, each is read and the
program is the one that can be run (an entry point), then the one named after the folder,
then the longest. No file name is preferred for itself.
"""

from __future__ import annotations

import posixpath
import re

from .knowledge import Step, facts, fetch, listing, next_step
from .phrases import forms, phrase
from .request_text import CODE_EXTENSIONS, code_paths, folders
from .view import View

MAX_CANDIDATES = 6          # code files read in one folder to choose its program
_CHAPTER_CODE = re.compile(r"^[A-Za-z]*[-_]?\d+[-_.]?")
_LINES = re.compile(r"(\d[\d,]*) (?:lines|行)")


def named_after(path: str, folder: str) -> bool:
    """``squeeze.py`` in ``lesson-8-squeeze``, ``context_compact.py`` in ``s08_context_compact``."""
    stem = posixpath.splitext(posixpath.basename(path))[0].replace("-", "_").lower()
    name = folder.rstrip("/").rsplit("/", 1)[-1].replace("-", "_").lower()
    rest = _CHAPTER_CODE.sub("", name)
    return stem in (name, rest) or (bool(rest) and stem in rest.split("_"))


def _lines(fact: str) -> int:
    match = _LINES.search(fact)
    return int(match.group(1).replace(",", "")) if match else 0


def _rank(view: View, candidates: list[str], folder: str, lang: str) -> tuple[str, str]:
    """The program among several code files, and why, from what each was read to be."""
    known = {c: facts(view, c) or "" for c in candidates}
    runnable = [c for c in candidates if any(label in known[c] for label in forms("entry"))]
    pool, why = runnable or candidates, []
    if len(runnable) == 1:
        return runnable[0], phrase("only_entry", lang)
    if runnable:
        why.append(phrase("has_entry", lang))
    after = [c for c in pool if named_after(c, folder)]
    if len(after) == 1:
        return after[0], ", ".join(why + [phrase("named_after_folder", lang)])
    pool = after or pool
    chosen = max(pool, key=lambda c: (_lines(known[c]), c))
    return chosen, ", ".join(why + [phrase("longest", lang, n=_lines(known[chosen]))])


def choose_programs(view: View, lang: str) -> tuple[list[str], dict[str, str], Step | None]:
    """(programs, why each, None), or a step that lists or reads what the choice needs."""
    named = code_paths(view.request)
    if len(named) >= 2:
        return named, {p: phrase("named_in_request", lang) for p in named}, None
    programs, why = [], {}
    for folder in folders(view.request):
        files = listing(view, f"{folder}/*")
        if files is None:
            return [], {}, Step(next_step(lang, "next_list_folder", folder=folder),
                                [("glob", {"pattern": f"{folder}/*"})])
        code = sorted(f for f in files if f.rsplit(".", 1)[-1] in CODE_EXTENSIONS)
        if not code:
            continue
        if len(code) == 1:
            programs.append(code[0])
            why[code[0]] = phrase("only_program", lang, folder=folder)
            continue
        candidates = code[:MAX_CANDIDATES]
        step = fetch(view, candidates, lang)
        if step:
            return [], {}, step
        chosen, reason = _rank(view, candidates, folder, lang)
        others = ", ".join(posixpath.basename(c) for c in code if c != chosen)
        programs.append(chosen)
        why[chosen] = reason + phrase("beside_it", lang, others=others)
    return programs, why, None
