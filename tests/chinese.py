"""Small Chinese notebooks for tests, made from the English ones as the translators make theirs
(``tools.translation.translated``): the real ones are written separately, and the book
and the lab must work with whichever exist."""

from __future__ import annotations

from pathlib import Path

import nbformat

from tools.translation import translated

LANGUAGE_CELL = 'from compact.classroom import language\nlanguage("zh")\n'


def write_chinese(notebooks: Path, name: str) -> Path:
    """``notebooks/zh/<name>`` from ``notebooks/<name>``: each prose cell a short Chinese text (the
    first a title and a link back to the English), the imports cell choosing Chinese."""
    english = nbformat.read(notebooks / name, as_version=4)
    prose = [cell for cell in english.cells if cell.cell_type == "markdown"]
    texts = [f"# {Path(name).stem} · 中文译文\n\n[English](../{name}) · 中文"]
    texts += [f"第 {k} 段译文：上下文、工具结果、压缩。" for k in range(1, len(prose))]
    code = [k for k, cell in enumerate(english.cells) if cell.cell_type == "code"]
    imports = code[1]                        # the first code cell after the set-up cell
    chinese = translated(english, texts, (imports, LANGUAGE_CELL + english.cells[imports].source))
    target = notebooks / "zh" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(chinese, target)
    return target
