"""The Chinese notebooks (``notebooks/zh/``): one for every English notebook, the same code cell
for cell (but the one cell that chooses the language), the lesson's own section names as
headings, its three prompts verbatim, and the suite's conventions in Chinese. They are executed
twice in one kernel with the English ones (tests/test_notebooks.py)."""

import re

import nbformat
import pytest
from test_notebooks import CHINESE, NOTEBOOK_DIR, NOTEBOOKS, code_cells, imported_names, markdown

from compact.classroom.experiments import PROMPTS_ZH
from tools.translation import LANGUAGE_CELL, compare, report

STEPS = {"01": "第一步：tool_result_budget", "02": "第二步：snip_compact",
         "03": "第三步：micro_compact", "04": "第四步：compact_history"}
PROMPT_IN = {"01": 2, "03": 1, "04": 3}          # the notebook that runs each experiment
PREDICT = re.compile(r"预测|predict", re.I)


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
def test_the_prose_is_chinese_and_predictions_come_first(path):
    nb = nbformat.read(path, as_version=4)
    text = markdown(nb)
    han = len(re.findall(r"[\u4e00-\u9fff]", text))
    assert han > 500, f"{path.name}: only {han} Chinese characters of prose"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and PREDICT.search(cell.source):
            after = next((c for c in nb.cells[i + 1:] if c.cell_type == "code"), None)
            assert after is None or not re.search(r"^\s*assert\b", after.source, re.M), \
                f"{path.name} cell {i}: the code right after a prediction asserts its answer"


@pytest.mark.parametrize("path", [p for p in CHINESE if p.name[:2] in STEPS or p.name[:2] == "05"],
                         ids=lambda p: p.name)
def test_the_lessons_part_closes_with_a_recap_before_going_further(path):
    cells = nbformat.read(path, as_version=4).cells
    at = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and "## 延伸" in c.source)
    assert at <= 30 and "## 小结" in "\n".join(c.source for c in cells[:at + 1])


@pytest.mark.parametrize("path", CHINESE, ids=lambda p: p.name)
def test_a_chinese_notebook_imports_one_name_more_at_most(path):
    english = imported_names(nbformat.read(NOTEBOOK_DIR / path.name, as_version=4))
    assert imported_names(nbformat.read(path, as_version=4)) - english <= {"language"}
