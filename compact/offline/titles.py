"""Skill: read the READMEs of a range of chapters, compare their titles, state the pattern.

The chapters come from the request (``s01_agent_loop 到 s05_todo_write``, ``ch01 to ch05``);
the README files from a listing (``<prefix>*/README.md``), never from a guess.
"""

from __future__ import annotations

import re

from .knowledge import Step, facts, fetch, listing, next_step, offline_label
from .phrases import phrase
from .read_markdown import title_from_note
from .request_text import chapter_number, chapter_range, language, readme_name
from .title_pattern import find_pattern
from .view import View


def _folder_number(path: str, prefix: str) -> int | None:
    folder = path.split("/")[0]
    parsed = chapter_number(folder)
    if parsed is None or (prefix and parsed[0] != prefix):
        return None
    return parsed[1]


def titles(view: View) -> Step:
    lang = language(view.request)
    chapters = chapter_range(view.request)
    prefix, wanted = chapters if chapters else ("", set())
    readme = readme_name(view.request)
    pattern = f"{prefix}*/{readme}" if prefix else f"*/{readme}"
    files = listing(view, pattern)
    if files is None:     # tool_use inputs are never compacted: earlier reads name the files
        read = sorted({c.input.get("path", "") for c in view.calls if c.name == "read_file"
                       and re.fullmatch(rf"{re.escape(prefix)}\d+[^/]*/{re.escape(readme)}",
                                        c.input.get("path", ""))})
        covered = {_folder_number(p, prefix) for p in read}
        files = read if wanted and wanted <= covered else None
    if files is None:
        return Step(next_step(lang, "next_list_readmes"), [("glob", {"pattern": pattern})])
    targets = sorted((p for p in files if p.endswith("/" + readme) and (
                          not chapters or _folder_number(p, prefix) in wanted)),
                     key=lambda p: (_folder_number(p, prefix) or 0, p))
    if not targets:
        return Step(offline_label(lang) + phrase("no_readme", lang, readme=readme, pattern=pattern,
                                                 files=", ".join(files) or phrase("nothing", lang)))
    step = fetch(view, targets, lang)
    if step:
        return step
    return answer(view, targets, prefix, lang)


def answer(view: View, targets: list[str], prefix: str, lang: str) -> Step:
    heads = {p: title_from_note(facts(view, p) or "") for p in targets}
    with_title = [p for p in targets if heads[p]]
    lines = [phrase("title_line", lang, i=i, folder=p.split("/")[0], title=heads[p])
             for i, p in enumerate(with_title, 1)]
    missing = [p for p in targets if not heads[p]]
    titles_seen = [heads[p] for p in with_title]
    numbers = [_folder_number(p, prefix) for p in with_title]
    found, others = find_pattern(titles_seen, numbers, lang)
    if found is None:
        rule = phrase("no_pattern", lang)
    else:
        whole = not others and not missing
        rule = (phrase("every_title", lang, template=found.template, words=found.words) if whole
                else phrase("some_titles", lang, n=len(found.members), of=len(targets),
                            template=found.template, words=found.words))
        for i in others:
            rule += phrase("title_differs", lang, folder=with_title[i].split("/")[0],
                           title=titles_seen[i])
    for path in missing:
        rule += phrase("title_missing", lang, path=path, facts=facts(view, path))
    head = phrase("titles_head", lang, n=len(with_title))
    return Step(offline_label(lang) + head + "\n" + "\n".join(lines) + "\n\n"
                + phrase("naming_pattern", lang, rule=rule))
