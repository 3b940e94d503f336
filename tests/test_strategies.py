"""The study: the long workload, the strategies on it, the cache-aware costs, the probe retention,
the prompt-caching ledger and the remembered sessions."""

import pickle
import shutil
from dataclasses import dataclass
from functools import partial

import pytest
from histories import session, tool_turn, user

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
from compact.client import default_model
from compact.extensions import micro_compact_above
from compact.offline import OfflineModel
from compact.offline.api import estimate_tokens
from compact.pipeline.messages import iter_tool_results, result_text
from compact.pipeline.summary import SUMMARY_SYSTEM
from compact.study import api_session, remembered
from compact.study.api_session import API_STRATEGIES, ApiStrategy
from compact.study.caching import CacheLedger, Pricing, RecordingClient
from compact.study.retention import PLACES, retention
from compact.study.strategies import (
    CACHE_FRIENDLY,
    STRATEGIES,
    TOOL_OUTPUT_CAP,
    Strategy,
    compare,
    rememberable,
    run_session,
)
from compact.study.workload import PROBES, Probe, make_long_workspace, session_turns
from tools.figure_check import figure_problems

PIPELINE = STRATEGIES[1]


def test_workload_is_deterministic_and_has_100_turns(tmp_path):
    assert session_turns() == session_turns() and len(session_turns()) == 100
    a, b = make_long_workspace(tmp_path / "a"), make_long_workspace(tmp_path / "b")
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    assert (a / "logs/access.log").stat().st_size > 200_000          # over the batch budget


def test_retention_context_archive_workspace_and_lost(tmp_path):
    probe = Probe("secret port", "port 61234", 1)
    big = "x" * 250_000 + " port 61234 " + "y" * 10
    (tmp_path / "big.log").write_text(big)
    messages = [user("go"), *tool_turn([big], name="bash")]
    messages[1]["content"][0]["input"] = {"command": "cat big.log"}
    assert retention([probe], messages, tmp_path) == {"secret port": "context"}
    persisted = Compactor(tmp_path, summarize=lambda m: "s").tool_result_budget(messages)
    assert "port 61234" not in str(persisted)                        # only the path + preview
    assert retention([probe], persisted, tmp_path) == {"secret port": "archive"}
    no_archive = persisted[:2]                    # the archive's path left, big.log is named
    assert retention([probe], no_archive, tmp_path) == {"secret port": "workspace"}
    assert retention([probe], persisted[:1], tmp_path) == {"secret port": "lost"}
    # an archive chain is followed, but not into workspace files the context does not name,
    # nor to paths outside the workdir
    work = tmp_path / "work"
    (work / ".transcripts").mkdir(parents=True)
    (work / ".transcripts/transcript-0002.jsonl").write_text(
        "see .transcripts/transcript-0001.jsonl and notes.md")
    (work / ".transcripts/transcript-0001.jsonl").write_text("the tag is v9")
    (work / "notes.md").write_text("the port is 7")
    context = [user("state in .transcripts/transcript-0002.jsonl")]
    found = retention([Probe("tag", "tag is v9", 1), Probe("port", "port is 7", 1)], context, work)
    assert found == {"tag": "archive", "port": "lost"}    # notes.md is not named in context
    outside = [user(f"see ../big.log and {tmp_path / 'big.log'}")]
    assert retention([probe], outside, work) == {"secret port": "lost"}


def test_micro_only_is_micro_compact_waiting_for_its_trigger(tmp_path):
    """The context-editing analogue is the lesson's micro_compact behind a trigger, not a subclass."""
    micro_only = next(s for s in STRATEGIES if s.name == "micro only")
    messages = [user("go")]
    for k in range(6):
        messages += tool_turn(["z" * 4_000], f"c{k}_", name="bash")
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
    compactor = micro_only.build(tmp_path, OfflineModel().client())
    assert type(compactor) is Compactor and compactor.stages == {"micro_compact"}
    assert compactor.prepare(messages, "go") == messages                 # under 400,000 chars
    assert not compactor.events[-1].fired

    def waiting(trigger):
        return Compactor(tmp_path, stages=("micro_compact",),
                         functions={"micro_compact": partial(micro_compact_above, trigger)})
    low = waiting(1_000)
    assert low.prepare(messages, "go") != messages
    assert low.events[-1].placeholders == 3                           # all but the newest 3
    assert waiting(30_000).prepare(messages, "go") == messages          # 24,000+ chars < 30,000


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


def test_each_probe_enters_the_context_once_at_its_turn(reports):
    """In the uncompacted history, the first message holding a probe belongs to its turn, and
    no later turn re-reads its file or reruns its command: user-side text (requests and tool
    results) holds each probe exactly once."""
    history = reports["none"].messages
    requests = set(session_turns())
    user_texts = [m["content"] for m in history if isinstance(m["content"], str)]
    user_texts += [result_text(b) for _, _, b in iter_tool_results(history)]
    for probe in PROBES:
        first = next(i for i, m in enumerate(history) if probe.text in str(m["content"]))
        assert probe.turn == sum(1 for m in history[:first + 1]
                                 if isinstance(m["content"], str) and m["content"] in requests)
        assert sum(probe.text in t for t in user_texts) == 1, probe.name


def test_what_each_strategy_saves_and_keeps(reports):
    none, pipeline, archiving = reports["none"], reports["pipeline"], reports["archiving"]
    assert pipeline.input_tokens <= 0.15 * none.input_tokens
    assert pipeline.peak_size < 60_000 < none.peak_size
    assert pipeline.summary_calls >= 1 and none.summary_calls == 0
    assert set(archiving.retention.values()) <= {"context", "archive"}
    assert archiving.input_tokens <= 0.15 * none.input_tokens
    assert set(none.retention.values()) == {"context"}               # everything, at full cost
    for name in ("micro only", "summary only", "pipeline", "archiving", "cache-friendly"):
        assert reports[name].input_tokens < none.input_tokens
    assert reports["summary only"].summary_calls >= 1
    longest = max(len(result_text(b)) for _, _, b in iter_tool_results(none.messages))
    assert TOOL_OUTPUT_CAP < longest <= TOOL_OUTPUT_CAP + 100     # the lesson's tools' cap, and its notice


def test_the_cache_friendly_strategy_costs_least_and_its_summary_does_not_grow(reports):
    friendly, pipeline, none = reports["cache-friendly"], reports["pipeline"], reports["none"]
    assert friendly.cost() < pipeline.cost() and friendly.cost() < reports["micro only"].cost()
    assert friendly.cost() <= 1.5 * friendly.floor()       # near what caching could give at best
    assert set(friendly.retention.values()) <= {"context", "archive"}
    assert friendly.retention["user constraint (turn 2)"] == "context"   # never dropped
    assert pipeline.cost() > 2 * pipeline.floor()           # the lesson's prefix breaks call after call
    assert none.cost() == pytest.approx(none.floor(), rel=0.02)   # append-only: at the floor
    assert pipeline.ledger.share_read() < friendly.ledger.share_read()
    cap = CACHE_FRIENDLY["summary_max_chars"]
    assert len(friendly.summaries) >= 3 and max(len(s) for s in friendly.summaries) <= cap
    assert len(friendly.summaries[-1]) <= len(friendly.summaries[0]) + cap
    lesson = pipeline.summaries                             # re-summarised, it grows until the
    assert len(lesson[-1]) > len(lesson[0]) and max(map(len, lesson)) > cap   # max_tokens cut



def test_the_cache_friendly_row_lists_the_stages_its_large_step_runs(tmp_path):
    friendly = next(s for s in STRATEGIES if s.name == "cache-friendly")
    compactor = friendly.build(tmp_path, OfflineModel().client())
    compactor.prepare(session([[str(k) * 3_000] for k in range(30)]), "do the task")   # 90,000 chars
    assert {e.stage for e in compactor.events} == set(friendly.stages) - {"reactive_compact"}

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


def test_the_tables_hold_both_costs_the_floor_every_strategy_and_probe(reports):
    text = table(list(reports.values()))
    for name in reports:
        assert f"\n{name} " in text
    for column in ("input tokens", "saved", "cache-aware", "floor", "context / archive / workspace / lost"):
        assert column in text
    assert text.count("%") >= 2 * len(reports)
    costs = cost_table(list(reports.values()))
    page = costs._repr_html_()
    assert [row[0] for row in costs.rows] == list(reports)
    brief, full = page.split("<details>")            # five columns first, all twelve folded below
    assert brief.count("<tr>") == full.count("<tr>") == len(reports) + 1 and "text-align:right" in brief
    assert brief.count("<th") == 5 and full.count("<th") == len(costs.headers) == 12
    assert "cache-aware cost" in brief and "floor" not in brief and "÷ floor" in full
    assert costs.rows[0][2] == "0.0%" and costs.rows[0][-1] == f"{len(PROBES)} / 0 / 0 / 0"
    assert text.splitlines()[:-1] == str(costs).splitlines()
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


def test_the_cost_and_retention_charts(reports):
    """Every strategy drawn distinguishably in both counts; each probe's place in its cell."""
    figure = plot_costs(list(reports.values()))
    for ax, measure in zip(figure.axes[:2], ("cumulative_tokens", "cumulative_cost"), strict=True):
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
    stages = tuple(s for s in PIPELINE.stages if s != "snip_compact")
    mine = run_session(Strategy("no snip", "the pipeline without snip_compact", stages=stages), tmp_path)
    assert (mine.input_tokens, round(mine.cost()), mine.summary_calls) == (1_110_436, 518_475, 11)
    assert (pipeline.input_tokens, round(pipeline.cost()), pipeline.summary_calls) == (1_033_244, 616_668, 9)
    assert round(mine.ledger.share_read(), 2) == 0.71 and round(pipeline.ledger.share_read(), 2) == 0.59
    assert mine.places() == {"context": 5, "archive": 0, "workspace": 2, "lost": 1}
    assert mine.retention["user constraint (turn 2)"] == "context"
    assert [probe for probe, place in mine.retention.items() if place == "lost"] == [
        "decision written to a note (turn 80)"]


def test_sessions_in_worker_processes_give_the_same_reports_and_failures(tmp_path):
    turns = session_turns()[:12]
    one = compare(tmp_path / "one", turns, STRATEGIES[:3])
    two = compare(tmp_path / "two", turns, STRATEGIES[:3], workers=2)
    assert [table(one).splitlines()[2:]] == [table(two).splitlines()[2:]]
    assert [r.retention for r in one] == [r.retention for r in two]
    broken = Strategy("broken", "an unknown stage", stages=("no_such_stage",))
    with pytest.raises(ValueError, match="unknown stage"):
        compare(tmp_path / "three", session_turns()[:2], [STRATEGIES[0], broken], workers=2)


SYSTEM, TOOLS = "You are a test agent.", [{"name": "read_file", "input_schema": {"type": "object"}}]


def send(ledger: CacheLedger, messages: list, system: str = SYSTEM):
    tokens = estimate_tokens({"system": system, "messages": messages, "tools": TOOLS})
    return ledger.record({"system": system, "tools": TOOLS, "messages": messages}, tokens)


def conversation(turns: int, chars: int = 2_000) -> list:
    return [user("go")] + [m for k in range(turns) for m in tool_turn([f"{k} " + "r" * chars], f"c{k}_")]


def test_an_append_only_conversation_reads_the_last_request_whole_a_rewrite_loses_it():
    ledger = CacheLedger(min_tokens=0)
    messages = conversation(3)
    first = send(ledger, messages)
    assert (first.read, first.written) == (0, first.tokens)          # nothing cached yet
    second = send(ledger, messages + tool_turn(["new " + "n" * 2_000], prefix="n"))
    assert second.read == pytest.approx(first.tokens, abs=8)   # the whole last prompt (but
    #                                                            its closing brackets)
    assert second.written == second.tokens - second.read and second.uncached == 0
    ledger = CacheLedger(min_tokens=0)               # a rewrite near the start loses the prefix
    messages = conversation(8)
    send(ledger, messages)
    rewritten = list(messages)                       # the first result becomes a placeholder
    rewritten[2] = {**messages[2], "content": [{**messages[2]["content"][0], "content": "cut"}]}
    again = send(ledger, rewritten + tool_turn(["new"], prefix="n"))
    static = estimate_tokens({"system": SYSTEM, "tools": TOOLS}) + 10
    assert again.read <= static                      # only the system prompt and tools
    assert again.written >= again.tokens - static
    for turns_later, found in ((4, True), (15, False)):   # the lookback: within 20 blocks only
        ledger = CacheLedger(min_tokens=0)
        base = send(ledger, conversation(20))
        later = send(ledger, conversation(20) + conversation(turns_later)[1:])   # 2 blocks a turn
        assert (later.read >= base.tokens - 8) is found


def test_short_prompts_are_not_cached_summaries_cost_full_price_and_prices_are_followed():
    ledger = CacheLedger()                           # 1,024 tokens minimum, as the API's
    small = send(ledger, [user("hi")])
    assert small.uncached == small.tokens and small.read == small.written == 0
    summary = send(ledger, [user("Summarise " + "s" * 20_000)], system=SUMMARY_SYSTEM)
    assert (summary.kind, summary.uncached) == ("summary", summary.tokens)
    assert ledger.cost() == pytest.approx(small.tokens + summary.tokens)
    ledger = CacheLedger(min_tokens=0)                         # cost and floor follow the prices
    a = send(ledger, conversation(2))
    b = send(ledger, conversation(2) + tool_turn(["more " * 100], prefix="m"))
    prices = Pricing(read=0.1, write=1.25, uncached=1.0)
    assert ledger.cost(prices) == pytest.approx(1.25 * a.tokens + 0.1 * b.read + 1.25 * b.written)
    assert ledger.floor(prices) == pytest.approx(1.25 * a.tokens + 0.1 * a.tokens
                                                 + 1.25 * (b.tokens - a.tokens))
    assert ledger.cost(Pricing(1, 1, 1)) == ledger.plain() == a.tokens + b.tokens


def test_the_recording_client_passes_calls_through_and_counts_them():
    model = OfflineModel()
    client = RecordingClient(model.client())
    reply = client.messages.create(model="offline-compact-1", max_tokens=100, system=SYSTEM,
                                   messages=[user("Read README.md")], tools=TOOLS)
    assert reply.usage.input_tokens == client.ledger.plain() == model.usage[0][1]
    assert reply.usage.output_tokens == client.ledger.output_tokens("agent") > 0   # what it wrote back
    assert client.ledger.output_tokens("summary") == 0
    assert default_model(client) == "offline-compact-1"      # still a client: it can be asked


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "study-cache"
    monkeypatch.setenv("COMPACT_STUDY_CACHE", str(folder))
    return folder


def facts(report):
    return (report.strategy, report.input_tokens, report.cumulative_tokens, report.cumulative_cost,
            report.peak_size, report.model_calls, report.summary_calls, report.rereads,
            report.retention, report.ledger.requests, report.summaries, report.summary_turns,
            report.messages)


def test_a_remembered_session_equals_its_replay_in_every_number(cache, tmp_path):
    seen = []
    first, = compare(tmp_path / "one", strategies=[PIPELINE])
    again, = compare(tmp_path / "two", strategies=[PIPELINE], progress=lambda *u: seen.append(u))
    assert first.remembered == "" and again.remembered.startswith(str(cache))
    assert facts(again) == facts(first) and again.seconds == first.seconds
    assert seen == [("pipeline", 100, 100)]                 # the progress bar still completes
    assert [p.name.split("-")[0] for p in cache.iterdir()] == ["strategy"]


def test_what_is_remembered_and_under_which_key(tmp_path):
    """A changed line anywhere in the package is a new key; only the package's own strategies on
    the default session are remembered."""
    copy = tmp_path / "compact"
    shutil.copytree(remembered.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert remembered.key("strategy", "pipeline", copy) == remembered.key("strategy", "pipeline")
    limits = copy / "pipeline" / "context.py"
    limits.write_text(limits.read_text(encoding="utf-8").replace("50_000", "50_001", 1), encoding="utf-8")
    assert remembered.key("strategy", "pipeline", copy) != remembered.key("strategy", "pipeline")
    assert remembered.key("strategy", "none") != remembered.key("strategy", "pipeline")
    assert remembered.key("api", "pipeline") != remembered.key("strategy", "pipeline")
    assert rememberable(PIPELINE, None) and rememberable(PIPELINE, session_turns())
    assert not rememberable(PIPELINE, session_turns()[:12])
    assert not rememberable(Strategy("pipeline", "mine: its code is not in the key"), None)
    lesson = API_STRATEGIES[0]
    assert api_session.rememberable(lesson, None, None)
    assert not api_session.rememberable(lesson, object(), None)    # real Claude, or any client
    assert not api_session.rememberable(ApiStrategy(lesson.name, "mine", lesson.stages), None, None)


@dataclass
class Report:
    strategy: str
    remembered: str = ""


def test_damaged_and_older_entries_are_replaced_and_a_longer_name_keeps_its_own(cache):
    cache.mkdir()
    path = cache / f"strategy-x-{remembered.key('strategy', 'x')}.pickle"
    path.write_bytes(b"half a pickle")
    replays = []
    report = remembered.remembered("strategy", "x", lambda: replays.append(1) or Report("x"))
    assert replays == [1] and report.remembered == ""
    assert pickle.loads(path.read_bytes()) == Report("x")
    assert remembered.remembered("strategy", "x", lambda: 1 / 0).remembered == str(path)
    path.unlink()          # an older version leaves no entry behind, a longer name keeps its own
    (cache / "strategy-micro-000000000000000000000000.pickle").write_bytes(pickle.dumps(Report("micro")))
    remembered.keep("strategy", "micro only", Report("micro only"))
    remembered.keep("strategy", "micro", Report("micro"))      # its prefix is "micro only"'s too
    assert {p.name for p in cache.iterdir()} == {
        f"strategy-micro-{remembered.key('strategy', 'micro')}.pickle",
        f"strategy-micro-only-{remembered.key('strategy', 'micro only')}.pickle"}
    assert remembered.recall("strategy", "micro only").strategy == "micro only"


def test_off_remembers_nothing_and_an_unwritable_folder_warns_and_returns_the_replay(
        tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_STUDY_CACHE", "off")
    assert remembered.folder() is None
    remembered.keep("strategy", "x", Report("x"))
    assert remembered.recall("strategy", "x") is None
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("COMPACT_STUDY_CACHE", str(blocker / "study"))
    with pytest.warns(UserWarning, match="COMPACT_STUDY_CACHE"):
        report = remembered.remembered("strategy", "x", lambda: Report("x"))
    assert report == Report("x")
