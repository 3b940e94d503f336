"""The Chinese notebooks (``notebooks/zh/``): one for every English notebook, the same code cell
for cell (but the one cell that chooses the language), the lesson's own section names as
headings, its three prompts verbatim, every title their code gives in Chinese, and the suite's
conventions in Chinese (those the two languages share, and their execution, are in
tests/test_notebooks.py)."""

import ast
import re

import nbformat
import pytest
from test_notebooks import CHINESE, NOTEBOOK_DIR, NOTEBOOKS, code_cells, imported_names, markdown
from test_texts_zh import english_in

from compact import texts
from compact.classroom.experiments import PROMPTS_ZH
from compact.classroom.show import TITLES, titled
from tools.translation import LANGUAGE_CELL, compare, report

STEPS = {"01": "第一步：tool_result_budget", "02": "第二步：snip_compact",
         "03": "第三步：micro_compact", "04": "第四步：compact_history"}
PROMPT_IN = {"01": 2, "03": 1, "04": 3}          # the notebook that runs each experiment
GIVEN_TITLE = re.compile(r'(?:title=|titled\()f?((?:"[^"\n]*"\s*)+)(?:\s*if [^\n]* else f?("[^"\n]*"))?')


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


def test_every_title_the_code_gives_is_shown_in_chinese(monkeypatch):
    """show(title=...) and titled(...): each title is an entry of show.TITLES (an f-string or a
    typed title is not), shown in Chinese with no English; its numbers have separators."""
    code = "\n".join(cell.source for path in CHINESE for cell in code_cells(nbformat.read(path, 4)))
    given = {ast.literal_eval(f"({text})") for found in GIVEN_TITLE.finditer(code) for text in found.groups()
             if text}
    assert given == set(TITLES)
    monkeypatch.setattr(texts, "_chosen", ["zh"])
    shown = [titled(title, turn=2, tokens=17642) for title in given]
    assert [t for t in shown if english_in(t) or not re.search("[\u4e00-\u9fff]", t)] == []
    assert "17,642" in "".join(shown)
