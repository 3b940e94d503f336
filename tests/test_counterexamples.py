"""The lesson's rules broken on purpose lose something or are refused, visibly; kept, they don't."""

import pytest

from compact import Compactor, HistoryError, agent_loop, summarizer_for, validate_history
from compact.classroom import as_written
from compact.classroom.counterexamples import (
    LESSON_ORDER,
    compact_dropping_batch,
    compact_mid_batch,
    run_stages,
    run_wrong_loop,
)
from compact.classroom.histories import results as tool_results
from compact.classroom.histories import tool_turn
from compact.offline import OfflineModel
from compact.pipeline.formats import persisted_path
from compact.tools import Workspace

REQUEST = "Write notes.md containing 'hello world' then compact the conversation."


def earlier_work_then_request():
    """Some finished work (worth compacting), then the request that ends in the compact tool."""
    return [{"role": "user", "content": "Read app.py."}, *tool_turn(("t0", "app.py", "x = 1\n" * 2_000)),
            {"role": "assistant", "content": "Note [app.py]: 2,000 assignments."},
            {"role": "user", "content": REQUEST}]
LOG = "error? no.\n" * 25_000
SWAPPED = ("micro_compact", "tool_result_budget", "snip_compact", "compact_history")


def batch_with_a_big_log():
    return [{"role": "user", "content": "Why does the build fail?"},
            *tool_turn(("big", "build.log", LOG),
                       *[(k, f"{k}.cfg", "k = v\n" * 40) for k in "abcd"])]


def test_in_the_lessons_order_the_big_result_reaches_disk(tmp_path):
    out = run_stages(batch_with_a_big_log(), LESSON_ORDER, Compactor(tmp_path), "why")
    path = persisted_path(tool_results(out)[0])
    assert (tmp_path / path).read_text() == LOG


def test_swapped_with_the_lessons_micro_compact_the_big_result_is_lost(tmp_path):
    out = run_stages(batch_with_a_big_log(), SWAPPED, Compactor(tmp_path), "why",
                     micro=as_written.micro_compact)
    assert tool_results(out)[0] == as_written.PLACEHOLDER
    assert not (tmp_path / ".task_outputs").exists()           # never reached the disk


def test_swapped_the_packages_micro_compact_still_spares_the_unseen_batch(tmp_path):
    out = run_stages(batch_with_a_big_log(), SWAPPED, Compactor(tmp_path), "why")
    assert (tmp_path / persisted_path(tool_results(out)[0])).read_text() == LOG


def test_summary_first_spends_a_model_call_the_cheap_stages_would_have_saved(tmp_path):
    history = [{"role": "user", "content": "Compare the six modules."}]
    for k in range(6):
        history += tool_turn((f"m{k}", f"m{k}.py", f"x_{k} = {k}\n" * 1_200))
    history.append({"role": "assistant", "content": "Read all six."})
    calls = []

    def summarize(messages):
        calls.append(len(messages))
        return "summary"

    right = run_stages(history, LESSON_ORDER, Compactor(tmp_path / "a", summarize=summarize), "c")
    assert calls == [] and len(right) == len(history)
    first = ("compact_history", "tool_result_budget", "snip_compact", "micro_compact")
    wrong = run_stages(history, first, Compactor(tmp_path / "b", summarize=summarize), "c")
    assert calls == [len(history)] and len(wrong) == 1


def test_unknown_stage_in_an_order_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="choose from"):
        run_stages([], ("micro", "snip_compact"), Compactor(tmp_path), "x")


def test_compacting_mid_batch_leaves_orphans_the_api_refuses(tmp_path):
    client = OfflineModel().client()
    run = run_wrong_loop(earlier_work_then_request(), REQUEST, compact_mid_batch, client=client,
                         workspace=Workspace(tmp_path), compactor=Compactor(tmp_path,
                                                                   summarize=summarizer_for(client)))
    assert run.calls == [["write_file", "compact"]]
    assert "must have a corresponding `tool_use` block in the previous message" in run.refusal
    with pytest.raises(HistoryError, match="no matching tool_use"):
        validate_history(run.messages)                      # the package refuses it too


def test_dropping_the_open_batch_makes_the_model_write_again(tmp_path):
    client = OfflineModel().client()
    run = run_wrong_loop(earlier_work_then_request(), REQUEST, compact_dropping_batch, client=client,
                         workspace=Workspace(tmp_path), compactor=Compactor(tmp_path,
                                                                   summarize=summarizer_for(client)),
                         max_turns=3)
    assert run.refusal is None and run.count("write_file") == 3


def test_the_right_way_writes_once(tmp_path):
    client = OfflineModel().client()
    history = earlier_work_then_request()
    trace = agent_loop(history, REQUEST, client=client, workspace=tmp_path, log=lambda _: None)
    assert [name for t in trace.turns for name, _ in t.tool_calls] == ["write_file", "compact"]
    assert history[0]["content"].startswith("[Compacted]") and "write_file notes.md" in history[0]["content"]
