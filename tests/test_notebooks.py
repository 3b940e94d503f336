"""Every notebook (English and Chinese) runs offline, each cell safe to re-run (conftest's
``executed``), is committed without outputs and follows the suite's conventions; it imports the
package in one line, ``from compact.classroom import …``, of at most 20 names (issue #30), the
rest reached through three namespaces that only import and re-export."""

import ast
import html
import inspect
import re
import textwrap
from pathlib import Path

import nbformat
import pytest
from conftest import NOTEBOOK_DIR, errors

import compact.classroom
from compact import texts
from compact.classroom import agent, kit, language, run_experiment, study

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CHINESE = sorted((NOTEBOOK_DIR / "zh").glob("*.ipynb"))     # their translations (test_chinese_notebooks.py)
BOTH = NOTEBOOKS + CHINESE
PLOT_CALL = re.compile(r"\bplot_(?:run|context|composition|tokens|batch|messages)\(")
LESSON_NOTEBOOKS = [p for p in NOTEBOOKS if p.name[:2] in {"00", "01", "02", "03", "04", "05"}]  # not 06+
WRITE_IT_YOURSELF = {"01": "tool_result_budget", "02": "snip_compact", "03": "micro_compact",
                     "04": "compact_history", "05": "reactive_compact"}
STAGE_NOTEBOOKS = [p for p in BOTH if p.name[:2] in WRITE_IT_YOURSELF]
RECAP_THEN_FURTHER = {"notebooks": ("## Recap", "## Going further"), "zh": ("## 小结", "## 延伸")}
PREDICT = re.compile(r"预测|predict", re.I)
FROM_COMPACT = re.compile(r"^from (compact(?:\.[\w.]+)?) import ([^\n#]+)", re.M)
ALL = pytest.mark.parametrize("path", BOTH, ids=lambda p: p.relative_to(NOTEBOOK_DIR).as_posix())
LESSONS = pytest.mark.parametrize("path", LESSON_NOTEBOOKS, ids=lambda p: p.name)


def code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def markdown(nb):
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


@ALL
def test_notebook_runs_and_every_cell_is_safe_to_re_run(path, executed):
    run = executed(path)
    assert (errors(run.notebook.cells), run.rerun_errors) == ([], [])
    outputs = [output for cell in code_cells(run.notebook) for output in cell.outputs]
    source = "\n".join(cell.source for cell in code_cells(run.notebook))
    if PLOT_CALL.search(source):
        assert any("image/png" in o.get("data", {}) for o in outputs), f"{path.name} showed no plot"
    if "Runs(" in source:
        assert run.made_runs, "runs should land in runs/ beside the notebook"


@ALL
def test_notebook_is_committed_clean_and_follows_the_conventions(path):
    """No outputs, a title first; the code right after a markdown cell asking to predict asserts
    nothing (a guess first); a learner sees a cell's prints, the asserts that check them sit in a
    collapsed cell tagged checks after it; the package is imported in one line."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for index, cell in enumerate(code_cells(nb)):
        assert cell.outputs == [], f"{path.name}: code cell {index} has outputs; clear them"
        assert cell.execution_count is None, f"{path.name}: code cell {index} has an execution count"
        if "checks" in cell.metadata.get("tags", []):
            assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, cell.id
            assert cell.source.startswith(CHECKS_HEAD[path.parent.name] + "\n"), cell.id
            tree = ast.parse(cell.source)
            assert only_checks(tree.body) and any(isinstance(n, ast.Assert) for n in ast.walk(tree)), cell.id
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), \
        f"{path.name}: the first cell must be a markdown title starting with '# '"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and PREDICT.search(cell.source):
            after = next((c for c in nb.cells[i + 1:] if c.cell_type == "code"), None)
            assert after is None or not re.search(r"^\s*assert\b", after.source, re.M), \
                f"{path.name} cell {i}: the code right after a prediction asserts its answer"
    lines = package_imports(nb)
    if path.parent.name == "zh":
        lines.remove(LANGUAGE)
    assert len(lines) == 1 and lines[0].startswith(ONE_LINE), f"{path.name}: {lines}"
    names = lines[0].removeprefix(ONE_LINE).split(", ")
    assert set(names) <= set(compact.classroom.__all__), f"{path.name}: a name the package does not offer"
    assert len(names) <= 12, f"{path.name} imports {len(names)} names from compact: {sorted(names)}"


@LESSONS
def test_lesson_notebook_states_its_version_objectives_recap_and_next_and_is_safe_to_re_run(path):
    """Re-running any cell cannot break another: no name is assigned in two cells, none reads the
    last event."""
    nb = nbformat.read(path, as_version=4)
    owner = {}
    for index, cell in enumerate(code_cells(nb)):
        assert "events[-1]" not in cell.source, f"{path.name} cell {index} reads events[-1]"
        for name in assigned_names(cell.source):
            assert name not in owner, (f"{path.name}: {name!r} is assigned in code cells "
                                       f"{owner[name]} and {index}")
            owner[name] = index
    text = markdown(nb)
    assert "**In this notebook you will**" in text, f"{path.name}: no objectives cell"
    assert "zh@v7" in text and "v8" in text, f"{path.name}: say which lesson version it follows"
    assert "## Recap" in text, f"{path.name}: no recap"
    [following] = re.findall(r"\*\*Next:\*\* \[[^\]]+\]\(([\w.]+\.ipynb)\)", text)
    assert (NOTEBOOK_DIR / following).is_file(), f"{path.name}: its next link {following} is broken"
    if path.name[:2] != "00":
        assert "### zh@v7 and v8, side by side" in text, f"{path.name}: no side-by-side section"


def imported_names(nb) -> set[str]:
    source = "\n".join(cell.source for cell in code_cells(nb))
    return {name.strip().split(" as ")[-1] for _, names in FROM_COMPACT.findall(source)
            for name in names.strip("() ").split(",") if name.strip()}


@pytest.mark.parametrize("path", STAGE_NOTEBOOKS, ids=lambda p: p.relative_to(NOTEBOOK_DIR).as_posix())
def test_the_lessons_part_comes_first_in_at_most_25_cells_and_ends_with_the_recap(path):
    """Issue #31: at most 25 cells before "Going further", which is no longer than the lesson's part."""
    recap, further = RECAP_THEN_FURTHER[path.parent.name]
    cells = nbformat.read(path, as_version=4).cells
    at = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and further in c.source)
    assert at <= 25, f"{path.name}: {at} cells before {further!r}"
    assert len(cells) - at - 1 <= at, f"{path.name}: {further!r} is longer than the lesson's part"
    assert recap in "\n".join(c.source for c in cells[:at + 1]), "the recap closes the lesson's part"


@pytest.mark.parametrize("number,stage", sorted(WRITE_IT_YOURSELF.items()))
def test_write_it_yourself_cells_check_the_stage_then_run_it(number, stage):
    [path] = [p for p in NOTEBOOKS if p.name.startswith(number)]
    nb = nbformat.read(path, as_version=4)
    sources = [cell.source for cell in code_cells(nb)]
    [stub] = [s for s in sources if f"def my_{stage}(" in s]
    assert "raise NotImplementedError" in stub
    assert f"from compact.classroom.solutions import {stage} as my_{stage}  # ← delete this line" in stub
    checked = next(k for k, s in enumerate(sources) if f'check("{stage}", my_{stage})' in s)
    assert any(f'"{stage}": my_{stage}' in s for s in sources[checked + 1:]), \
        f"{path.name}: after the check, no cell runs my_{stage} in an experiment, loop or Compactor"


def assigned_names(source: str) -> set[str]:
    """Top-level names a cell binds by assignment (imports, defs and loop variables excluded)."""
    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.startswith("%")))
    targets = [t for node in tree.body for t in (
        node.targets if isinstance(node, ast.Assign) else [node.target]
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])]
    return {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}


CHECKS_HEAD = {"notebooks": "# Checks: the claims above, as the tests run them",   # by the notebook's folder
               "zh": "# 检查：上文的说法，按测试的方式逐一核对"}


def only_checks(statements) -> bool:
    """Asserts, and the assignments, ``if`` and ``for`` blocks they need: nothing a learner reads."""
    return all(isinstance(s, (ast.Assert, ast.Assign)) or (
        isinstance(s, (ast.If, ast.For)) and only_checks(s.body) and only_checks(s.orelse))
        for s in statements)


def test_the_checks_would_catch_a_print_and_a_reassignment():
    assert only_checks(ast.parse("x = 1\nif x:\n    assert x\nfor y in [x]:\n    assert y").body)
    assert not only_checks(ast.parse("assert 1\nprint(2)").body)
    assert assigned_names("a = 1\nb, c = 2, 3\nd += 1\nfor e in x: f = e") == {"a", "b", "c", "d"}


LESSON_PARTS = ["先理解上下文", "为什么先整理工具结果", "试一下", "第一步", "第二步", "第三步", "第四步",
                "为什么顺序固定", "与 s09 的边界", "放回 Agent Loop", "API 拒绝后的补救", "compact 工具",
                "the wrong way", "相对 s07 的变更", "v8"]


def headings(path: Path) -> set[str]:
    nb = nbformat.read(path, as_version=4)
    return {line.lstrip("#").strip() for cell in nb.cells if cell.cell_type == "markdown"
            for line in cell.source.splitlines() if line.startswith("## ") or line.startswith("### ")}


def test_the_readme_says_where_each_part_of_the_lesson_is_taught():
    assert len(NOTEBOOKS) >= 6, f"expected the notebook suite in {NOTEBOOK_DIR}"
    lesson = (NOTEBOOK_DIR.parent / "docs" / "lesson.md").read_text(encoding="utf-8")
    block = lesson.split("Where each part of the lesson is taught", 1)[1]
    table = [line for line in block.split("\n\n", 2)[1].splitlines() if line.startswith("|")][2:]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table]
    for part in LESSON_PARTS:
        assert any(part in row[0] for row in rows), f"the table in docs/lesson.md does not place {part!r}"
    for part, numbers, sections in rows:
        first, _, last = numbers.partition("–")
        wanted = [p for p in NOTEBOOKS if first <= p.name[:2] <= (last or first)]
        assert wanted, f"{part}: no notebook {numbers}"
        names = [s.strip() for s in sections.split(";")]
        for path in wanted:
            assert headings(path) & set(names), f"{part}: {path.name} has no section {names}"


def test_exercise_1_of_00_runs_the_repl_on_experiment_1_as_written(tmp_path, monkeypatch, capsys):
    """00's exercise 1 gives three lines: the REPL on prompt(1) under new names, then its session and
    answer printed. They run as written; that session has no transcript line to start the answer
    after, the answer still shows, and the session prints no stage-4 line (the answer says so)."""
    nb = nbformat.read(NOTEBOOK_DIR / "00_context_window.ipynb", as_version=4)
    imports = next(c.source for c in nb.cells if "RUNS = Runs(" in c.source).replace("%matplotlib inline", "")
    [text] = [c.source for c in nb.cells if "kit.run_repl(prompt(1)" in c.source]
    given = [code for code in re.findall(r"`([^`]+)`", text) if code.startswith(("one = ", "print("))]
    assert len(given) == 3, given
    monkeypatch.chdir(tmp_path)
    names: dict = {}
    exec(imports + "\n" + "\n".join(given), names)
    one = names["one"]
    assert one.returncode == 0 and "(offline model) The 5 H1 titles" in one.answer, one.answer
    assert not any("[auto compact]" in line or "[transcript saved:" in line for line in one.session)
    assert one.answer in capsys.readouterr().out


def snippet_01(nb) -> str:
    """The lesson's stage 1 snippet as 01 prints it."""
    [snippet] = [m.group(1) for m in re.finditer(r"```python\n(.*?)```", markdown(nb), re.S)
                 if "persist_large_output(" in m.group(1)]
    return snippet


def test_the_snippet_01_runs_on_the_image_batch_is_the_one_it_prints():
    """01's image demo runs ``kit.lesson_tool_result_budget`` as "the lesson's snippet": it is."""
    snippet = snippet_01(nbformat.read(NOTEBOOK_DIR / "01_tool_result_budget.ipynb", as_version=4))
    assert textwrap.indent(snippet.strip(), "    ") in inspect.getsource(kit.lesson_tool_result_budget)


def test_the_lessons_snippet_pasted_into_01s_skeleton_passes_the_checker():
    """01 says: replace the raise line with the lesson's snippet, pasted as it is and indented, and it
    runs (the skeleton defines the snippet's names); the checker's cases all pass."""
    nb = nbformat.read(NOTEBOOK_DIR / "01_tool_result_budget.ipynb", as_version=4)
    snippet = snippet_01(nb)
    [stub] = [c.source for c in code_cells(nb) if "def my_tool_result_budget(" in c.source]
    raise_line = next(line for line in stub.splitlines() if "raise NotImplementedError" in line)
    names: dict = {"kit": kit}
    pasted = re.sub("^", "    ", snippet.strip(), flags=re.M)           # indented, as the cell says
    exec(stub.split("\n\n\nfrom compact")[0].replace(raise_line, pasted), names)
    assert compact.classroom.check("tool_result_budget", names["my_tool_result_budget"]).failed == []


def test_01s_solution_to_exercise_3_passes_its_check(tmp_path, monkeypatch, capsys):
    """01's folded solution to exercise 3: the skeleton with the snippet, renamed my_once_budget, its
    threshold test changed as the fold shows; the exercise's cell then says done."""
    nb = nbformat.read(NOTEBOOK_DIR / "01_tool_result_budget.ipynb", as_version=4)
    snippet = snippet_01(nb)
    [fold] = re.findall(r"<pre>(.*?)</pre>", markdown(nb), re.S)
    changed = html.unescape(fold).splitlines()[0]
    assert snippet.count("if len(content) <= PERSIST_THRESHOLD:") == 1
    snippet = snippet.replace("if len(content) <= PERSIST_THRESHOLD:", changed)
    cells = {c.id: c.source for c in code_cells(nb)}
    stub, exercise = cells["co13"], cells["co45"]
    raise_line = next(line for line in stub.splitlines() if "raise NotImplementedError" in line)
    pasted = re.sub("^", "    ", snippet.strip(), flags=re.M)
    solution = stub.split("\n\n\nfrom compact")[0].replace(raise_line, pasted)
    monkeypatch.chdir(tmp_path)
    names: dict = {}
    exec(cells["co01"].replace("%matplotlib inline", "") + "\n" + cells["co37"].split("\nat_50k")[0], names)
    exec(solution.replace("def my_tool_result_budget(", "def my_once_budget("), names)
    exec(exercise.split("\n\n\n", 1)[1], names)
    assert "pass 2 wrote: nothing" in capsys.readouterr().out


def test_the_answers_to_00s_exercises(tmp_path, monkeypatch):
    """00 answers: in experiment 1 stage 4 never fires (the context stays near 12,000 chars) and
    stage 3 fires at turns 5, 6 and 7; a 20,000-token window still refuses turn 3 (the reply's
    1,024 max_tokens must fit too) and a 30,000 one finishes in 6 turns; the window holds one file of
    experiment 3's first one's size (turn 2 sent it under 10,000 tokens; a second adds about 9,400);
    the refusal comes at turn 3 in either language."""
    monkeypatch.setattr(texts, "_chosen", [])
    runs = {}
    for chosen in ("zh", "en"):                                   # English last: the answer's numbers
        language(chosen)
        first = run_experiment(1, workdir=tmp_path / f"{chosen}-1")
        assert first.fired == ["micro_compact"] * 3 and first.error is None
        assert [t.turn for t in first.trace.turns if t.stages] == [5, 6, 7]
        assert 11_500 < max(t.size_before for t in first.trace.turns) < 12_500
        runs[chosen] = baseline = run_experiment(3, compaction=False, workdir=tmp_path / chosen)
    assert {k: (len(r.trace.turns) + 1, r.refused_tokens[0]) for k, r in runs.items()} == {
        "en": (3, 19_165), "zh": (3, 19_181)}
    file_tokens = agent.OfflineModel().client().messages.count_tokens(model=baseline.trace.model, messages=[
        {"role": "user", "content": (baseline.workdir / "s08_context_compact/code.py").read_text("utf-8")}])
    assert round(file_tokens.input_tokens, -2) == 9_400
    wider = {window: run_experiment(3, compaction=False, workdir=tmp_path / f"w{window}",
                                    client=agent.OfflineModel(window_tokens=window))
             for window in (20_000, 30_000)}
    assert len(wider[20_000].trace.turns) + 1 == 3 and "19165 + 1024 > 20000" in wider[20_000].error
    assert wider[30_000].error is None and len(wider[30_000].trace.turns) == 6
    for run in runs.values():
        one_file = run.trace.turns[1].input_tokens
        assert one_file < 10_000 and one_file < 16_000 < one_file + file_tokens.input_tokens


PACKAGE_IMPORT = re.compile(r"^[ \t]*(?:from|import)[ \t]+compact\b.*$", re.M)
ONE_LINE = "from compact.classroom import "
# the exercise's switch: the worked solution, until the learner deletes this line
SOLUTION = re.compile(r"from compact\.classroom\.solutions import (\w+) as my_\1"
                      r"  # ← (delete this line to check yours|删掉这一行，就会检查你写的函数)")
LANGUAGE = "from compact.classroom import language"      # the Chinese notebooks' language cell


def package_imports(nb) -> list[str]:
    """Every line of the notebook's code that imports from the package, solution lines aside."""
    source = "\n".join(cell.source for cell in code_cells(nb))
    return [line for line in PACKAGE_IMPORT.findall(source) if not SOLUTION.fullmatch(line)]


def test_the_line_offers_at_most_twenty_names():
    assert len(compact.classroom.__all__) <= 20
    assert [name for name in compact.classroom.__all__ if not hasattr(compact.classroom, name)] == []


@pytest.mark.parametrize("namespace", [agent, kit, study], ids=lambda m: m.__name__)
def test_a_namespace_only_imports_and_names_what_it_offers(namespace):
    tree = ast.parse(Path(namespace.__file__).read_text(encoding="utf-8"))
    docstring, *body = tree.body
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    *imports, names = body
    assert all(isinstance(node, ast.ImportFrom) for node in imports)
    assert isinstance(names, ast.Assign) and [t.id for t in names.targets] == ["__all__"]
    imported = {alias.asname or alias.name for node in imports for alias in node.names}
    assert sorted(imported) == sorted(namespace.__all__)
