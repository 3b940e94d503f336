"""The long workload, the strategies on it, and the probe retention accounting."""

import pytest

from compact import Compactor, Limits
from compact.study.retention import retention
from compact.study.strategies import STRATEGIES, compare, run_session, table
from compact.study.workload import PROBES, Probe, make_long_workspace, session_turns

NONE = STRATEGIES[0]


def test_workload_is_deterministic_and_has_100_turns(tmp_path):
    assert session_turns() == session_turns() and len(session_turns()) == 100
    a, b = make_long_workspace(tmp_path / "a"), make_long_workspace(tmp_path / "b")
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    assert (a / "logs/access.log").stat().st_size > 200_000          # over the batch budget


@pytest.mark.parametrize("probe", PROBES, ids=[p.name for p in PROBES])
def test_each_probe_enters_the_context_at_its_turn(tmp_path, probe):
    turns = session_turns()
    before = run_session(NONE, tmp_path / "before", turns[: probe.turn - 1], probes=[probe])
    after = run_session(NONE, tmp_path / "after", turns[: probe.turn], probes=[probe])
    assert before.retention[probe.name] != "context"
    assert after.retention[probe.name] == "context"


def test_retention_context_disk_and_lost(tmp_path):
    probe = Probe("secret port", "port 61234", 1)
    compactor = Compactor(tmp_path, summarize=lambda m: "s")
    big = "x" * 250_000 + " port 61234 " + "y" * 10
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                                   "input": {"command": "cat big.log"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": big}]}]
    assert retention([probe], messages, tmp_path) == {"secret port": "context"}
    persisted = compactor.tool_result_budget(messages)
    assert "port 61234" not in str(persisted)                        # only the path + preview
    assert retention([probe], persisted, tmp_path) == {"secret port": "disk"}
    removed = persisted[:1]                                          # the path left the context
    assert retention([probe], removed, tmp_path) == {"secret port": "lost"}


def test_paths_outside_the_workdir_are_never_followed(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("port 61234")
    inside = tmp_path / "work"
    inside.mkdir()
    messages = [{"role": "user", "content": f"see ../outside.txt and {outside}"}]
    probe = Probe("p", "port 61234", 1)
    assert retention([probe], messages, inside) == {"p": "lost"}


def test_micro_only_is_micro_compact_waiting_for_its_trigger(tmp_path):
    """The context-editing analogue is a configuration of the pipeline, not a subclass."""
    micro_only = next(s for s in STRATEGIES if s.name == "micro only")
    messages = [{"role": "user", "content": "go"}]
    for k in range(6):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"c{k}",
                                                        "name": "bash", "input": {}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"c{k}",
                                                   "content": "z" * 4_000}]}]
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
    compactor = micro_only.build(tmp_path, lambda m: "s")
    assert type(compactor) is Compactor and compactor.stages == {"micro_compact"}
    assert compactor.prepare(messages, "go") == messages                 # under 400,000 chars
    assert not compactor.events[-1].fired
    low = Compactor(tmp_path, Limits(micro_compact_above=1_000), stages=("micro_compact",))
    cleared = low.prepare(messages, "go")
    assert low.events[-1].placeholders == 3                           # all but the newest 3
    assert Compactor(tmp_path, Limits(micro_compact_above=30_000), stages=("micro_compact",)
                     ).prepare(messages, "go") == messages              # 24,000+ chars < 30,000
    assert cleared != messages


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    return {r.strategy: r for r in compare(tmp_path_factory.mktemp("compare"))}


def test_pipeline_saves_at_least_85_percent_of_input_tokens(reports):
    none, pipeline = reports["none"], reports["pipeline"]
    assert pipeline.input_tokens <= 0.15 * none.input_tokens
    assert pipeline.peak_size < 60_000 < none.peak_size
    assert pipeline.summary_calls >= 1 and none.summary_calls == 0


def test_archiving_keeps_every_probe_in_context_or_on_disk(reports):
    assert set(reports["archiving"].retention.values()) <= {"context", "disk"}
    assert reports["archiving"].input_tokens <= 0.15 * reports["none"].input_tokens


def test_no_compaction_keeps_everything_in_context_at_full_cost(reports):
    assert set(reports["none"].retention.values()) == {"context"}
    for name in ("micro only", "summary only", "pipeline", "archiving"):
        assert reports[name].input_tokens < reports["none"].input_tokens
    assert reports["summary only"].summary_calls >= 1


def test_table_lists_every_strategy(reports):
    text = table(list(reports.values()))
    for name in reports:
        assert name in text
    assert "input tokens" in text and "saved" in text
