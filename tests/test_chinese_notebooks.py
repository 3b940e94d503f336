"""The Chinese notebooks (``notebooks/zh/``): one for every English notebook, the same code cell
for cell (but the one cell that chooses the language), the lesson's own section names as
headings, its three prompts verbatim, and the suite's conventions in Chinese (those the two
languages share, and their execution, are in tests/test_notebooks.py)."""

import re

import nbformat
import pytest
from test_notebooks import CHINESE, NOTEBOOK_DIR, NOTEBOOKS, code_cells, imported_names, markdown

from compact.classroom.experiments import PROMPTS_ZH
from tools.translation import LANGUAGE_CELL, compare, report

STEPS = {"01": "第一步：tool_result_budget", "02": "第二步：snip_compact",
         "03": "第三步：micro_compact", "04": "第四步：compact_history"}
PROMPT_IN = {"01": 2, "03": 1, "04": 3}          # the notebook that runs each experiment


def chinese(path):
    return nbformat.read(NOTEBOOK_DIR / "zh" / path.name, as_version=4)


def test_every_english_notebook_has_a_chinese_one_in_step():
    assert report(NOTEBOOK_DIR, NOTEBOOK_DIR / "zh") == []
    assert [p.name for p in CHINESE] == [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_code_is_the_englishs_but_one_language_cell(path):
    english, translated = nbformat.read(path, as_version=4), chinese(path)
    assert compare(english, translated).ok
    differing = [zh.source for en, zh in zip(code_cells(english), code_cells(translated), strict=True)
                 if en.source != zh.source]
    assert len(differing) == 1 and LANGUAGE_CELL in differing[0]
    assert imported_names(translated) - imported_names(english) <= {"language"}


@pytest.mark.parametrize("number,step", sorted(STEPS.items()))
def test_the_stage_notebooks_carry_the_lessons_step_headings(number, step):
    [path] = [p for p in CHINESE if p.name.startswith(number)]
    headings = [line for line in markdown(nbformat.read(path, as_version=4)).splitlines()
                if line.startswith("#")]
    assert any(step in line for line in headings), f"{path.name}: no heading with {step!r}"


@pytest.mark.parametrize("number,experiment", sorted(PROMPT_IN.items()))
def test_the_lessons_prompts_appear_verbatim(number, experiment):
    [path] = [p for p in CHINESE if p.name.startswith(number)]
    assert PROMPTS_ZH[experiment] in markdown(nbformat.read(path, as_version=4))


@pytest.mark.parametrize("path", CHINESE, ids=lambda p: p.name)
def test_the_prose_is_chinese(path):
    han = len(re.findall(r"[\u4e00-\u9fff]", markdown(nbformat.read(path, as_version=4))))
    assert han > 500, f"{path.name}: only {han} Chinese characters of prose"
