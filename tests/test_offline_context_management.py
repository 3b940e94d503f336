"""The API's context editing, server compaction and threads, offline, through the SDK's beta client."""

from __future__ import annotations

import copy
import json

import anthropic
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from served import TITLE, respond, serving, title_runner
from served import both_transports as both_transports  # the `client` fixture

from compact.offline import MODEL_NAME, OfflineModel, count_tokens
from compact.offline.context_management import CLEARED, clear_tool_uses
from compact.tools import TOOLS

EDITING = "context-management-2025-06-27"
COMPACT = "compact-2026-01-12"
SUMMARIZE = "compact-2026-09-04"
BIG = "x" * 4_000


def read_history(results: list[str], request: str = "Read a.md, b.md and c.md") -> list[dict]:
    """A history of one read per result, each answered, the newest last."""
    messages = [{"role": "user", "content": request}]
    for k, text in enumerate(results):
        messages += [{"role": "assistant", "content": [
                         {"type": "text", "text": f"Reading {k}."},
                         {"type": "tool_use", "id": f"t{k}", "name": "read_file",
                          "input": {"path": f"{'abc'[k % 3]}.md"}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}",
                                                   "content": text}]}]
    return messages


def clearing(**settings) -> dict:
    return {"edits": [{"type": "clear_tool_uses_20250919", **settings}]}


def uses(n: int) -> dict:
    return {"type": "tool_uses", "value": n}


def create(client, messages: list, betas: tuple = (EDITING,), max_tokens: int = 500, **fields):
    return client.beta.messages.create(model=MODEL_NAME, max_tokens=max_tokens, messages=messages,
                                       betas=list(betas), **fields)


def test_clear_tool_uses_clears_what_the_model_sees_and_reports_it(client):
    history = read_history([BIG, BIG, BIG, BIG, BIG])
    sent = copy.deepcopy(history)
    settings = clearing(trigger={"type": "input_tokens", "value": 1_000})
    reply = create(client, history, tools=TOOLS, context_management=settings)
    assert history == sent                                      # the client's history is its own
    [edit] = reply.context_management.applied_edits
    assert edit.type == "clear_tool_uses_20250919" and edit.cleared_tool_uses == 2   # keep 3
    counted = client.beta.messages.count_tokens(model=MODEL_NAME, messages=history, tools=TOOLS,
                                                betas=[EDITING], context_management=settings)
    plain = client.beta.messages.count_tokens(model=MODEL_NAME, messages=history, tools=TOOLS)
    assert counted.context_management.original_input_tokens == plain.input_tokens
    assert plain.input_tokens - counted.input_tokens == edit.cleared_input_tokens > 1_500
    assert reply.usage.input_tokens == counted.input_tokens      # the model was sent less


def test_below_the_trigger_or_clear_at_least_nothing_is_cleared(client):
    history = read_history([BIG, BIG, BIG, BIG, "short"])
    for management in (clearing(), clearing(trigger=uses(5),
                                            clear_at_least={"type": "input_tokens", "value": 5_000})):
        reply = create(client, history, context_management=management)
        assert reply.context_management.applied_edits == []     # default trigger 100,000 tokens
    reply = create(client, history, context_management=clearing(
        trigger=uses(5), keep=uses(1), clear_at_least={"type": "input_tokens", "value": 3_000}))
    assert reply.context_management.applied_edits[0].cleared_tool_uses == 4


def test_a_cleared_result_is_read_again_by_the_model(client):
    """The model decides from what it is sent: a cleared result is unknown again."""
    history = read_history(["# Title A\n" + BIG], "What is the title of a.md?")
    kept = create(client, history, tools=TOOLS, context_management=clearing(trigger=uses(1)))
    cleared = create(client, history, tools=TOOLS,
                     context_management=clearing(trigger=uses(1), keep=uses(0)))
    assert '"Title A"' in kept.content[-1].text and kept.stop_reason == "end_turn"
    assert cleared.stop_reason == "tool_use" and cleared.content[-1].input == {"path": "a.md"}


def test_clear_thinking_keeps_the_newest_thinking_turns(client):
    thinking = {"type": "thinking", "thinking": "hmm " * 300, "signature": "sig"}
    history = [{"role": "user", "content": "hello"},
               {"role": "assistant", "content": [thinking, {"type": "text", "text": "one"}]},
               {"role": "user", "content": "again"},
               {"role": "assistant", "content": [thinking, {"type": "text", "text": "two"}]},
               {"role": "user", "content": "and again"}]
    reply = create(client, history, context_management={"edits": [
        {"type": "clear_thinking_20251015"}, {"type": "clear_tool_uses_20250919"}]})
    [edit] = reply.context_management.applied_edits
    assert edit.type == "clear_thinking_20251015" and edit.cleared_thinking_turns == 1
    without = copy.deepcopy(history)
    without[1]["content"] = without[1]["content"][1:]             # the older turn's thinking
    assert edit.cleared_input_tokens == count_tokens({"messages": history}) - count_tokens(
        {"messages": without}) > 200
    with pytest.raises(anthropic.BadRequestError, match="must be the first edit"):
        create(client, history, context_management={"edits": [
            {"type": "clear_tool_uses_20250919"}, {"type": "clear_thinking_20251015"}]})


def test_streamed_context_management_arrives_in_the_final_message_delta(client):
    history = read_history([BIG] * 4)
    with client.beta.messages.stream(
            model=MODEL_NAME, max_tokens=500, messages=history, betas=[EDITING],
            context_management=clearing(trigger=uses(2))) as stream:
        deltas = [e for e in stream if e.type == "message_delta"]
        final = stream.get_final_message()
    assert deltas[-1].context_management.applied_edits[0].cleared_tool_uses == 1
    assert final.context_management == deltas[-1].context_management


NAMES = ("read_file", "bash", "glob")


@st.composite
def histories_and_edits(draw):
    uses = draw(st.lists(st.tuples(st.sampled_from(NAMES), st.integers(0, 3_000)), max_size=12))
    messages = [{"role": "user", "content": "start"}]
    for k, (name, size) in enumerate(uses):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}",
                                                        "name": name, "input": {"arg": "v" * (k % 5)}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}",
                                                   "content": "r" * size}]}]
    edit = {"type": "clear_tool_uses_20250919",
            "trigger": draw(st.sampled_from([{"type": "tool_uses", "value": 1},
                                             {"type": "input_tokens", "value": 1}])),
            "keep": {"type": "tool_uses", "value": draw(st.integers(0, 6))},
            "exclude_tools": draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True)),
            "clear_tool_inputs": draw(st.sampled_from([False, True, ["bash"]])),
            "clear_at_least": {"type": "input_tokens", "value": draw(st.integers(0, 800))}}
    return messages, edit


def tokens(messages: list) -> int:
    return count_tokens({"messages": messages})


@settings(max_examples=150, deadline=None)
@given(histories_and_edits())
def test_clear_tool_uses_keeps_the_newest_and_the_excluded_and_counts_what_it_removed(case):
    messages, edit = case
    original = copy.deepcopy(messages)
    edited, report = clear_tool_uses(messages, edit, tokens)
    assert messages == original
    uses = [b for m in messages for b in m["content"] if isinstance(m["content"], list)
            and b["type"] == "tool_use"]
    newest = {b["id"] for b in uses[max(0, len(uses) - edit["keep"]["value"]):]}
    protected = newest | {b["id"] for b in uses if b["name"] in edit["exclude_tools"]}
    results = {b["tool_use_id"]: b["content"] for m in edited if isinstance(m["content"], list)
               for b in m["content"] if b["type"] == "tool_result"}
    for use_id in protected:
        assert results[use_id] == next(b["content"] for m in original if isinstance(m["content"], list)
                                       for b in m["content"] if b.get("tool_use_id") == use_id)
    assert [[b.get("id") or b.get("tool_use_id") for b in m["content"]] for m in edited[1:]] == \
        [[b.get("id") or b.get("tool_use_id") for b in m["content"]] for m in messages[1:]]  # pairs kept
    changed = {u for u, text in results.items() if text == CLEARED} | {
        after["id"] for m0, m1 in zip(messages[1::2], edited[1::2], strict=True)
        for before, after in zip(m0["content"], m1["content"], strict=True)
        if before["input"] != after["input"]}
    assert not changed & protected
    if report is None:
        assert edited == messages
    else:
        assert report["cleared_input_tokens"] == tokens(messages) - tokens(edited)
        assert report["cleared_input_tokens"] >= edit["clear_at_least"]["value"]
        assert report["cleared_tool_uses"] == len(changed) > 0


def compacting(**settings) -> dict:
    return {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000},
                       **settings}]}


def long_history() -> list[dict]:
    text = "# Title A\n" + "A line of the file that goes on and on.\n" * 2_000
    history = read_history([text, text.replace("Title A", "Title B"), text.replace("Title A", "Title C")])
    history[0]["content"] = "Read a.md, b.md and c.md and say what each is about."
    return history


def test_compaction_triggers_at_its_threshold_and_the_reply_goes_on_from_the_summary(client):
    history = long_history()
    assert count_tokens({"messages": history, "tools": TOOLS}) > 50_000
    reply = create(client, history, (COMPACT,), 2_000, tools=TOOLS,
                   context_management=compacting(instructions="Keep the titles."))
    block, *rest = reply.content
    assert block.type == "compaction" and block.content.startswith("(offline extractive summary")
    assert 'H1 "Title C"' in block.content and "Summary instructions received" in block.content
    assert rest and rest[-1].type == "text" and '"Title B"' in rest[-1].text
    compaction, message = reply.usage.iterations
    assert compaction.type == "compaction" and compaction.input_tokens > 50_000
    assert message.type == "message" and message.input_tokens < 2_000
    assert reply.usage.input_tokens == message.input_tokens          # the compaction is left out
    resent = [*history, {"role": "assistant", "content": [b.model_dump(exclude_none=True)
                                                          for b in reply.content]},
              {"role": "user", "content": "Which titles were there?"}]
    counted = client.beta.messages.count_tokens(model=MODEL_NAME, messages=resent, tools=TOOLS,
                                                betas=[COMPACT])
    assert counted.input_tokens < 3_000             # everything before the block is ignored


def test_pause_after_compaction_returns_only_the_block(client):
    reply = create(client, long_history(), (COMPACT,), 2_000,
                   context_management=compacting(pause_after_compaction=True))
    assert reply.stop_reason == "compaction" and [b.type for b in reply.content] == ["compaction"]
    assert [i.type for i in reply.usage.iterations] == ["compaction"]
    assert reply.usage.input_tokens == reply.usage.output_tokens == 0


def test_compaction_blocks_sent_back_null_tampered_or_with_an_edit(client):
    history = read_history(["# Title A\n"])
    null = [*history, {"role": "assistant", "content": [{"type": "compaction", "content": None}]}]
    assert client.messages.count_tokens(model=MODEL_NAME, messages=history).input_tokens == \
        client.beta.messages.count_tokens(model=MODEL_NAME, messages=null, betas=[COMPACT]).input_tokens
    summary = "Goal: x"
    with pytest.raises(anthropic.BadRequestError, match="signature does not match"):
        create(client, [{"role": "assistant", "content": [
            {"type": "compaction", "content": summary, "signature": "offline-forged"}]}], (COMPACT,))
    with pytest.raises(anthropic.BadRequestError, match="cannot be combined"):
        create(client, history, (COMPACT, SUMMARIZE), compaction={"type": "summarize"},
               context_management=compacting())
    with pytest.raises(anthropic.BadRequestError, match="greater than or equal to 50000"):
        create(client, history, (COMPACT,), context_management={"edits": [
            {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 10_000}}]})


def test_the_tool_runner_compacts_before_the_next_turn_over_http(tmp_path):
    with serving() as served:
        runner = title_runner(served.client(), tmp_path, betas=[SUMMARIZE])
        replies = []
        for reply in runner:
            replies.append(reply)
            if len(replies) == 1:
                runner.compact_before_next_turn()
    assert [r.stop_reason for r in replies] == ["tool_use", "compaction", "end_turn"]
    [block] = replies[1].content                  # the summary alone, signed, then sent back first
    assert block.signature and 'H1 "Agent Loop"' in block.content
    assert replies[-1].content[-1].text.endswith(TITLE)


@pytest.mark.parametrize("threaded", [True, False])
def test_the_tool_runner_runs_threaded_and_not(tmp_path, threaded):
    sent, model = [], OfflineModel(window_tokens=200_000)

    def recording(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.read() or b"{}"))
        return model.handle(request)
    client = anthropic.Anthropic(api_key="offline", base_url="http://offline.invalid", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(recording)))
    replies = list(title_runner(client, tmp_path, thread=None if threaded else False))
    assert replies[-1].content[-1].text.endswith(TITLE)
    if threaded:
        assert sent[0]["thread"] == {"type": "create"} and sent[1]["thread"]["type"] == "continue"
        assert len(sent[1]["messages"]) == 1 and "tools" not in sent[1]   # only what is new
    else:
        assert all("thread" not in s for s in sent) and len(sent[1]["messages"]) == 3


def test_a_continue_from_a_reply_the_server_no_longer_holds_is_sent_again_whole(tmp_path):
    with serving() as served:
        runner = title_runner(served.client(), tmp_path)
        first = next(iter(runner))
        served.model.threads.held.clear()          # as if the server had restarted
        rest = list(runner)
    assert first.stop_reason == "tool_use"
    assert rest[-1].content[-1].text.endswith(TITLE)
    status, body = respond({"max_tokens": 10, "messages": [{"role": "user", "content": "hi"}],
                            "thread": {"type": "continue", "previous_message_id": "msg_gone"}},
                           {"anthropic-beta": "message-threads-2026-08-12"})
    assert status == 404 and body["error"]["details"] == {"error_code": "thread_not_found"}
