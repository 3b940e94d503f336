"""Replies real Claude sends that the offline model never does: each handled, every request valid."""

from __future__ import annotations

import copy
import io

import pytest
from conftest import fake_summary
from histories import long_chat, user
from replies import Script, api_error, call, reply, text

from compact import Compactor, LoopOptions, Workspace, agent_loop
from compact import __main__ as repl
from compact.offline.api import messages_problem
from compact.pipeline.messages import validate_history


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    return tmp_path


def run(ws, script: Script, history: list | None = None, request: str = "do it", **kw):
    messages = history if history is not None else [user(request)]
    log: list[str] = []
    trace = agent_loop(messages, request, client=script.client, workspace=Workspace(ws),
                       compactor=Compactor(ws, summarize=fake_summary), log=log.append, **kw)
    return trace, messages, log


def assert_valid(script: Script, messages: list) -> None:
    assert script.problems == []                          # every request the API would take
    validate_history(messages)
    assert messages_problem([*messages, user("next request")]) is None   # the next turn too


def results(messages: list) -> dict[str, str]:
    return {b["tool_use_id"]: b["content"] for m in messages if isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"}


@pytest.mark.parametrize("stop", ["end_turn", "pause_turn"])
def test_a_tool_call_with_end_turn_or_pause_turn_is_run_and_the_loop_goes_on(ws, stop):
    script = Script(reply(call("read_file", {"path": "a.txt"}, "toolu_1"), stop=stop),
                    reply(text("a.txt says alpha")))
    trace, messages, _ = run(ws, script)
    assert results(messages) == {"toolu_1": "alpha\n"}
    assert trace.answer == "a.txt says alpha" and len(script.requests) == 2
    assert_valid(script, messages)


@pytest.mark.parametrize("cut_input", [None, {"path": "notes.md"}], ids=["input absent", "input partial"])
def test_a_call_cut_off_by_max_tokens_is_answered_not_run(ws, cut_input):
    script = Script(reply(text("Reading, then writing."),
                          call("read_file", {"path": "a.txt"}, "toolu_1"),
                          call("write_file", cut_input, "toolu_2"), stop="max_tokens"),
                    reply(text("done")))
    trace, messages, _ = run(ws, script)
    answered = results(messages)
    assert answered["toolu_1"] == "alpha\n"                       # the whole call ran
    assert answered["toolu_2"].startswith("Error: this write_file call was cut off")
    assert "max_tokens=8000" in answered["toolu_2"] and not (ws / "notes.md").exists()
    assert messages[1]["content"][-1]["input"] == (cut_input or {})
    assert trace.answer == "done"
    assert_valid(script, messages)


def test_an_answer_cut_off_by_max_tokens_ends_the_turn_and_says_so(ws):
    script = Script(reply(text("The answer is long and"), stop="max_tokens"))
    trace, messages, log = run(ws, script, options=LoopOptions(max_tokens=50))
    assert trace.stop_reason == "max_tokens" and trace.answer == "The answer is long and"
    assert any(line.startswith("[max_tokens] the reply was cut off at max_tokens=50") for line in log)
    assert_valid(script, messages)


def test_pause_turn_is_sent_back_for_the_model_to_continue(ws):
    script = Script(reply(text("Searching the docs... \n"), stop="pause_turn"),
                    reply(text("Found it: alpha.")))
    trace, messages, log = run(ws, script)
    assert trace.answer == "Found it: alpha." and trace.stop_reason == "end_turn"
    second = script.requests[1]["messages"]
    assert second[-1] == {"role": "assistant", "content": [text("Searching the docs...")]}
    assert any(line.startswith("[pause_turn]") for line in log)
    assert_valid(script, messages)


def test_a_refusal_ends_the_turn_visibly_and_the_next_turn_works(ws):
    script = Script(reply(stop="refusal"), reply(text("Hello!")))
    trace, messages, log = run(ws, script, request="something declined")
    assert trace.refusal and trace.stop_reason == "refusal" and trace.answer == ""
    assert any(line.startswith("[refusal] the model declined") for line in log)
    assert messages == [user("something declined")]               # no empty assistant message
    messages.append(user("say hello"))
    trace, messages, _ = run(ws, script, history=messages, request="say hello")
    assert trace.answer == "Hello!" and not trace.refusal
    assert_valid(script, messages)


def test_tool_calls_in_a_refused_reply_are_answered_but_not_run(ws):
    script = Script(reply(call("write_file", {"path": "x.txt", "content": "x"}, "toolu_1"),
                          stop="refusal"))
    trace, messages, _ = run(ws, script)
    assert trace.refusal and not (ws / "x.txt").exists()
    assert results(messages)["toolu_1"].startswith("Error: not run: the model's reply ended in a refusal")
    assert_valid(script, messages)


def test_empty_text_blocks_are_dropped_before_sending(ws):
    script = Script(reply(text(""), call("read_file", {"path": "a.txt"}, "toolu_1"), text("  "),
                          stop="tool_use"),
                    reply(text(""), text("done")))
    trace, messages, _ = run(ws, script)
    assert messages[1]["content"] == [call("read_file", {"path": "a.txt"}, "toolu_1")]
    assert messages[-1] == {"role": "assistant", "content": [text("done")]}
    assert trace.answer == "done"
    assert_valid(script, messages)


def test_an_empty_end_turn_reply_adds_no_empty_message(ws):
    script = Script(reply(stop="end_turn"))
    trace, messages, _ = run(ws, script)
    assert trace.answer == "" and messages == [user("do it")]
    assert_valid(script, messages)


@pytest.mark.parametrize("refusal", [
    api_error(400, "invalid_request_error", "input length and `max_tokens` exceed context limit: "
              "197000 + 8000 > 200000, decrease input length or `max_tokens` and try again"),
    api_error(413, "request_too_large", "Request exceeds the maximum size"),
], ids=["input plus max_tokens", "413 request_too_large"])
def test_too_large_in_all_but_name_takes_the_reactive_path(ws, refusal):
    script = Script(refusal, reply(text("answered after compaction")))
    history = [*long_chat(6, 2_000), user("do it")]
    original = copy.deepcopy(history)
    trace, messages, log = run(ws, script, history=history)
    assert trace.turns[0].refused == 1 and trace.turns[0].stages == ["reactive_compact"]
    assert any(line.startswith("[reactive compact]") for line in log)
    assert messages[0]["content"].startswith("[Reactive compact]") and messages[1:-1] == original[-5:]
    assert trace.answer == "answered after compaction"
    assert_valid(script, messages)


def test_the_repl_shows_a_refusal_and_a_failed_turn_then_carries_on(ws, monkeypatch, capsys):
    script = Script(reply(stop="refusal"),
                    api_error(529, "overloaded_error", "Overloaded"),
                    reply(text("Hello!")))
    monkeypatch.setattr(repl, "make_client", lambda quiet: script.client)
    monkeypatch.setattr("sys.stdin", io.StringIO("something declined\nretry\nsay hello\nq\n"))
    assert repl.main(["--workdir", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "[refusal] the model declined this request (stop_reason: refusal)" in out
    assert "[error] OverloadedError" in out and "Hello!" in out
    assert out.count("s08 >> ") == 4 and script.problems == []
