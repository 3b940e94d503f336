"""``reveal``'s explanations: every notebook names one of the string table's keys
(the ``why.`` keys of compact/locale/) and passes exactly the fields its texts use, so a Chinese
learner reads the why in Chinese from the same code; a plain ``why`` is still shown as given.
The notebooks are read with ``ast``: a field given as a key of the table
(``outcome="why.04.refused" if ... else ...``) brings that key's fields along."""

from __future__ import annotations

import ast
import string

import nbformat
import pytest
from test_notebooks import BOTH, code_cells

from compact import texts as text_table
from compact.classroom import reveal, solutions
from compact.classroom.reveal import CHECK_CLAIMS


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def key_fields(key: str) -> set[str]:
    entry = text_table.texts()[key]
    return fields(entry["en"]) | fields(entry["zh"])


def reveal_calls(path) -> list[ast.Call]:
    """Every ``reveal(...)`` in the notebook's code cells (IPython's ``%`` lines left out)."""
    found = []
    for cell in code_cells(nbformat.read(path, as_version=4)):
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith("%"))
        found += [node for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "reveal"]
    return found


def keys_in(node: ast.AST) -> set[str]:
    """The string constants in ``node`` that are keys of the table."""
    table = text_table.texts()
    return {n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in table}


def used_keys(call: ast.Call) -> tuple[str, set[str]]:
    """The call's ``why`` key (checked to be a registered constant) and the keys its fields name."""
    keywords = {k.arg: k.value for k in call.keywords}
    assert None not in keywords, f"line {call.lineno}: reveal(**...) hides its fields"
    why = keywords.get("why")
    assert isinstance(why, ast.Constant) and isinstance(why.value, str), \
        f"line {call.lineno}: why is not a string constant"
    assert why.value in text_table.texts(), f"line {call.lineno}: {why.value!r} is no key"
    inner = set().union(*(keys_in(v) for k, v in keywords.items() if k not in ("why", "expected", "stage")))
    return why.value, inner


@pytest.mark.parametrize("path", BOTH, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_reveal_names_a_key_and_passes_exactly_its_fields(path):
    calls = reveal_calls(path)
    assert calls, f"{path.name} has no reveal"
    for call in calls:
        why, inner = used_keys(call)
        passed = {k.arg for k in call.keywords} - {"why", "expected", "stage"}
        wanted = key_fields(why).union(*(key_fields(k) for k in inner))
        assert passed == wanted, f"{path.name} line {call.lineno}, {why}: passes {sorted(passed)}, " \
                                 f"its texts use {sorted(wanted)}"
        assert len(call.args) == 2, f"{path.name} line {call.lineno}: reveal(guess, actual, ...)"


def test_every_explanation_is_used_and_has_the_same_fields_in_both_languages():
    """test_texts_zh.py checks every key of the table; here, that the notebooks' keys are all
    there, with no key left that no notebook uses."""
    used = set()
    for path in BOTH:
        for call in reveal_calls(path):
            why, inner = used_keys(call)
            used |= {why} | inner
    registered = {key for key in text_table.texts() if key.startswith("why.")}
    otherwise = {key for key in registered if key.endswith(".otherwise")}
    assert {key.removesuffix(".otherwise") for key in otherwise} <= used   # shown when a run differs
    solution = {key for key in registered if key.endswith(".solution")}   # shown when it ran
    assert {key.removesuffix(".solution") for key in solution} <= used
    assert used == registered - otherwise - solution
    for key in registered:
        entry = text_table.texts()[key]
        assert fields(entry["en"]) == fields(entry["zh"]), key
    for key in solution:                            # passed the same fields as the key it stands for
        assert key_fields(key) <= key_fields(key.removesuffix(".solution")), key


@pytest.fixture
def english(monkeypatch):
    """English for one test, whatever was chosen before (which comes back afterwards)."""
    monkeypatch.setattr(text_table, "_chosen", [])
    text_table.language("en")
    yield
    text_table.language("en")


def test_a_key_is_shown_in_the_chosen_language(english):
    shown = reveal(3, 4, why="why.00.refused_turn", turn=4, size=254_886, tokens=63_722, window=16_000)
    assert shown.lines() == [
        "✗ You predicted 3: it is 4.",
        "Why: each turn reads one whole code file and keeps it: turn 4 would have sent both files, "
        "254,886 chars, which the model counts as 63,722 tokens, over its 16,000-token window"]
    text_table.language("zh")
    assert shown.lines()[1] == ("原因：每一轮都读入一个完整的代码文件并把它留在上下文中，因此"
                                "第 4 轮本要同时发送两个文件，共 254,886 个字符，模型算作 63,722 个 token，"
                                "超出了它 16,000 token 的窗口")
    assert "第 4 轮" in shown._repr_html_()


def test_a_field_that_is_a_key_is_shown_as_its_text(english):
    refused = reveal([], [], why="why.04.turns", limit=80_000, outcome="why.04.refused",
                     error="prompt is too long: 17,000 tokens > 16,000 maximum")
    finished = reveal(..., [5], why="why.04.turns", limit=30_000, outcome="why.04.finished", error=None)
    same = reveal(True, True, why="why.01.same_run", found="why.none_here")
    assert refused.lines()[1].endswith("1–3; this run was refused: prompt is too long: 17,000 tokens "
                                       "> 16,000 maximum")
    assert finished.lines()[1].endswith("over 30,000 chars after stages 1–3; this run finished")
    assert same.lines()[1].endswith("on some turn: none here)")
    text_table.language("zh")
    assert refused.lines()[1].endswith("这次运行被拒绝了：prompt is too long: 17,000 tokens > 16,000 maximum")
    assert finished.lines()[1].endswith("第四步就会触发；这次运行完成了")
    assert same.lines()[1].endswith("，而这里没有差别）")


def test_a_plain_why_is_shown_as_given(english):
    assert reveal(1, 1, why="because {it} is {so}").lines() == ["✓ You predicted 1: it is 1.",
                                                                 "Why: because {it} is {so}"]
    assert reveal(1, 1).lines() == ["✓ You predicted 1: it is 1."]
    text_table.language("zh")
    assert reveal(1, 2, why="as written").lines()[1] == "原因：as written"


def test_the_claim_is_still_checked_with_a_key(english, monkeypatch):
    monkeypatch.setenv(CHECK_CLAIMS, "1")
    with pytest.raises(AssertionError, match="the notebook says it is 2"):
        reveal(1, 3, expected=2, why="why.03.placeholders")
    assert "a.cfg and b.cfg" in str(reveal(2, 2, expected=2, why="why.03.placeholders"))


def unseen_reveals(source: str) -> list[int]:
    """Lines of ``reveal(...)`` calls whose result a notebook cell would throw away: a reveal is
    shown only as the cell's last expression or inside ``display(...)`` or ``show(...)``."""
    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%")))
    shown = set()
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        shown.add(id(tree.body[-1].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("display", "show"):
            shown.update(id(arg) for arg in node.args)
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "reveal" and id(node) not in shown]


@pytest.mark.parametrize("path", BOTH, ids=lambda p: p.relative_to(p.parents[1]).as_posix())
def test_every_reveal_is_shown(path):
    for cell in code_cells(nbformat.read(path, as_version=4)):
        assert unseen_reveals(cell.source) == [], f"a reveal that shows nothing, in:\n{cell.source}"


def test_a_reveal_before_the_last_line_is_caught_unless_displayed():
    assert unseen_reveals("reveal(a, b)\nplot()") == [1]
    assert unseen_reveals("display(reveal(a, b))\nplot()") == unseen_reveals("show(reveal(a))\nf()") == []
    assert unseen_reveals("x = 1\nreveal(a, b)") == []


def test_the_explanation_follows_the_result(english, monkeypatch):
    """A learner's stage that went another way gets the explanation of what happened, never the
    one of the package's result; a key without an ``.otherwise`` text says it does not apply."""
    monkeypatch.delenv(CHECK_CLAIMS, raising=False)
    same = reveal(True, True, expected=True, why="why.03.same_run", found="none here")
    differs = reveal(True, False, expected=True, why="why.03.same_run", found="turn 5: yours sent 9,000")
    unknown = reveal(..., 3, expected=2, why="why.03.placeholders")
    assert same.outcome == "holds" and "experiment 1 reads one file per turn" in str(same)
    assert differs.outcome == "otherwise" and "experiment 1 reads" not in str(differs)
    assert "made another run than the package's: turn 5: yours sent 9,000" in str(differs)
    assert unknown.outcome == "unexpected" and "does not apply" in str(unknown)
    assert "data-outcome='otherwise'" in differs._repr_html_()


def test_the_worked_solution_is_named_when_it_ran(english, monkeypatch):
    """On a first Run All the stub cell still imports the worked solution: the "same run" reveal
    says the solution ran, never "the stage you passed in"; a learner's own function, or a run
    that went another way, gets the usual explanation."""
    monkeypatch.delenv(CHECK_CLAIMS, raising=False)

    def mine(messages, ctx):
        return solutions.micro_compact(messages, ctx)

    ran = reveal(..., True, expected=True, why="why.03.same_run", stage=solutions.micro_compact,
                 found="none here")
    own = reveal(..., True, expected=True, why="why.03.same_run", stage=mine, found="none here")
    differs = reveal(..., False, expected=True, why="why.03.same_run", stage=solutions.micro_compact,
                     found="turn 5: yours sent 9,000")
    assert ran.lines()[1].startswith("Why: the worked solution ran, not yours (delete the line marked ←")
    assert "experiment 1 reads one file per turn" in str(ran) and ran.outcome == "holds"
    assert "worked solution" not in str(own) and "experiment 1 reads" in str(own)
    assert differs.outcome == "otherwise" and "worked solution" not in str(differs)
    for key in ("why.01.same_run", "why.04.same_run"):
        assert "the worked solution ran" in str(reveal(True, True, why=key, stage=solutions.micro_compact,
                                                       found="none here"))
    text_table.language("zh")
    assert ran.lines()[1].startswith("原因：运行的是参考答案，不是你写的")


@pytest.mark.parametrize("path", BOTH, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_reveal_with_a_solution_text_is_given_the_learners_stage(path):
    """Without ``stage=my_<stage>`` the reveal cannot tell the worked solution ran."""
    for call in reveal_calls(path):
        why, _ = used_keys(call)
        if f"{why}.solution" in text_table.texts():
            stage = {k.arg: k.value for k in call.keywords}.get("stage")
            assert isinstance(stage, ast.Name) and stage.id.startswith("my_"), \
                f"{path.name} line {call.lineno}: {why} needs stage=my_<stage>"
