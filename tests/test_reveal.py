"""``reveal``'s explanations: every notebook names one of the string table's keys
(the ``why.`` keys of compact/locale/) and passes exactly the fields its texts use, so a Chinese
learner reads the why in Chinese from the same code; a plain ``why`` is still shown as given.
The notebooks are read with ``ast``: a field given as a key of the table
(``outcome="why.04.refused" if ... else ...``) brings that key's fields along. The claims of
notebooks 00–05 sit in compact/locale/claims.json, out of the learner's view; the check line on
a learner's stage (``stage=my_<stage>, found=...``) is no guess."""

from __future__ import annotations

import ast

import nbformat
import pytest
from test_chinese_notebooks import calls
from test_notebooks import BOTH, STAGE_NOTEBOOKS, WRITE_IT_YOURSELF, code_cells
from test_texts_zh import fields

from compact import texts as text_table
from compact.classroom import reveal, solutions
from compact.classroom.reveal import CHECK_CLAIMS, CLAIMS

LESSON_PARTS = [p for p in BOTH if p.name[:2] in {"00", "01", "02", "03", "04", "05"}]
UNCLAIMED = {"why.02.length", "why.04.turns"}    # exercises whose answer follows the learner's numbers


def key_fields(key: str) -> set[str]:
    entry = text_table.texts()[key]
    return {*fields(entry["en"]), *fields(entry["zh"])}


def reveal_calls(path) -> list[ast.Call]:
    """Every ``reveal(...)`` in the notebook's code cells (IPython's ``%`` lines left out)."""
    return [call for cell in code_cells(nbformat.read(path, as_version=4))
            for name, call in calls(cell.source) if name == "reveal"]


def keys_in(node: ast.AST) -> set[str]:
    """The string constants in ``node`` that are keys of the table."""
    table = text_table.texts()
    return {n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in table}


def hint(why: str) -> str:
    """The pitfall of a check line: ``why.NN.differs`` for a reveal ``why.NN.*`` given a stage."""
    return f"{why[:6]}.differs"


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


def keywords(call: ast.Call) -> set[str]:
    return {k.arg for k in call.keywords}


@pytest.mark.parametrize("path", BOTH, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_reveal_names_a_key_passes_exactly_its_fields_and_is_shown(path):
    """Issue #31: ``reveal(my_guess, actual, expected=25, ...)`` right after the guess gave the answer
    away; the claim is looked up by its ``why`` key instead, and still checked under the suite. The
    run with ``my_<stage>`` is checked against the package's in one reveal (its check line)."""
    calls = reveal_calls(path)
    assert calls, f"{path.name} has no reveal"
    for call in calls:
        why, inner = used_keys(call)
        where = f"{path.name} line {call.lineno}, {why}"
        passed = keywords(call) - {"why", "expected", "stage"}
        wanted = key_fields(why).union(*(key_fields(k) for k in inner))
        if "stage" in keywords(call):      # the check line: found, and its hint's fields
            wanted |= {"found"} | key_fields(hint(why))
        assert passed == wanted, f"{where}: passes {sorted(passed)}, its texts use {sorted(wanted)}"
        assert len(call.args) == 2, f"{where}: reveal(guess, actual, ...)"
        if path in LESSON_PARTS:
            assert "expected" not in keywords(call), where
            assert (why in CLAIMS) != (why in UNCLAIMED), f"{where} has no claim"
    for cell in code_cells(nbformat.read(path, as_version=4)):
        assert unseen_reveals(cell.source) == [], f"a reveal that shows nothing, in:\n{cell.source}"
    if path in STAGE_NOTEBOOKS:
        checked = [call for call in calls if "stage" in keywords(call)]
        assert len(checked) == 1, f"{path.name}: {len(checked)} reveals check the learner's run"
        given = {k.arg: k.value for k in checked[0].keywords}
        stage = WRITE_IT_YOURSELF[path.name[:2]]
        assert isinstance(given["stage"], ast.Name) and given["stage"].id == f"my_{stage}"
        assert "found" in given


def test_every_explanation_is_used():
    """Its fields in both languages: tests/test_texts_zh.py checks every key of the table; here, that
    the notebooks' keys are all there, with no key left that no notebook uses."""
    used, hints = set(), set()
    for path in BOTH:
        for call in reveal_calls(path):
            why, inner = used_keys(call)
            used |= {why} | inner
            hints |= {hint(why)} if "stage" in keywords(call) else set()
    registered = {key for key in text_table.texts() if key.startswith("why.")}
    otherwise = {key for key in registered if key.endswith(".otherwise")}
    assert {key.removesuffix(".otherwise") for key in otherwise} <= used   # shown when a run differs
    differs = {key for key in registered if key.endswith(".differs")}     # a check line's pitfall
    assert differs == hints
    assert used == registered - otherwise - differs


def test_every_claim_belongs_to_a_reveal_of_notebooks_00_to_05():
    used = {used_keys(call)[0] for path in LESSON_PARTS for call in reveal_calls(path)}
    assert set(CLAIMS) == used - UNCLAIMED


@pytest.fixture
def english(monkeypatch):
    """English for one test, whatever was chosen before (which comes back afterwards)."""
    monkeypatch.setattr(text_table, "_chosen", [])
    text_table.language("en")
    yield
    text_table.language("en")


def test_a_key_and_a_field_that_is_a_key_are_shown_in_the_chosen_language(english):
    """A plain ``why`` is shown as given, in either language."""
    shown = reveal(4, 3, why="why.00.refused_turn", turn=3, size=254_886, tokens=63_722, window=16_000)
    refused = reveal([], [], why="why.04.turns", limit=80_000, outcome="why.04.refused",
                     error="prompt is too long: 17,000 tokens > 16,000 maximum")
    finished = reveal(..., [5], why="why.04.turns", limit=30_000, outcome="why.04.finished", error=None)
    assert shown.lines() == [
        "✗ You predicted 4: it is 3.",
        "Why: each turn reads one whole code file and keeps it: turn 3 would have sent both files: the "
        "whole message list, as JSON, 254,886 chars; the model counts the whole request (messages, system "
        "prompt and tools) as 63,722 tokens, over its 16,000-token window"]
    assert refused.lines()[1].endswith("1–3; this run was refused: prompt is too long: 17,000 tokens "
                                       "> 16,000 maximum")
    assert finished.lines()[1].endswith("over 30,000 chars after stages 1–3; this run finished")
    assert reveal(1, 1, why="because {it} is {so}").lines() == ["✓ You predicted 1: it is 1.",
                                                                 "Why: because {it} is {so}"]
    assert reveal(1, 1).lines() == ["✓ You predicted 1: it is 1."]
    assert reveal(13_000, 13_997).lines() == ["✗ You predicted 13,000: it is 13,997."]   # as the text writes
    assert reveal(True, True).lines() == ["✓ You predicted True: it is True."]
    text_table.language("zh")
    assert shown.lines()[1] == ("原因：每一轮都读入一个完整的代码文件并把它留在上下文中，因此"
                                "第 3 轮本要带上两个文件，整个消息列表（按 JSON 计）共 254,886 个字符；"
                                "整个请求（消息、system 提示词和工具）模型算作 63,722 个 token，"
                                "超出了它 16,000 token 的窗口。")
    assert "第 3 轮" in shown._repr_html_()
    assert refused.lines()[1].endswith("这次运行被拒绝了：prompt is too long: 17,000 tokens > 16,000 maximum")
    assert finished.lines()[1].endswith("第四步就会触发；这次运行完成了。")
    assert reveal(1, 2, why="as written").lines()[1] == "原因：as written"


def test_the_claim_is_still_checked_with_a_key(english, monkeypatch):
    monkeypatch.setenv(CHECK_CLAIMS, "1")
    with pytest.raises(AssertionError, match="the notebook says it is 2"):
        reveal(1, 3, why="why.03.placeholders")            # the claim, 2, comes from the table
    with pytest.raises(AssertionError, match="the notebook says it is 4"):
        reveal(1, 3, expected=4, why="why.03.placeholders")    # one given in the call comes first
    assert "a.cfg and b.cfg" in str(reveal(2, 2, why="why.03.placeholders"))


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


def test_a_reveal_before_the_last_line_is_caught_unless_displayed():
    assert unseen_reveals("reveal(a, b)\nplot()") == [1]
    assert unseen_reveals("display(reveal(a, b))\nplot()") == unseen_reveals("show(reveal(a))\nf()") == []
    assert unseen_reveals("x = 1\nreveal(a, b)") == []


def test_the_explanation_follows_the_result(english, monkeypatch):
    """A run that went another way gets the explanation of what happened, never the one of the
    claimed result; a key without an ``.otherwise`` text says it does not apply."""
    monkeypatch.delenv(CHECK_CLAIMS, raising=False)
    holds = reveal(True, True, why="why.03.titles")
    differs = reveal(True, False, why="why.03.titles")
    unknown = reveal(..., 3, why="why.03.placeholders")
    assert holds.outcome == "holds" and "one-line note about each file" in str(holds)
    assert differs.outcome == "otherwise" and "one-line note" not in str(differs)
    assert "with your stage the answer misses some titles" in str(differs)
    assert unknown.outcome == "unexpected" and "does not apply" in str(unknown)
    assert "data-outcome='otherwise'" in differs._repr_html_()


def test_the_check_line_says_whose_stage_ran_and_whether_it_matched(english, monkeypatch):
    """Issue #31: on a first Run All the stub cell imports the worked solution, so "will your run be
    the same?" was True by construction. The prediction is now about the lesson; the comparison is
    a check line after it: the worked solution ran, or your stage matched, or where it differs and
    the notebook's pitfall. The prediction's own outcome does not depend on it."""
    monkeypatch.delenv(CHECK_CLAIMS, raising=False)

    def mine(messages, ctx):
        return solutions.micro_compact(messages, ctx)

    ran = reveal(..., 3, why="why.03.at_end", stage=solutions.micro_compact, found="")
    own = reveal(3, 3, why="why.03.at_end", stage=mine, found="")
    differs = reveal(3, 3, why="why.03.at_end", stage=mine, found="turn 5: yours sent 9,000")
    cut = reveal(4, 4, why="why.02.first_snip", turn=4, before=51, stage=mine, found=True,
                 step="why.02.cut_elsewhere")
    plain = reveal(3, 3, why="why.03.at_end")
    assert ran.lines()[-1].startswith("Check: the worked solution ran, not yours")
    assert "data-check='solution'" in ran._repr_html_() and "data-check" not in plain._repr_html_()
    assert own.lines()[-1] == ("Check: your stage sent the model the same messages as the package's, "
                               "turn by turn")
    assert differs.lines()[-1].startswith("Check: the stage you passed in made another run than the "
                                          "package's: turn 5: yours sent 9,000. Check how many results")
    assert differs.outcome == "holds" and "data-check='differs'" in differs._repr_html_()
    assert cut.lines()[-1].startswith("Check: the stage you passed in cut somewhere else")
    assert plain.check is None and len(plain.lines()) == 2
    text_table.language("zh")
    assert ran.lines()[-1].startswith("检查：运行的是参考答案，不是你写的")
