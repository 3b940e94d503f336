"""The offline model refuses what the real Messages API refuses, with the API's own wording (a 400)."""

from __future__ import annotations

import re

import anthropic
import pytest
from histories import user
from hypothesis import given, settings
from hypothesis import strategies as st
from served import answered, respond

from compact.offline import MAX_OUTPUT_TOKENS, MODEL_NAME, OfflineModel, count_tokens
from compact.offline.api import (
    estimate_tokens,
    lone_surrogate,
    messages_problem,
    request_problem,
)
from compact.tools import TOOLS

UNANSWERED = ("messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
              "after: {ids}. Each `tool_use` block must have a corresponding `tool_result` "
              "block in the next message.")


def asks(*calls: tuple[str, str]) -> dict:
    return {"role": "assistant", "content": [
        {"type": "tool_use", "id": i, "name": "read_file", "input": {"path": p}} for i, p in calls]}


def answers(*ids: str, before: list | None = None, after: list | None = None) -> dict:
    results = [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids]
    return {"role": "user", "content": [*(before or []), *results, *(after or [])]}


NOTE = {"type": "text", "text": "here are the results"}

CASES = {
    "tool_result not first": (
        [user("x"), asks(("t1", "a")), answers("t1", before=[NOTE])],
        UNANSWERED.format(i=1, ids="t1")),
    "one result of two not first": (
        [user("x"), asks(("t1", "a"), ("t2", "b")),
         {"role": "user", "content": [*answers("t1")["content"], NOTE, *answers("t2")["content"]]}],
        UNANSWERED.format(i=1, ids="t2")),
    "unanswered tool_use": (
        [user("x"), asks(("t1", "a"), ("t2", "b")), user("moving on")],
        UNANSWERED.format(i=1, ids="t1, t2")),
    "orphan tool_result": (
        [user("x"), {"role": "assistant", "content": [NOTE]}, answers("t9")],
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t9. Each "
        "`tool_result` block must have a corresponding `tool_use` block in the previous message."),
    "empty text block": (
        [user("x"), {"role": "assistant", "content": [{"type": "text", "text": ""}]}, user("y")],
        "messages: text content blocks must be non-empty"),
    "whitespace text block": (
        [user("x"), {"role": "assistant", "content": [{"type": "text", "text": " \n"}]}, user("y")],
        "messages: text content blocks must contain non-whitespace text"),
    "empty user content": (
        [user("")], "messages.0: all messages must have non-empty content except for the "
        "optional final assistant message"),
    "empty content list": (
        [user("x"), {"role": "assistant", "content": []}, user("y")],
        "messages.1: all messages must have non-empty content except for the optional final "
        "assistant message"),
    "duplicate tool_use ids": (
        [user("x"), asks(("t1", "a")), answers("t1"), asks(("t1", "b")), answers("t1")],
        "messages.3.content.0: `tool_use` ids must be unique"),
    "id outside the pattern": (
        [user("x"), asks(("toolu.1", "a")), answers("toolu.1")],
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    "trailing whitespace in a final assistant message": (
        [user("x"), {"role": "assistant", "content": [{"type": "text", "text": "I think "}]}],
        "messages: final assistant content cannot end with trailing whitespace"),
}


@pytest.fixture
def client():
    return OfflineModel().client()


def refusal(client, messages: list, **extra) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**{"model": MODEL_NAME, "max_tokens": 100, "messages": messages,
                                  **extra})
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    return caught.value.body["error"]["message"]


@pytest.mark.parametrize("case", CASES)
def test_each_rule_is_refused_with_the_api_wording(client, case):
    messages, wording = CASES[case]
    assert refusal(client, messages) == wording


def test_a_valid_request_with_a_final_assistant_message_is_answered(client):
    reply = client.messages.create(model=MODEL_NAME, max_tokens=100, messages=[
        user("x"), asks(("t1", "a")), answers("t1", after=[NOTE]),
        {"role": "assistant", "content": "Reading"}])
    assert reply.content


@pytest.mark.parametrize(("max_tokens", "wording"), [
    (0, "max_tokens: Input should be greater than or equal to 1"),
    (-5, "max_tokens: Input should be greater than or equal to 1"),
    (MAX_OUTPUT_TOKENS + 1, f"max_tokens: {MAX_OUTPUT_TOKENS + 1} > {MAX_OUTPUT_TOKENS}, which is "
     "the maximum allowed number of output tokens for offline-compact-1"),
])
def test_max_tokens_outside_one_to_the_model_maximum_is_refused(max_tokens, wording):
    """Sent as raw JSON: the SDK itself refuses a non-streaming call this large."""
    status, body = respond({"max_tokens": max_tokens, "messages": [user("x")]})
    assert status == 400 and body["error"]["message"] == wording


def test_a_prompt_or_prompt_plus_max_tokens_over_the_window_is_refused():
    client = OfflineModel(window_tokens=1_000).client()
    messages, too_long = [user("x" * 3_400)], [user("x" * 5_000)]
    tokens = count_tokens({"messages": messages})
    assert tokens < 1_000 < tokens + 200                      # the prompt alone fits
    assert refusal(client, messages, max_tokens=200) == (
        f"input length and `max_tokens` exceed context limit: {tokens} + 200 > 1000, decrease "
        "input length or `max_tokens` and try again")
    assert client.messages.create(model=MODEL_NAME, max_tokens=1_000 - tokens,
                                  messages=messages).content
    assert refusal(client, too_long) == \
        f"prompt is too long: {count_tokens({'messages': too_long})} tokens > 1000 maximum"


def _reply(messages: list, max_tokens: int) -> dict:
    return answered({"max_tokens": max_tokens, "messages": messages, "tools": TOOLS})


def test_a_reply_too_long_for_max_tokens_ends_with_max_tokens():
    messages = [user("Say hello")]
    whole = _reply(messages, 1_000)
    assert whole["stop_reason"] == "end_turn" and whole["usage"]["output_tokens"] > 20
    cut = _reply(messages, 20)
    assert cut["stop_reason"] == "max_tokens" and cut["usage"]["output_tokens"] == 20
    assert estimate_tokens(cut["content"]) <= 20
    assert whole["content"][0]["text"].startswith(cut["content"][0]["text"])
    assert cut["content"][0]["text"].strip() and messages_problem(
        [*messages, {"role": "assistant", "content": cut["content"]}, user("go on")]) is None


def test_a_tool_call_too_long_for_max_tokens_is_cut_inside_its_input(tmp_path):
    messages = [user("Read a.txt and b.txt")]
    whole = _reply(messages, 1_000)
    calls = [b for b in whole["content"] if b["type"] == "tool_use"]
    assert len(calls) == 2 and whole["stop_reason"] == "tool_use"
    partial = {**whole["content"][-1], "input": {}}
    budget = estimate_tokens([*whole["content"][:-1], partial])
    cut = _reply(messages, budget)
    assert cut["stop_reason"] == "max_tokens"
    without_ids = [{k: v for k, v in b.items() if k != "id"} for b in cut["content"]]
    assert without_ids == [{k: v for k, v in b.items() if k != "id"}       # the last call: no input
                           for b in [*whole["content"][:-1], partial]]


# ---- an independent reference for the property test's oracle ------------------------------

def reference_problem(messages: list) -> str | None:
    """The pairing, emptiness and id rules, written again apart from ``compact.offline.api``."""
    seen: set[str] = set()
    for i, message in enumerate(messages):
        content = message["content"]
        final_assistant = i == len(messages) - 1 and message["role"] == "assistant"
        if not content and not final_assistant:
            return "empty content"
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            if block["type"] == "text" and not block["text"].strip() and content:
                return "empty text"
            if block["type"] == "tool_use":
                if block["id"] in seen or not re.fullmatch(r"[a-zA-Z0-9_-]+", block["id"]):
                    return "bad id"
                seen.add(block["id"])
        calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
        results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        previous = messages[i - 1] if i else {"role": "user", "content": ""}
        asked = [b["id"] for b in previous["content"] if b["type"] == "tool_use"] \
            if previous["role"] == "assistant" and isinstance(previous["content"], list) else []
        if any(r not in asked for r in results):
            return "orphan"
        if calls and i + 1 < len(messages):
            following = messages[i + 1]["content"]
            lead = []
            for block in following if isinstance(following, list) else []:
                if block["type"] != "tool_result":
                    break
                lead.append(block["tool_use_id"])
            if set(calls) - set(lead):
                return "unanswered"
    return None


HAND_WRITTEN = [
    [user("x")],
    [user("x"), asks(("t1", "a")), answers("t1")],
    [user("x"), asks(("t1", "a")), answers("t1", after=[NOTE]), user("again")],
    [user("x"), asks(("t1", "a"), ("t2", "b")), answers("t2", "t1")],
    [user("x"), {"role": "assistant", "content": []}],
    *[messages for messages, _ in CASES.values() if "trailing" not in str(_)],
]


@pytest.mark.parametrize("messages", HAND_WRITTEN, ids=range(len(HAND_WRITTEN)))
def test_the_oracle_agrees_with_an_independent_reference(messages):
    assert (messages_problem(messages) is None) == (reference_problem(messages) is None)


def surrogate_reference(item, path: str = "") -> str | None:
    """Where a lone surrogate is (the last key, then the last value, first), written recursively."""
    if isinstance(item, str):
        return (path or "body") if re.search("[\ud800-\udfff]", item) else None
    if isinstance(item, dict):
        for key in reversed([k for k in item if isinstance(k, str)]):
            if re.search("[\ud800-\udfff]", key):
                return f"{path}.{key}" if path else "key"
        pairs = [(f"{path}.{k}" if path else str(k), v) for k, v in item.items()]
    elif isinstance(item, list):
        pairs = [(f"{path}.{k}", v) for k, v in enumerate(item)]
    else:
        return None
    return next((found for where, value in reversed(pairs)
                 if (found := surrogate_reference(value, where))), None)


def test_a_lone_surrogate_is_reported_where_it_is_deep_in_a_long_request():
    messages = [user("start")]
    for k in range(200):
        messages += [asks((f"t{k}", f"f{k}.py")), answers(f"t{k}")]
    deep = messages[397]["content"][0]
    deep["content"] = [{"type": "text", "text": "fine"}, {"type": "text", "text": "bad \udcff"}]
    payload = {"model": MODEL_NAME, "max_tokens": 10, "messages": messages}
    assert lone_surrogate(payload) == "messages.397.content.0.content.1.text"
    assert request_problem(payload, max_output_tokens=MAX_OUTPUT_TOKENS, model=MODEL_NAME) == (
        "messages.397.content.0.content.1.text: the text holds a lone surrogate, which is not "
        "valid Unicode; the request body must be valid UTF-8 JSON")
    deep["content"] = "ok"
    assert lone_surrogate(payload) is None
    messages[396]["content"][0]["input"] = {"pa\ud800th": "x.py"}
    assert lone_surrogate(payload) == "messages.396.content.0.input.pa\ud800th"
    assert lone_surrogate({"\udfff": 1, "model": "m"}) == "key"
    assert lone_surrogate("\ud800") == "body"


_TEXT = st.text(st.one_of(st.characters(max_codepoint=0x7F),
                          st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
                          st.sampled_from("é中😀")), max_size=4)
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.one_of(_TEXT, st.integers()), inner, max_size=4)),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_the_surrogate_check_reports_what_a_full_walk_reports(value):
    assert lone_surrogate(value) == surrogate_reference(value)


@pytest.mark.parametrize("text,refused", [
    (b"plain", False), (b"\\ud800", True), (b"\\uDFFF", True), (b"\xed\xa0\x80", True),
    (b"\\ud83d\\ude00", False), (b"\\\\ud800", False)], ids=repr)
def test_a_lone_surrogate_in_the_body_bytes_is_refused(text, refused):
    """A pair of escapes and an escaped backslash pass; lone escapes and raw bytes are refused."""
    body = b'{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"' + text + b'"}]}'
    status, reply = OfflineModel().respond("POST", "/v1/messages", body)
    assert (status == 400 and "lone surrogate" in reply["error"]["message"]) == refused


def test_the_ids_of_a_reply_come_from_its_request_body():
    """The same body gets the same ids (a replay is deterministic); any other body, others."""
    def ids(body: dict) -> list[str]:
        reply = answered(body)
        return [reply["id"], *(b["id"] for b in reply["content"] if b["type"] == "tool_use")]
    body = {"max_tokens": 100, "tools": TOOLS, "messages": [user("Read README.md")]}
    first = ids(body)
    assert len(first) == 2 and first == ids(body)
    assert not set(first) & set(ids({**body, "max_tokens": 101}))
