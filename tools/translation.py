"""The Chinese notebooks beside the English ones: the same code, cell for cell; prose that says
when the English it translates has changed.

``notebooks/zh/NN_x.ipynb`` has the cells of ``notebooks/NN_x.ipynb`` in the same order. Its code
cells are the English ones, token for token, except one: the cell that chooses the language (it
holds ``language("zh")``); only their comments may be in Chinese (as in d2l's Chinese edition).
Each Chinese markdown cell, and each code cell whose comments are translated, records in its
metadata a hash of the English cell it translates (``translation.en_sha1``), so::

    python -m tools.translation notebooks notebooks/zh          # report what is stale
    python -m tools.translation notebooks notebooks/zh --sync   # copy the code over

says which cells changed in English since the Chinese was last updated, and ``--sync`` copies
every English code cell whose code (comments aside) differs into the Chinese notebook (the
language cell kept), so code, outputs and checks cannot drift apart.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import io
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat

LANGUAGE_CELL = 'language("zh")'


def sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Pairing:
    """What differs between an English notebook and its Chinese translation."""

    shape: list[str]             # cells whose kind or order differ (the pairing is broken)
    code: list[int]              # code cells that differ (beyond the one language cell)
    stale: list[int]             # Chinese cells whose English changed since
    untranslated: list[int]      # Chinese cells with no record of the English they translate

    @property
    def ok(self) -> bool:
        return not (self.shape or self.code or self.stale or self.untranslated)


def _language_cell(source: str) -> bool:
    return LANGUAGE_CELL in source


def code_of(source: str) -> list[tuple[int, str]]:
    """A cell's tokens but its comments and blank or comment-only lines: what runs, whatever
    language the comments are in (IPython's ``%`` lines tokenize too)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(t.type, t.string) for t in tokens if t.type not in (tokenize.COMMENT, tokenize.NL)]


def _stale(en: nbformat.NotebookNode, zh: nbformat.NotebookNode) -> bool | None:
    """None: ``zh`` records no English; else whether the English changed since."""
    recorded = zh.metadata.get("translation", {}).get("en_sha1")
    return None if recorded is None else recorded != sha1(en.source)


def compare(english: nbformat.NotebookNode, chinese: nbformat.NotebookNode) -> Pairing:
    """Cell by cell: the shapes, the code, and the prose's record of its English."""
    shape, code, stale, untranslated = [], [], [], []
    if len(english.cells) != len(chinese.cells):
        shape.append(f"{len(english.cells)} cells in English, {len(chinese.cells)} in Chinese")
    for k, (en, zh) in enumerate(zip(english.cells, chinese.cells, strict=False)):
        if en.cell_type != zh.cell_type:
            shape.append(f"cell {k}: {en.cell_type} in English, {zh.cell_type} in Chinese")
        elif en.cell_type == "code" and (en.source == zh.source or _language_cell(zh.source)):
            pass
        elif en.cell_type == "code" and code_of(en.source) != code_of(zh.source):
            code.append(k)
        else:       # prose, or code with its comments translated: from which English?
            {None: untranslated, True: stale, False: []}[_stale(en, zh)].append(k)
    return Pairing(shape, code, stale, untranslated)


def sync_code(english: nbformat.NotebookNode, chinese: nbformat.NotebookNode) -> int:
    """Copy every English code cell whose code differs (comments aside) into the Chinese
    notebook, the language cell aside; return how many changed."""
    changed = 0
    for en, zh in zip(english.cells, chinese.cells, strict=False):
        if en.cell_type == zh.cell_type == "code" and not _language_cell(zh.source) \
                and code_of(en.source) != code_of(zh.source):
            zh.source, changed = en.source, changed + 1
            zh.metadata.pop("translation", None)
    return changed


def translated(english: nbformat.NotebookNode, prose: list[str], language_cell: tuple[int, str]
               ) -> nbformat.NotebookNode:
    """A Chinese notebook from ``english``: its markdown cells replaced, in order, by ``prose``
    (each recording the English it translates), its code kept, cell ``language_cell[0]`` given
    the source ``language_cell[1]``."""
    chinese = copy.deepcopy(english)
    texts = iter(prose)
    for k, cell in enumerate(chinese.cells):
        if cell.cell_type == "markdown":
            cell.metadata["translation"] = {"en_sha1": sha1(cell.source)}
            cell.source = next(texts)
        elif k == language_cell[0]:
            cell.source = language_cell[1]
    leftover = list(texts)
    if leftover:
        raise ValueError(f"{len(leftover)} more translated cells than the English has")
    return chinese


def report(english_dir: Path, chinese_dir: Path, sync: bool = False) -> list[str]:
    """Every problem of every pair, in words (empty: all in step)."""
    problems = []
    for path in sorted(Path(english_dir).glob("*.ipynb")):
        target = Path(chinese_dir) / path.name
        if not target.is_file():
            problems.append(f"{path.name}: no Chinese translation ({target})")
            continue
        english, chinese = nbformat.read(path, 4), nbformat.read(target, 4)
        if sync and sync_code(english, chinese):
            nbformat.write(chinese, target)
        pairing = compare(english, chinese)
        problems += [f"{path.name}: {p}" for p in pairing.shape]
        problems += [f"{path.name}: code cell {k} differs from the English" for k in pairing.code]
        problems += [f"{path.name}: cell {k}'s English changed since it was translated"
                     for k in pairing.stale]
        problems += [f"{path.name}: cell {k} records no English it translates"
                     for k in pairing.untranslated]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.translation")
    parser.add_argument("english", type=Path)
    parser.add_argument("chinese", type=Path)
    parser.add_argument("--sync", action="store_true", help="copy the English code cells over first")
    args = parser.parse_args(argv)
    problems = report(args.english, args.chinese, args.sync)
    print("\n".join(problems) or "every Chinese notebook is in step with its English one")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
