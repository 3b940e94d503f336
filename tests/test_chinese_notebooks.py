"""The Chinese notebooks (``notebooks/zh/``): one per English notebook with its code but the
language cell, the lesson's section names and prompts verbatim, and no English of their own
(what both languages share, and their execution: tests/test_notebooks.py)."""

import ast
import io
import re
import tokenize

import nbformat
import pytest
from test_notebooks import CHINESE, NOTEBOOK_DIR, NOTEBOOKS, code_cells, imported_names, markdown
from test_texts_zh import english_in

from compact import texts
from compact.classroom.experiments import PROMPTS_ZH
from compact.texts import translated
from tools.translation import LANGUAGE_CELL, code_of, compare, report, sha1, sync_code

STEPS = {"01": "第一步：tool_result_budget", "02": "第二步：snip_compact",
         "03": "第三步：micro_compact", "04": "第四步：compact_history"}
QUOTED = re.compile(r"python -m compact|\[N messages|Earlier tool result|micro only|context editing")
PROMPT_IN = {"01": 2, "03": 1, "04": 3}          # the notebook that runs each experiment


def test_every_english_notebook_has_a_chinese_one_in_step():
    assert report(NOTEBOOK_DIR, NOTEBOOK_DIR / "zh") == []
    assert [p.name for p in CHINESE] == [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_code_is_the_englishs_but_one_language_cell(path):
    """Token for token: only comments may be translated."""
    english, translated = (nbformat.read(p, as_version=4) for p in (path, NOTEBOOK_DIR / "zh" / path.name))
    differing = [zh.source for en, zh in zip(code_cells(english), code_cells(translated), strict=True)
                 if code_of(en.source) != code_of(zh.source)]
    assert len(differing) == 1 and LANGUAGE_CELL in differing[0]
    assert imported_names(translated) - imported_names(english) <= {"language"}


def test_a_cell_with_translated_comments_is_in_step_until_its_english_changes():
    en = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1  # one")])
    zh = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1  # 一")])
    assert compare(en, zh).untranslated == [0]            # which English do the comments translate?
    zh.cells[0].metadata["translation"] = {"en_sha1": sha1(en.cells[0].source)}
    assert compare(en, zh).ok and sync_code(en, zh) == 0
    en.cells[0].source = "x = 1  # the one"
    assert compare(en, zh).stale == [0]                   # its English comment changed
    en.cells[0].source = "x = 2  # the one"
    assert compare(en, zh).code == [0]                    # its code changed: --sync copies it over
    assert sync_code(en, zh) == 1 and zh.cells[0].source == en.cells[0].source and compare(en, zh).ok


@pytest.mark.parametrize("path", CHINESE, ids=lambda p: p.name)
def test_the_prose_is_chinese_with_the_lessons_step_headings_and_prompts(path):
    text = markdown(nbformat.read(path, as_version=4))
    han = len(re.findall(r"[\u4e00-\u9fff]", text))
    assert han > 500, f"{path.name}: only {han} Chinese characters of prose"
    # a line break between two Chinese characters shows as a space in JupyterLab: join the lines
    joined = r"[\u4e00-\u9fff，。：；！？、）」』”]\n[\u4e00-\u9fff（「『“]"
    broken = [hit for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown"
              for hit in re.findall(joined, cell.source)]
    assert not broken, f"{path.name}: a line break inside a Chinese sentence: {broken[:3]}"
    number = path.name[:2]
    assert number not in STEPS or any(STEPS[number] in line for line in text.splitlines()
                                      if line.startswith("#")), (number, STEPS[number])
    assert number not in PROMPT_IN or PROMPTS_ZH[PROMPT_IN[number]] in text


LABELS = ("set_title", "suptitle", "set_xlabel", "set_ylabel", "text", "annotate")


def literals(node: ast.AST) -> list[str]:
    """The text of a string literal or the fixed parts of an f-string; of a conditional, both."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value for v in node.values if isinstance(v, ast.Constant))]
    if isinstance(node, ast.IfExp):
        return literals(node.body) + literals(node.orelse)
    return []


def calls(source: str):
    """(name, call) of every call in a cell's code (IPython's % lines left out)."""
    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%")))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield getattr(node.func, "id", getattr(node.func, "attr", "")), node


def own_english(source: str) -> list[str]:
    """English the code prints or draws itself: print()'s strings, a figure's labels and titles,
    label= and title= of any call but show() (show translates its title)."""
    found = []
    for name, call in calls(source):
        given = list(call.args) if name == "print" else call.args[:1] if name in LABELS else []
        given += [k.value for k in call.keywords if k.arg in ("label", "title") and name != "show"]
        found += [text for node in given for text in literals(node) if english_in(text)]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_code_prints_no_english_of_its_own(path):
    """The Chinese notebook runs this code, so what it prints or draws goes through translated(...)
    or show(title=...) (the set-up cell aside: it runs before compact is installed)."""
    cells = [c for c in code_cells(nbformat.read(path, 4)) if not c.source.startswith("#@title Set-up")]
    found = [text for cell in cells for text in own_english(cell.source)]
    assert found == [], f"{path.name}: wrap these in translated(...) and add them to compact/locale/: {found}"


@pytest.mark.parametrize("path", CHINESE, ids=lambda p: p.name)
def test_the_code_explains_itself_in_chinese(path):
    """A docstring is code (the token-for-token rule keeps it English), so the notebooks explain a
    function in comments, and every comment the learner reads is Chinese: the stubs' raise and the
    marker on the worked-solution line too."""
    cells = [c.source for c in code_cells(nbformat.read(path, 4)) if not c.source.startswith("#@title")]
    sources = ["\n".join("" if line.startswith("%") else line for line in s.splitlines()) for s in cells]
    defined = [n for s in sources for n in ast.walk(ast.parse(s)) if isinstance(n, ast.FunctionDef)]
    assert [f.name for f in defined if ast.get_docstring(f)] == []
    comments = [t.string for s in sources for t in tokenize.generate_tokens(io.StringIO(s).readline)
                if t.type == tokenize.COMMENT]
    assert [c for c in comments if english_in(c) and not QUOTED.search(c)] == []


def test_every_text_the_code_translates_is_shown_in_chinese(monkeypatch):
    """Each text given to translated(...) or show(title=...) is a ``notebook.`` entry of the catalogs,
    each entry is used, and shown in Chinese with no English; its numbers have separators."""
    given = set()
    for path in NOTEBOOKS:
        for cell in code_cells(nbformat.read(path, 4)):
            for name, call in calls(cell.source):
                if name == "translated":
                    given.update(literals(call.args[0]))
                elif name == "show":
                    given.update(t for k in call.keywords if k.arg == "title" for t in literals(k.value))
    assert given == {key.removeprefix("notebook.") for key in texts.texts() if key.startswith("notebook.")}
    monkeypatch.setattr(texts, "_chosen", ["zh"])
    shown = [translated(text, **dict.fromkeys(re.findall(r"{(\w+)", text), 17642)) for text in given]
    assert [t for t in shown if english_in(t) or not re.search("[\u4e00-\u9fff]", t)] == []
    assert "17,642" in "".join(shown)
