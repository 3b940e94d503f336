"""The readable views: tool calls as calls, a compacted message as its two sections, tables."""

import unicodedata

import pytest

from compact import compacted_message
from compact.classroom.experiments import Runs, run_experiment
from compact.classroom.show import (
    Compacted,
    History,
    Table,
    Text,
    call_text,
    calls_text,
    leading_notes,
    rows,
    turns,
)
from compact.classroom.stage_cases import tool_turn


def test_tool_calls_read_as_calls_not_tuples_and_rows_read_block_contents():
    assert call_text("read_file", {"path": "a.cfg"}) == 'read_file(path="a.cfg")'
    assert call_text("compact", {}) == "compact()"
    assert calls_text([("glob", {"pattern": "s*/README.md"}), ("bash", {"command": "ls -1"})]) \
        == 'glob(pattern="s*/README.md"), bash(command="ls -1")'
    assert calls_text([]) == "—"
    history = [{"role": "user", "content": "go"}, *tool_turn(("t1", "a.cfg", "x" * 300))]
    assert rows(history)[1][4] == 'read_file(path="a.cfg")'
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                           "content": [{"type": "text", "text": "hello"}]}]}
    assert rows([result])[0][3:] == (5, "hello")              # a result's content as blocks too


def test_a_compacted_message_shows_its_two_sections_decoded():
    summary = 'Goal: compare.\n"quoted" and 字'
    view = Compacted(compacted_message("[Compacted]", "Compare a.py and b.py.", summary))
    assert (view.header, view.request, view.summary) == ("[Compacted]", "Compare a.py and b.py.", summary)
    text = str(view)
    assert text.splitlines()[:3] == ["[Compacted]", "┌─ Authoritative request:", "│ Compare a.py and b.py."]
    assert "│ \"quoted\" and 字" in text and "\\n" not in text          # decoded, not escaped
    page = view._repr_html_()
    assert "Authoritative request:" in page and "&quot;quoted&quot; and 字" in page
    with pytest.raises(ValueError, match="not a compacted message"):
        Compacted({"role": "user", "content": "hello"})
    blocks = [{"type": "text", "text": compacted_message("[Compacted]", "req", "sum")["content"]}]
    assert Compacted({"role": "user", "content": blocks}).request == "req"     # the text as blocks too


def test_tables_render_as_html_and_text():
    table = Table(["name", "chars"], [("a <b>", 1_234)], title="T")
    assert "a &lt;b&gt;" in table._repr_html_() and "1,234" in table._repr_html_()
    assert str(table).splitlines() == ["T", "name   chars", "-----  -----", "a <b>  1,234"]
    numbers = Table(["name", "chars"], [("a", "1,234"), ("bb", "5")], numeric=[1])
    assert str(numbers).splitlines()[2:] == ["a     1,234", "bb        5"]
    assert "<td style='padding:2px 8px;text-align:left;vertical-align:top;text-align:right" \
        in numbers._repr_html_()
    chinese = str(Table(["策略", "输入 token"], [["none", "87,016"], ["管线 pipeline", "1"]], numeric=[1]))
    wide = [sum(2 if unicodedata.east_asian_width(c) == "W" else 1 for c in line)   # as a terminal
            for line in chinese.splitlines()]                                       # draws them
    assert wide == [25] * 4 and chinese.splitlines()[2].startswith("none           ")
    assert chinese.endswith("  1")
    history = History([{"role": "user", "content": "hi"}])
    assert "<td" in history._repr_html_() and "user" in str(history)


def test_a_runs_turns_table_has_one_row_per_turn(tmp_path):
    result = run_experiment(1, workdir=tmp_path / "e1")
    table = turns(result)
    assert len(table.rows) == len(result.trace.turns)
    assert table.rows[0][-1] == 'glob(pattern="s*/README.md")'
    assert table.rows[-1][5] == "micro_compact"


def test_runs_and_fresh_demo_courses_land_in_numbered_folders_of_runs_dir(tmp_path):
    first = run_experiment(2, workdir=Runs(tmp_path / "runs"))
    second = run_experiment(2, workdir=Runs(tmp_path / "runs"))
    base = run_experiment(3, compaction=False, workdir=Runs(tmp_path / "runs"))
    assert [p.name for p in (first.workdir, second.workdir, base.workdir)] == \
        ["experiment2-1", "experiment2-2", "baseline3-1"]
    assert first.tool_results[0].parent.parent.parent == first.workdir
    runs = Runs(tmp_path / "runs")
    one, two = runs.course("loop"), runs.course("loop")
    assert [one.name, two.name] == ["loop-1", "loop-2"]
    assert (one / "s08_context_compact" / "code.py").is_file()
    assert sorted(p.relative_to(one) for p in one.rglob("*")) == \
        sorted(p.relative_to(two) for p in two.rglob("*"))


def test_an_offline_answer_shows_what_it_says_first_and_its_notes_folded(tmp_path):
    result = run_experiment(3, workdir=tmp_path)
    notes, rest = leading_notes(result.answer)
    assert notes and all(line.startswith("Note [") for line in notes)   # its note on the last read
    assert rest.startswith("(offline model)") and result.answer == "\n".join([*notes, rest])
    page = Text(result.answer)._repr_html_()
    assert page.index("<details><summary>the model&#x27;s notes") < page.index("</details>") \
        < page.index("(offline model)")                                   # folded, and closed first
    chinese = "笔记 [a.md]：一级标题\n（离线模型）回答"
    assert leading_notes(chinese) == (["笔记 [a.md]：一级标题"], "（离线模型）回答")
    assert leading_notes("Note [a]: only a note") == ([], "Note [a]: only a note")   # nothing else
    assert leading_notes("(offline model) no notes") == ([], "(offline model) no notes")
