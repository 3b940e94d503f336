"""agent_loop through the real SDK on the offline model: every path of the lesson's loop."""

import copy

import anthropic
import pytest
from conftest import make_files
from histories import long_chat, user

from compact import Compactor, Limits, agent_loop, read_transcript
from compact.offline import OfflineModel
from compact.offline.api import messages_problem
from compact.pipeline.messages import pairing_problems
from compact.pipeline.summary import ClientSummarizer, SummaryInput


@pytest.fixture
def ws(tmp_path):
    return make_files(tmp_path / "ws", {"a.txt": "alpha " * 50, "b.txt": "beta " * 50})


def run(ws, request, model=None, history=None, limits=Limits(), caps=SummaryInput(), **kw):
    client = (model or OfflineModel()).client()
    messages = history if history is not None else [user(request)]
    log = []
    compactor = Compactor(ws, limits, summarize=ClientSummarizer(client, "offline-compact-1", caps=caps))
    trace = agent_loop(messages, request, client=client, workspace=ws, compactor=compactor,
                       log=log.append, **kw)
    return trace, messages, log


def test_a_plain_answer_and_a_multi_tool_batch(ws):
    trace, messages, _ = run(ws, "Say hello")
    assert len(trace.turns) == 1 and trace.turns[0].tool_calls == []
    assert trace.answer.startswith("(offline model)") and "Say hello" in trace.answer
    assert [m["role"] for m in messages] == ["user", "assistant"]
    trace, messages, _ = run(ws, "Read a.txt and b.txt")
    assert [n for n, _ in trace.turns[0].tool_calls] == ["read_file", "read_file"]
    results = messages[2]["content"]
    assert [r["tool_use_id"] for r in results] == [b["id"] for b in messages[1]["content"]
                                                   if b["type"] == "tool_use"]
    assert "a.txt" in trace.answer and "b.txt" in trace.answer
    first = trace.turns[0]                              # the trace records sizes and tokens
    assert first.turn == 1 and first.size_sent == first.size_before > 0
    assert first.input_tokens > 0 and first.composition["user text"] == len("Read a.txt and b.txt")


def test_compact_tool_closes_the_batch_first_and_the_write_is_not_repeated(ws):
    request = "Write notes.md containing 'hello world' then compact the conversation."
    trace, messages, log = run(ws, request)
    calls = [c for t in trace.turns for c in t.tool_calls]
    assert [n for n, _ in calls] == ["write_file", "compact"]           # the write happens once
    assert (ws / "notes.md").read_text() == "hello world"
    for turn in trace.turns:
        assert pairing_problems(turn.sent) == []                        # no orphan results
    assert messages[0]["content"].startswith("[Compacted]\n\nAuthoritative request:\n" + request)
    assert "compact_tool" in trace.turns[0].stages
    transcript = read_transcript(ws / trace.turns[0].events[-1].files_written[0])
    assert transcript[-1]["content"][0]["content"].startswith("Wrote 11 chars")
    assert transcript[-1]["content"][1]["content"] == (
        "[Compaction requested. This completed turn will be summarized.]")
    assert "written (once)" in trace.answer


def test_auto_compact_over_fifty_thousand_chars(ws):
    (ws / "one.py").write_text('"""Module one keeps state in memory."""\n' + "x = 1\n" * 5_000)
    (ws / "two.py").write_text('"""Module two writes notes to disk."""\n' + "y = 2\n" * 5_000)
    trace, _, _ = run(ws, "Compare one.py and two.py")      # (what it logs: test_interrupt's REPL run)
    fired = [t for t in trace.turns if "compact_history" in t.stages]
    assert len(fired) == 1 and fired[0].size_before > 50_000 and fired[0].size_sent < 5_000
    assert "Module one keeps state in memory" in trace.answer
    assert "Module two writes notes to disk" in trace.answer


def test_reactive_keep_zero_summarises_everything_and_the_loop_answers(ws):
    history = long_chat(6, 2_000) + [user("Say hello")]
    trace, _, log = run(ws, "Say hello", model=OfflineModel(window_tokens=4_000), history=history,
                        limits=Limits(reactive_keep_messages=0), caps=SummaryInput(input_chars=4_000))
    assert any(line.startswith("[reactive compact] prompt is too long") for line in log)
    assert trace.turns[0].refused == 1 and trace.turns[0].stages == ["reactive_compact"]
    assert history[0]["content"].startswith(
        "[Reactive compact]\n\nAuthoritative request:\nSay hello")
    assert trace.answer.startswith("(offline model)") and messages_problem(history) is None


def test_a_second_prompt_too_long_is_raised_with_the_list_intact(ws):
    history = long_chat(10, 2_100) + [user("Say hello")]
    original = copy.deepcopy(history)
    model = OfflineModel(window_tokens=2_500)          # the last 5 messages alone are too long
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        run(ws, "Say hello", model=model, history=history,
            caps=SummaryInput(input_chars=1_000))   # the summary call (+ 2,000 out) fits
    assert pairing_problems(history) == []
    assert history[0]["content"].startswith("[Reactive compact]")
    assert history[1:] == original[-5:]
    assert read_transcript(next((ws / ".transcripts").glob("*.jsonl"))) == original
    # when nothing precedes the tail, the reactive path gives up at once
    history = [user("x" * 5_000 + " Say hello")]
    model = OfflineModel(window_tokens=500)
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        run(ws / "alone", "Say hello", model=model, history=history)
    assert model.usage == []                        # no summary call was wasted
    assert not (ws / "alone" / ".transcripts").exists()
    assert history == [user("x" * 5_000 + " Say hello")]
