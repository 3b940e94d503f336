"""The long workload, the strategies on it, the cache-aware costs and the probe retention."""

from functools import partial

import pytest

from compact import Compactor
from compact.classroom.strategy_plot import (
    CUT_OFF,
    lost_to_a_cut,
    plot_costs,
    plot_retention,
    plot_strategies,
    plot_summaries,
)
from compact.classroom.strategy_tables import cost_table, probe_table, strategy_table, table
from compact.extensions import micro_compact_above
from compact.offline import OfflineModel
from compact.pipeline.messages import iter_tool_results, result_text
from compact.study.retention import PLACES, retention
from compact.study.strategies import (
    CACHE_FRIENDLY,
    STRATEGIES,
    TOOL_OUTPUT_CAP,
    Strategy,
    compare,
    run_session,
)
from compact.study.workload import PROBES, Probe, make_long_workspace, session_turns
from tools.figure_check import figure_problems

NONE = STRATEGIES[0]


def test_workload_is_deterministic_and_has_100_turns(tmp_path):
    assert session_turns() == session_turns() and len(session_turns()) == 100
    a, b = make_long_workspace(tmp_path / "a"), make_long_workspace(tmp_path / "b")
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    assert (a / "logs/access.log").stat().st_size > 200_000          # over the batch budget


@pytest.mark.parametrize("probe", PROBES, ids=[p.name for p in PROBES])
def test_each_probe_enters_the_context_at_its_turn(reports, probe):
    """In the uncompacted history, the first message holding the probe belongs to its turn."""
    history = reports["none"].messages
    requests = set(session_turns())
    first = next(i for i, m in enumerate(history) if probe.text in str(m["content"]))
    turn = sum(1 for m in history[:first + 1]
               if isinstance(m["content"], str) and m["content"] in requests)
    assert turn == probe.turn


def test_retention_context_archive_workspace_and_lost(tmp_path):
    probe = Probe("secret port", "port 61234", 1)
    compactor = Compactor(tmp_path, summarize=lambda m: "s")
    big = "x" * 250_000 + " port 61234 " + "y" * 10
    (tmp_path / "big.log").write_text(big)
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                                   "input": {"command": "cat big.log"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": big}]}]
    assert retention([probe], messages, tmp_path) == {"secret port": "context"}
    persisted = compactor.tool_result_budget(messages)
    assert "port 61234" not in str(persisted)                        # only the path + preview
    assert retention([probe], persisted, tmp_path) == {"secret port": "archive"}
    no_archive = persisted[:2]                    # the archive's path left, big.log is named
    assert retention([probe], no_archive, tmp_path) == {"secret port": "workspace"}
    assert retention([probe], persisted[:1], tmp_path) == {"secret port": "lost"}


def test_an_archive_chain_is_followed_but_not_into_workspace_files(tmp_path):
    (tmp_path / ".transcripts").mkdir()
    (tmp_path / ".transcripts/transcript-0002.jsonl").write_text(
        "see .transcripts/transcript-0001.jsonl and notes.md")
    (tmp_path / ".transcripts/transcript-0001.jsonl").write_text("the tag is v9")
    (tmp_path / "notes.md").write_text("the port is 7")
    context = [{"role": "user", "content": "state in .transcripts/transcript-0002.jsonl"}]
    found = retention([Probe("tag", "tag is v9", 1), Probe("port", "port is 7", 1)], context,
                      tmp_path)
    assert found == {"tag": "archive", "port": "lost"}    # notes.md is not named in context


def test_paths_outside_the_workdir_are_never_followed(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("port 61234")
    inside = tmp_path / "work"
    inside.mkdir()
    messages = [{"role": "user", "content": f"see ../outside.txt and {outside}"}]
    probe = Probe("p", "port 61234", 1)
    assert retention([probe], messages, inside) == {"p": "lost"}


def test_micro_only_is_micro_compact_waiting_for_its_trigger(tmp_path):
    """The context-editing analogue is the lesson's micro_compact behind a trigger, not a subclass."""
    micro_only = next(s for s in STRATEGIES if s.name == "micro only")
    messages = [{"role": "user", "content": "go"}]
    for k in range(6):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"c{k}",
                                                        "name": "bash", "input": {}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"c{k}",
                                                   "content": "z" * 4_000}]}]
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
    compactor = micro_only.build(tmp_path, OfflineModel().client())
    assert type(compactor) is Compactor and compactor.stages == {"micro_compact"}
    assert compactor.prepare(messages, "go") == messages                 # under 400,000 chars
    assert not compactor.events[-1].fired

    def waiting(trigger):
        return Compactor(tmp_path, stages=("micro_compact",),
                         functions={"micro_compact": partial(micro_compact_above, trigger)})
    low = waiting(1_000)
    cleared = low.prepare(messages, "go")
    assert low.events[-1].placeholders == 3                           # all but the newest 3
    assert waiting(30_000).prepare(messages, "go") == messages          # 24,000+ chars < 30,000
    assert cleared != messages


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    seen = []
    mp = pytest.MonkeyPatch()
    mp.setenv("COMPACT_STUDY_CACHE", "off")         # replayed here, never loaded
    try:
        reports = compare(tmp_path_factory.mktemp("compare"), workers=2,
                          progress=lambda *update: seen.append(update))
    finally:
        mp.undo()
    assert len(seen) == len(STRATEGIES) * 100 and seen.count(("none", 100, 100)) == 1
    return {r.strategy: r for r in reports}


def test_pipeline_saves_at_least_85_percent_of_input_tokens(reports):
    none, pipeline = reports["none"], reports["pipeline"]
    assert pipeline.input_tokens <= 0.15 * none.input_tokens
    assert pipeline.peak_size < 60_000 < none.peak_size
    assert pipeline.summary_calls >= 1 and none.summary_calls == 0


def test_archiving_keeps_every_probe_in_context_or_an_archive(reports):
    assert set(reports["archiving"].retention.values()) <= {"context", "archive"}
    assert reports["archiving"].input_tokens <= 0.15 * reports["none"].input_tokens


def test_no_compaction_keeps_everything_in_context_at_full_cost(reports):
    assert set(reports["none"].retention.values()) == {"context"}
    for name in ("micro only", "summary only", "pipeline", "archiving", "cache-friendly"):
        assert reports[name].input_tokens < reports["none"].input_tokens
    assert reports["summary only"].summary_calls >= 1


def test_tool_output_is_capped_as_the_lessons_tools_cap_it(reports):
    longest = max(len(result_text(b)) for _, _, b in iter_tool_results(reports["none"].messages))
    assert TOOL_OUTPUT_CAP < longest <= TOOL_OUTPUT_CAP + 100     # the cap and its notice


def test_each_probe_enters_the_context_once(reports):
    """No later turn re-reads a probe's file or reruns its command: user-side text (requests
    and tool results) holds each probe exactly once in the uncompacted history."""
    history = reports["none"].messages
    user_texts = [m["content"] for m in history if isinstance(m["content"], str)]
    user_texts += [result_text(b) for _, _, b in iter_tool_results(history)]
    for probe in PROBES:
        assert sum(probe.text in t for t in user_texts) == 1, probe.name


def test_the_cache_friendly_strategy_costs_least_with_caching_and_keeps_every_fact(reports):
    friendly = reports["cache-friendly"]
    assert friendly.cost() < reports["pipeline"].cost()
    assert friendly.cost() < reports["micro only"].cost()
    assert friendly.cost() <= 1.5 * friendly.floor()       # near what caching could give at best
    assert set(friendly.retention.values()) <= {"context", "archive"}
    assert friendly.retention["user constraint (turn 2)"] == "context"   # never dropped


def test_the_lessons_pipeline_pays_for_rewriting_its_prompt(reports):
    pipeline, none = reports["pipeline"], reports["none"]
    assert pipeline.cost() > 2 * pipeline.floor()           # its prefix breaks call after call
    assert none.cost() == pytest.approx(none.floor(), rel=0.02)   # append-only: at the floor
    assert pipeline.ledger.share_read() < reports["cache-friendly"].ledger.share_read()


def test_the_bounded_summary_does_not_grow(reports):
    summaries = reports["cache-friendly"].summaries
    assert len(summaries) >= 3
    assert len(summaries[-1]) <= len(summaries[0]) + CACHE_FRIENDLY["summary_max_chars"]
    assert max(len(s) for s in summaries) <= CACHE_FRIENDLY["summary_max_chars"]
    lesson = reports["pipeline"].summaries                  # re-summarised, it grows until the
    assert len(lesson[-1]) > len(lesson[0])                 # summary call's max_tokens cuts it
    assert max(map(len, lesson)) > CACHE_FRIENDLY["summary_max_chars"]


def test_the_summary_plot_puts_each_summary_at_its_user_turn(reports):
    chosen = [reports["pipeline"], reports["cache-friendly"]]
    for report in chosen:                                   # one turn per summary, in order
        assert len(report.summary_turns) == len(report.summaries)
        assert report.summary_turns == sorted(report.summary_turns) and 1 <= report.summary_turns[0]
        assert report.summary_turns[-1] <= len(report.cumulative_tokens)
    assert reports["none"].summary_turns == [] and len(reports["summary only"].summary_turns) == 1
    ax = plot_summaries(chosen, cap=CACHE_FRIENDLY["summary_max_chars"])
    lines = {line.get_gid(): line for line in ax.get_lines()}
    pipeline = lines["summaries:pipeline"]
    assert list(pipeline.get_xdata()) == reports["pipeline"].summary_turns
    assert list(pipeline.get_ydata()) == [len(s) for s in reports["pipeline"].summaries]
    cut = [t for t, s in zip(reports["pipeline"].summary_turns, reports["pipeline"].summaries, strict=True)
           if CUT_OFF in s]
    assert cut and list(lines["cut:pipeline"].get_xdata()) == cut and "cut:cache-friendly" not in lines
    assert figure_problems(ax.figure, dpi=100) == []


def test_table_shows_both_costs_the_floor_and_every_strategy(reports):
    text = table(list(reports.values()))
    for name in reports:
        assert f"\n{name} " in text
    for column in ("input tokens", "saved", "cache-aware", "floor", "context / archive / workspace / lost"):
        assert column in text
    assert text.count("%") >= 2 * len(reports)


def test_the_html_tables_hold_every_strategy_and_probe(reports):
    costs = cost_table(list(reports.values()))
    page = costs._repr_html_()
    assert [row[0] for row in costs.rows] == list(reports)
    brief, full = page.split("<details>")            # five columns first, all twelve folded below
    assert brief.count("<tr>") == full.count("<tr>") == len(reports) + 1 and "text-align:right" in brief
    assert brief.count("<th") == 5 and full.count("<th") == len(costs.headers) == 12
    assert "cache-aware cost" in brief and "floor" not in brief and "÷ floor" in full
    assert costs.rows[0][2] == "0.0%" and costs.rows[0][-1] == f"{len(PROBES)} / 0 / 0 / 0"
    assert table(list(reports.values())).splitlines()[:-1] == str(costs).splitlines()
    named = strategy_table(STRATEGIES)
    assert [row[0] for row in named.rows] == [s.name for s in STRATEGIES]
    assert named.rows[0][2] == "none" and named.rows[2][2] == "micro_compact"
    assert named.rows[0][4] == "—" and named.rows[1][4] == "the lesson's"   # no stage: no number used
    assert named.rows[3][4] == "context_limit=600,000" and named.rows[5][3] == "ArchivingCacheFriendly"
    assert named.rows[5][4] == ", ".join(f"{k}={v:,}" for k, v in CACHE_FRIENDLY.items())
    planted = probe_table()
    assert [row[0] for row in planted.rows] == [p.turn for p in PROBES]
    assert all(row[1] == session_turns()[row[0] - 1] for row in planted.rows)
    assert planted.rows[0][1].endswith("never modify files under vendor/ in this session.")


def test_the_cost_plot_draws_every_strategy_distinguishably_in_both_counts(reports):
    figure = plot_costs(list(reports.values()))
    plain, cached = figure.axes[:2]
    for ax, measure in ((plain, "cumulative_tokens"), (cached, "cumulative_cost")):
        lines = {line.get_gid(): line for line in ax.get_lines()}
        assert set(lines) == {f"strategy:{name}" for name in reports}
        looks = {(ln.get_color(), ln.get_linestyle(), ln.get_marker()) for ln in lines.values()}
        assert len(looks) == len(reports)                    # no two lines look alike
        for name, report in reports.items():
            assert list(lines[f"strategy:{name}"].get_ydata()) == getattr(report, measure)
        assert ax.get_yscale() == "log"
    plain, cached = plot_costs(list(reports.values()), cost_scale="linear").axes[:2]
    assert (plain.get_yscale(), cached.get_yscale(), cached.get_ylim()[0]) == ("log", "linear", 0)
    with pytest.raises(ValueError, match="measure"):
        plot_strategies(list(reports.values()), measure="dollars")


def test_the_retention_chart_shows_each_probes_place(reports):
    ax = plot_retention(list(reports.values()))
    grid = ax.get_images()[0].get_array()
    texts = [t.get_text() for t in ax.texts]
    assert grid.shape == (len(PROBES), len(reports))
    for column, report in enumerate(reports.values()):
        for row, probe in enumerate(PROBES):
            assert PLACES[int(grid[row, column])] == report.retention[probe.name]
            assert texts[row * len(reports) + column].split("\n")[0] == report.retention[probe.name]
    cut = {(name, probe) for name, report in reports.items() for probe in report.retention
           if lost_to_a_cut(report, probe)}
    assert cut == {("pipeline", "decision written to a note (turn 80)")}      # labelled as the summariser's
    assert [t.get_text() for t in ax.get_xticklabels()][1] == "pipeline\n(50k chars)"


def test_notebook_07s_exercise_2_the_pipeline_without_snip(reports, tmp_path):
    """The answer key: it keeps the user's constraint, sends more, costs less with caching."""
    pipeline = reports["pipeline"]
    stages = tuple(s for s in STRATEGIES[1].stages if s != "snip_compact")
    mine = run_session(Strategy("no snip", "the pipeline without snip_compact", stages=stages), tmp_path)
    assert (mine.input_tokens, round(mine.cost()), mine.summary_calls) == (1_110_436, 518_475, 11)
    assert (pipeline.input_tokens, round(pipeline.cost()), pipeline.summary_calls) == (1_033_244, 616_668, 9)
    assert round(mine.ledger.share_read(), 2) == 0.71 and round(pipeline.ledger.share_read(), 2) == 0.59
    assert mine.places() == {"context": 5, "archive": 0, "workspace": 2, "lost": 1}
    assert mine.retention["user constraint (turn 2)"] == "context"
    lost = [probe for probe, place in mine.retention.items() if place == "lost"]
    assert lost == ["decision written to a note (turn 80)"]


def test_sessions_in_worker_processes_give_the_same_reports(tmp_path):
    turns = session_turns()[:12]
    one = compare(tmp_path / "one", turns, STRATEGIES[:3])
    two = compare(tmp_path / "two", turns, STRATEGIES[:3], workers=2)
    assert [table(one).splitlines()[2:]] == [table(two).splitlines()[2:]]
    assert [r.retention for r in one] == [r.retention for r in two]


def test_a_failing_session_in_a_worker_is_raised(tmp_path):
    broken = Strategy("broken", "an unknown stage", stages=("no_such_stage",))
    with pytest.raises(ValueError, match="unknown stage"):
        compare(tmp_path, session_turns()[:2], [STRATEGIES[0], broken], workers=2)
