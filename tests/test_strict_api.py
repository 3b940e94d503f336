"""The offline model refuses what the real Messages API refuses, with the API's own wording (a 400);
every request field the installed SDK can send is honoured, accepted with no effect, or refused."""

from __future__ import annotations

import re
import typing

import anthropic
import pytest
from anthropic.types import message_create_params
from anthropic.types.beta import message_count_tokens_params
from anthropic.types.beta import message_create_params as beta_params
from histories import user
from hypothesis import example, given, settings
from hypothesis import strategies as st
from served import answered, calls_of, respond

from compact.offline import MAX_OUTPUT_TOKENS, MODEL_NAME, OfflineModel, count_tokens
from compact.offline.api import (
    COUNT_FIELDS,
    HONOURED,
    NO_EFFECT,
    UNSUPPORTED,
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


def answers(*ids: str, after: list | None = None) -> dict:
    results = [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids]
    return {"role": "user", "content": [*results, *(after or [])]}


NOTE = {"type": "text", "text": "here are the results"}

CASES = {
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
@example({"\udfff": 1, "model": "m"}).via("a key")
@example({"a": [{"b": "ok"}, {"pa\ud800th": "x.py", "c": "\ud800"}]}).via("a key after a value")
@example("\ud800").via("the body")
def test_the_surrogate_check_reports_what_a_full_walk_reports(value):
    assert lone_surrogate(value) == surrogate_reference(value)


@pytest.mark.parametrize("text,refused", [
    (b"plain", False), (b"\\ud800", True), (b"\\uDFFF", True), (b"\xed\xa0\x80", True),
    (b"\\ud83d\\ude00", False), (b"\\\\ud800", False)], ids=repr)
def test_a_lone_surrogate_in_the_body_bytes_is_refused(text, refused):
    """A pair of escapes and an escaped backslash pass; lone escapes and raw bytes are refused."""
    body = b'{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"' + text + b'"}]}'
    status, reply, _ = OfflineModel().answer("POST", "/v1/messages", body)
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


# ---- the request surface: every field the SDK can send ---------------------------------------

ASK = [{"role": "user", "content": "Read README.md and guide.md"}]
HANDLED = {*HONOURED, *NO_EFFECT, *UNSUPPORTED, "thinking", "output_config", "speed"}
# Fields of the SDK's params that are client-side only (headers or SDK options, never sent).
CLIENT_SIDE = {"betas", "user_profile_id", "workspace_id", "output_format"}


def send(payload: dict, headers: dict | None = None) -> tuple[int, dict]:
    return respond({"messages": ASK, **payload}, headers)


def field_refusal(payload: dict) -> str:
    status, body = send(payload)
    assert status == 400, body
    return body["error"]["message"]


def sdk_fields(*classes) -> set[str]:
    return {name for cls in classes for base in cls.__mro__ if hasattr(base, "__annotations__")
            for name in typing.get_type_hints(base)} - CLIENT_SIDE


def test_every_field_the_sdk_can_send_is_handled_one_way_or_another():
    sent = sdk_fields(message_create_params.MessageCreateParamsStreaming,
                      beta_params.MessageCreateParamsStreaming)
    assert sent - HANDLED - {"temperature", "top_p", "top_k"} == set()
    assert sdk_fields(message_count_tokens_params.MessageCountTokensParams) <= set(COUNT_FIELDS)


def test_an_unknown_field_is_refused_in_the_api_words():
    assert field_refusal({"temprature": 0.5}) == "temprature: Extra inputs are not permitted"
    status, body = respond({"messages": ASK, "max_tokens": 5}, path="/v1/messages/count_tokens")
    assert status == 400 and body["error"]["message"] == "max_tokens: Extra inputs are not permitted"


@pytest.mark.parametrize("field,value", [
    ("container", "container_1"), ("mcp_servers", [{"type": "url", "url": "x", "name": "m"}]),
    ("inference_geo", "us"), ("fallbacks", [{"model": "x"}]), ("diagnostics", {"x": 1}),
    ("speed", "fast"), ("output_config", {"format": {"type": "json_schema", "schema": {}}}),
    ("thinking", {"type": "enabled", "budget_tokens": 2_000}), ("thinking", {"type": "adaptive"}),
])
def test_a_field_it_cannot_honour_is_refused_by_name(field, value):
    message = field_refusal({field: value})
    assert message.startswith(field) and "offline-compact-1" in message


def test_fields_with_no_effect_on_a_deterministic_model_are_accepted_and_checked():
    status, reply = send({"temperature": 0, "top_p": 0.9, "top_k": 5, "metadata": {"user_id": "u"},
                          "service_tier": "auto", "cache_control": {"type": "ephemeral"}})
    assert status == 200 and reply["usage"]["cache_read_input_tokens"] == 0
    assert reply["usage"]["service_tier"] == "standard"
    assert field_refusal({"temperature": 1.5}) == "temperature: Input should be a number between 0 and 1"


def test_max_tokens_up_to_the_largest_current_model_is_accepted_and_the_reply_stays_short():
    assert MAX_OUTPUT_TOKENS == 128_000
    status, reply = send({"max_tokens": 128_000, "tools": TOOLS})
    assert status == 200 and reply["stop_reason"] == "tool_use" and reply["usage"]["output_tokens"] < 200


def test_tool_choice_none_calls_no_tool_and_says_what_it_would_call():
    _, reply = send({"tools": TOOLS, "tool_choice": {"type": "none"}})
    assert calls_of(reply) == [] and reply["stop_reason"] == "end_turn"
    assert 'next I would call read_file({"path": "README.md"})' in reply["content"][0]["text"]


def test_tool_choice_any_and_tool_force_a_call_with_no_text_before_it():
    _, auto = send({"tools": TOOLS})
    _, forced = send({"tools": TOOLS, "tool_choice": {"type": "any"}})
    assert calls_of(forced) == calls_of(auto) and [b["type"] for b in forced["content"]] == ["tool_use"] * 2
    _, one = send({"tools": TOOLS, "tool_choice": {"type": "tool", "name": "glob"}})
    assert [name for name, _ in calls_of(one)] == ["glob"]         # a tool the plan did not pick
    _, single = send({"tools": TOOLS, "tool_choice": {"type": "auto", "disable_parallel_tool_use": True}})
    assert calls_of(single) == calls_of(auto)[:1]


def test_a_forced_output_tool_gets_the_answer_it_would_have_written():
    """How LangChain's with_structured_output and pydantic-ai's output tools get an answer."""
    answer_tool = {"name": "Answer", "description": "The final answer.", "input_schema": {
        "type": "object", "required": ["text", "confidence"],
        "properties": {"text": {"type": "string"}, "confidence": {"type": "number"}}}}
    _, reply = send({"messages": [{"role": "user", "content": "hello"}], "tools": [answer_tool],
                     "tool_choice": {"type": "tool", "name": "Answer"}})
    [(name, tool_input)] = calls_of(reply)
    assert name == "Answer" and tool_input["confidence"] == 0
    assert tool_input["text"].startswith("(offline model) I am the offline teaching model")


@pytest.mark.parametrize("choice,wording", [
    ({"type": "tool", "name": "nope"}, "tool_choice: Tool 'nope' not found in provided tools"),
    ({"type": "sometimes"}, "tool_choice: Input tag found using 'type' does not match"),
])
def test_a_tool_choice_the_api_refuses_is_refused(choice, wording):
    assert field_refusal({"tools": TOOLS, "tool_choice": choice}).startswith(wording)
    assert field_refusal({"tool_choice": {"type": "any"}}) == \
        "tool_choice.any may only be specified while providing tools"


def test_stop_sequences_end_the_reply_where_one_is_written():
    _, whole = send({"tools": TOOLS})
    _, cut = send({"tools": TOOLS, "stop_sequences": ["2 file", "never"]})
    assert whole["content"][0]["text"] == "Reading 2 file(s)."
    assert cut["stop_reason"] == "stop_sequence" and cut["stop_sequence"] == "2 file"
    assert cut["content"] == [{"type": "text", "text": "Reading"}]    # no tool call after it
    assert field_refusal({"stop_sequences": "x"}) == "stop_sequences: Input should be a valid list of strings"


def test_the_anthropic_defined_tools_are_used_by_their_fixed_schemas():
    defined = [{"type": "bash_20250124", "name": "bash"},
               {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
               {"type": "memory_20250818", "name": "memory"}]
    _, reply = send({"tools": defined})
    assert calls_of(reply) == [("str_replace_based_edit_tool", {"command": "view", "path": "README.md"}),
                            ("str_replace_based_edit_tool", {"command": "view", "path": "guide.md"})]
    _, ran = send({"tools": defined, "messages": [{"role": "user", "content": "Run `ls -l` please"}]})
    assert calls_of(ran) == [("bash", {"command": "ls -l"})]
    pairs = zip(reply["content"][1:], ["# A\n", "# B\n"], strict=True)
    history = [*ASK, {"role": "assistant", "content": reply["content"]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"], "content": t}
                                            for b, t in pairs]}]
    _, done = send({"tools": defined, "messages": history})
    assert done["stop_reason"] == "end_turn" and 'H1 "A"' in done["content"][0]["text"]


def test_a_defined_tool_under_another_name_or_a_server_tool_is_refused():
    assert field_refusal({"tools": [{"type": "bash_20250124", "name": "shell"}]}) == \
        "tools.0.bash_20250124.name: Input should be 'bash'"
    message = field_refusal({"tools": [{"type": "web_search_20250305", "name": "web_search"}]})
    assert message.startswith("tools.0: the tool type 'web_search_20250305' is not supported")
    assert field_refusal({"tools": [{"name": "x"}]}) == "tools.0.custom.input_schema: Field required"


@pytest.mark.parametrize("payload,wording", [
    ({"tools": [{"name": "x", "type": {"a": 1}}]}, "tools.0.type: Input should be a valid string"),
    ({"tools": [{"name": "x", "input_schema": {"type": "object", "required": 3}}]},
     "tools.0.custom.input_schema: JSON schema is invalid: 'required' must be an array of strings"),
    ({"tools": [{"name": "x", "input_schema": {"type": "object", "required": [{"a": 1}]}}],
      "tool_choice": {"type": "any"}},
     "tools.0.custom.input_schema: JSON schema is invalid: 'required' must be an array of strings"),
    ({"context_management": {"edits": [{"type": ["clear_tool_uses_20250919"]}]}},
     "context_management.edits.0: Input tag found using 'type' does not match"),
], ids=["tool type", "required", "required names", "edit type"])
def test_a_field_of_the_wrong_json_type_is_a_400_not_a_crash(payload, wording):
    """Found by sending generated requests: each of these was a 500 (unhashable, not iterable)."""
    status, body = send(payload, {"anthropic-beta": "context-management-2025-06-27"})
    assert status == 400 and body["error"]["message"].startswith(wording), body


@pytest.mark.parametrize("tool_input", [{"path": 1.5}, {"path": ["a", "b"]}, {"path": {"x": 1}},
                                        {"command": {"a": 1}, "path": "a.txt"}], ids=repr)
def test_a_call_in_the_history_with_any_json_input_is_answered(tool_input):
    """The API takes any object as a tool_use input; the model reads what it can (three were a 500)."""
    name = "str_replace_based_edit_tool" if "command" in tool_input else "read_file"
    history = [user("read a.txt"), asks(("toolu_1", "a.txt")), answers("toolu_1")]
    history[1]["content"][0].update(name=name, input=tool_input)
    tools = [*TOOLS, {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}]
    status, reply = send({"messages": history, "tools": tools})
    assert status == 200 and reply["content"], reply


@pytest.mark.parametrize("payload,beta", [
    ({"context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}},
     "context-management-2025-06-27"),
    ({"compaction": {"type": "summarize"}}, "compact-2026-09-04"),
    ({"thread": {"type": "create"}}, "message-threads-2026-08-12"),
    ({"context_management": {"edits": [{"type": "compact_20260112"}]}}, "compact-2026-01-12"),
])
def test_a_beta_field_needs_its_beta_header(payload, beta):
    assert f"send the header `anthropic-beta: {beta}`" in field_refusal(payload)
    status, _ = send(payload, {"anthropic-beta": f"other-beta,{beta}"})
    assert status == 200

