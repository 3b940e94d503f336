"""The text catalogs (compact/locale/, read by compact/texts.py) in both languages: the same keys,
every key has English and Chinese with the same fields, and in Chinese the lab, every plot and
stage picture, show() of a run, the checker's report and the REPL's banner show no English, and
draw with no missing-glyph warning.

English is a run of two or more plain ASCII words, once identifiers, paths, numbers and units (a
token with ``_ / . = ( ) [ ] { } :`` or a digit) and the English the messages carry (``KEPT``) are
taken out."""

from __future__ import annotations

import io
import re
import string
import subprocess
import sys
import warnings

import pytest
from bs4 import BeautifulSoup
from matplotlib.text import Text
from test_exercises import stub

from compact import __main__ as repl
from compact import texts as text_table
from compact.classroom import check, run_experiment
from compact.classroom.lab import Lab, lab_figure
from compact.classroom.plot import headline, plot_run
from compact.classroom.show import turns
from compact.classroom.stage_cases import cases
from compact.classroom.stage_picture import plot_stage
from compact.classroom.strategy_plot import plot_costs, plot_retention, plot_summaries
from compact.classroom.strategy_tables import api_table, cost_table, probe_table, strategy_table
from compact.pipeline.formats import AUTHORITATIVE, REFERENCE
from compact.study.api_session import API_STRATEGIES, run_api_session
from compact.study.strategies import STRATEGIES, compare
from compact.study.workload import PROBES, session_turns
from tools.figure_check import figure_problems
from tools.figures import stage_examples

KEPT = [   # English the messages themselves carry (the API's error, the formats' own headers)
    re.compile(r"prompt is too long[^\n]*"),     # the API's refusal, verbatim
    re.compile(re.escape(AUTHORITATIVE)), re.compile(re.escape(REFERENCE)),
    re.compile(r"\[snipped \d+ messages\]"), re.compile(r"\[Reactive compact\]"),
]
TECHNICAL = re.compile(r"\S*[_/.=()\[\]{}:\d]\S*")    # identifiers, paths, numbers, calls
ENGLISH = re.compile(r"\b[A-Za-z]+(?: [A-Za-z]+)+\b")


def english_in(text: str) -> list[str]:
    for kept in KEPT:
        text = kept.sub(" ", text)
    return ENGLISH.findall(TECHNICAL.sub(" ", text))


def english(texts) -> list[str]:
    return [e for t in texts for e in english_in(t)]


def chinese_in(texts) -> bool:
    return any(re.search("[\u4e00-\u9fff]", t) for t in texts)


def test_the_detector_finds_english_and_leaves_what_is_kept():
    assert english_in("第 3 轮：nothing to do") == ["nothing to do"]
    assert english_in("micro_compact：把 1 条 tool_result 替换 · read_file(path=\"a b.txt\")") == []
    assert english_in("被拒绝：prompt is too long: 212,000 tokens > 200,000 maximum") == []
    assert english_in("[离线] 模型 offline-compact-1：不是 Claude；设置 ANTHROPIC_API_KEY") == []


@pytest.fixture
def chinese(monkeypatch):
    monkeypatch.setattr(text_table, "_chosen", [])
    text_table.language("zh")
    yield
    assert text_table.language() == "zh"


def fields(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def test_the_catalogs_have_the_same_keys():
    """In the same order too, so a translator reads them side by side."""
    catalogs = [text_table.CATALOGS[lang] for lang in text_table.LANGUAGES]
    assert len(catalogs[0]) > 600 and all(list(c) == list(catalogs[0]) for c in catalogs)


def test_every_key_has_both_languages_with_the_same_fields_and_the_chinese_is_chinese():
    """Both languages of every key: the catalogs have the same keys (the test above). The offline
    model's phrases (``offline.``) are checked in tests/test_offline_chinese.py."""
    table = {key: entry for key, entry in text_table.texts().items() if not key.startswith("offline.")}
    assert len(table) > 200
    for key, entry in table.items():
        assert entry["en"].strip() and entry["zh"].strip(), key
        assert fields(entry["en"]) == fields(entry["zh"]), key
        assert english_in(entry["zh"]) == [], (key, entry["zh"])
        if re.search("[A-Za-z]{3}", entry["en"]) and entry["en"] != entry["zh"]:
            assert chinese_in([entry["zh"]]), key


def test_every_checker_case_strategy_and_probe_has_a_chinese_name_keyed_by_its_english():
    keys = text_table.texts()
    for stage in ("tool_result_budget", "snip_compact", "micro_compact", "compact_history",
                  "reactive_compact"):
        for case in cases(stage):
            assert f"case.{case.name}" in keys, case.name
    named = [f"study.strategy.{s.description}" for s in [*STRATEGIES, *API_STRATEGIES]]
    assert set(named + [f"study.probe.{p.name}" for p in PROBES]) <= set(keys)
    for key, entry in keys.items():
        for prefix in ("notebook.", "case.", "study.probe.", "study.strategy."):
            if key.startswith(prefix) and not key.startswith("case.source."):
                assert entry["en"] == key.removeprefix(prefix), key


def figure_texts(fig, data: re.Pattern | None = None) -> list[str]:
    """The texts ``fig`` shows (``data`` taken out), once it is drawn as a PNG with no warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(io.BytesIO(), format="png")
    assert [str(w.message) for w in caught] == []
    shown = [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return [data.sub(" ", t) for t in shown] if data else shown


@pytest.mark.parametrize("n, compaction", [(1, True), (2, True), (3, True), (3, False)],
                         ids=["experiment 1", "experiment 2", "experiment 3", "baseline"])
def test_every_plot_and_turns_table_in_chinese_has_no_english_and_every_glyph(chinese, tmp_path, n,
                                                                              compaction):
    result = run_experiment(n, compaction=compaction, workdir=tmp_path / "run")
    figures = [plot_run(result, panels=("context", "tokens", "messages", "composition")),
               lab_figure(result)]
    for fig in figures:
        shown = figure_texts(fig)
        assert len(shown) > 15 and chinese_in(shown) and english(shown) == []
    table = turns(result)                    # show() of the run, and the language looked up when shown
    assert table.headers[0] == "轮次"
    assert english_in(str(table)) == [] and english_in(html_text(table._repr_html_())) == []
    if (n, compaction) == (3, True):         # in English: test_plot's titles
        assert "compact_history 在第 3 轮" in headline(result)


def test_every_stage_picture_in_chinese_has_no_english_and_every_glyph(chinese, tmp_path):
    for stage, (before, after, event) in stage_examples(tmp_path).items():
        shown = figure_texts(plot_stage(before, after, event))
        assert english(shown) == [] and any("条消息" in t for t in shown), stage


def html_text(markup: str, drop: tuple[str, ...] = ()) -> str:
    soup = BeautifulSoup(markup, "html.parser")
    for tag in soup.select(", ".join(drop)) if drop else []:
        tag.decompose()
    return soup.get_text(" ")


def test_the_checker_report_on_a_wrong_stage_in_chinese(chinese):
    for report in (check("snip_compact", lambda messages, ctx: messages), check("micro_compact", stub)):
        assert not report.passed
        assert "中通过" in str(report) and "✗ [课程]" in str(report)
        assert english_in(str(report)) == [], str(report)
        assert english_in(html_text(report._repr_html_())) == []


def lab_texts(lab: Lab) -> list[str]:
    """What the dashboard shows in words, but the run's content (the answer, messages' previews)."""
    shown = [text for b in [*lab.buttons, lab.reset, lab.clear] for text in (b.description, b.tooltip)]
    shown += [s.tooltip for s in lab.sliders.values()]
    shown += [lab.progress.description, lab.turn.description, *lab.tabs.titles]
    shown += [html_text(h.value, ("pre", "table")) for h in
              (lab.status, lab.state, lab.events, lab.answer, lab.files, lab.runs_kept, lab.inspector)]
    shown += [html_text(child.value, ("pre", "table")) for box in lab.tabs.children for child in box.children
              if hasattr(child, "value") and isinstance(child.value, str)]
    shown.append(lab._repr_mimebundle_()["text/plain"])
    return shown


def test_the_lab_in_chinese(chinese, tmp_path):
    lab = Lab(root=tmp_path / "runs")
    assert english(lab_texts(lab)) == []
    for n, compaction in ((1, True), (3, False)):
        lab.run(n, compaction=compaction)
        lab.sliders["max_messages"].value += 1          # the "sliders have changed" note
        shown = lab_texts(lab)
        assert any("第 1 轮" in t or "步骤事件" in t for t in shown) and english(shown) == [], shown


def test_the_repl_banner_in_chinese_with_lang_zh_and_after_language_zh(chinese, capsys, tmp_path,
                                                                          monkeypatch):
    """A Chinese notebook starts `python -m compact` without --lang: its banner is Chinese too."""
    done = subprocess.run([sys.executable, "-m", "compact", "--workdir", str(tmp_path)], input="q\n",
                          capture_output=True, text=True, timeout=60)
    monkeypatch.setattr(text_table, "_chosen", [])                 # now --lang alone chooses
    monkeypatch.delenv("COMPACT_LANG", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert repl.main(["--workdir", str(tmp_path), "--lang", "zh"]) == 0
    for out in (capsys.readouterr().out, done.stdout):
        assert out.startswith("[离线] 模型 offline-compact-1") and "工作区：" in out
        assert english_in(out) == [], out


# The strategies' names are the code's (``by_name["micro only"]``), shown as they are.
STRATEGY_NAMES = re.compile("|".join(re.escape(s.name) for s in [*STRATEGIES, *API_STRATEGIES]))


def test_the_studys_plots_and_tables_in_chinese(chinese, tmp_path):
    """Notebooks 07 and 08, drawn with every glyph and inside the figure; the strategies' names and
    the session's own text (its requests, the facts' exact words) are data, left out."""
    turns = session_turns()[:12]
    reports = compare(tmp_path / "compare", turns=turns)
    api = {s.name: run_api_session(s, workdir=tmp_path / s.name.replace(" ", "-"), turns=turns)
           for s in API_STRATEGIES}
    for fig in (plot_costs(reports), plot_retention(reports).figure,
                plot_summaries(reports[1:2], cap=6_000).figure):
        shown = figure_texts(fig, STRATEGY_NAMES)
        assert figure_problems(fig) == [] and chinese_in(shown) and english(shown) == [], shown
    probes = probe_table()
    for table in (cost_table(reports), api_table(api), strategy_table(STRATEGIES), probes):
        words = [table.title or "", *table.headers,
                 *(cell for row in table.rows for k, cell in enumerate(row) if table is not probes or k == 2)]
        assert english(STRATEGY_NAMES.sub(" ", str(w)) for w in words) == [], words
    assert cost_table(reports).headers[-1] == "探针：上下文 / 存档 / 工作区 / 丢失"
