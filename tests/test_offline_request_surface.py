"""Every request field the installed SDK can send is honoured, accepted with no effect, or refused."""

from __future__ import annotations

import typing

import pytest
from anthropic.types import message_create_params
from anthropic.types.beta import message_count_tokens_params
from anthropic.types.beta import message_create_params as beta_params
from served import calls_of, respond

from compact.offline import MAX_OUTPUT_TOKENS
from compact.offline.api import COUNT_FIELDS, HONOURED, NO_EFFECT, UNSUPPORTED
from compact.tools import TOOLS

ASK = [{"role": "user", "content": "Read README.md and guide.md"}]
HANDLED = {*HONOURED, *NO_EFFECT, *UNSUPPORTED, "thinking", "output_config", "speed"}
# Fields of the SDK's params that are client-side only (headers or SDK options, never sent).
CLIENT_SIDE = {"betas", "user_profile_id", "workspace_id", "output_format"}


def send(payload: dict, headers: dict | None = None) -> tuple[int, dict]:
    return respond({"messages": ASK, **payload}, headers)


def refusal(payload: dict) -> str:
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
    assert refusal({"temprature": 0.5}) == "temprature: Extra inputs are not permitted"
    status, body = respond({"messages": ASK, "max_tokens": 5}, path="/v1/messages/count_tokens")
    assert status == 400 and body["error"]["message"] == "max_tokens: Extra inputs are not permitted"


@pytest.mark.parametrize("field,value", [
    ("container", "container_1"), ("mcp_servers", [{"type": "url", "url": "x", "name": "m"}]),
    ("inference_geo", "us"), ("fallbacks", [{"model": "x"}]), ("diagnostics", {"x": 1}),
    ("speed", "fast"), ("output_config", {"format": {"type": "json_schema", "schema": {}}}),
    ("thinking", {"type": "enabled", "budget_tokens": 2_000}), ("thinking", {"type": "adaptive"}),
])
def test_a_field_it_cannot_honour_is_refused_by_name(field, value):
    message = refusal({field: value})
    assert message.startswith(field) and "offline-compact-1" in message


def test_fields_with_no_effect_on_a_deterministic_model_are_accepted_and_checked():
    status, reply = send({"temperature": 0, "top_p": 0.9, "top_k": 5, "metadata": {"user_id": "u"},
                          "service_tier": "auto", "cache_control": {"type": "ephemeral"}})
    assert status == 200 and reply["usage"]["cache_read_input_tokens"] == 0
    assert reply["usage"]["service_tier"] == "standard"
    assert refusal({"temperature": 1.5}) == "temperature: Input should be a number between 0 and 1"


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
    assert refusal({"tools": TOOLS, "tool_choice": choice}).startswith(wording)
    assert refusal({"tool_choice": {"type": "any"}}) == \
        "tool_choice.any may only be specified while providing tools"


def test_stop_sequences_end_the_reply_where_one_is_written():
    _, whole = send({"tools": TOOLS})
    _, cut = send({"tools": TOOLS, "stop_sequences": ["2 file", "never"]})
    assert whole["content"][0]["text"] == "Reading 2 file(s)."
    assert cut["stop_reason"] == "stop_sequence" and cut["stop_sequence"] == "2 file"
    assert cut["content"] == [{"type": "text", "text": "Reading"}]    # no tool call after it
    assert refusal({"stop_sequences": "x"}) == "stop_sequences: Input should be a valid list of strings"


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
    assert refusal({"tools": [{"type": "bash_20250124", "name": "shell"}]}) == \
        "tools.0.bash_20250124.name: Input should be 'bash'"
    message = refusal({"tools": [{"type": "web_search_20250305", "name": "web_search"}]})
    assert message.startswith("tools.0: the tool type 'web_search_20250305' is not supported")
    assert refusal({"tools": [{"name": "x"}]}) == "tools.0.custom.input_schema: Field required"


@pytest.mark.parametrize("payload,wording", [
    ({"tools": [{"name": "x", "type": {"a": 1}}]}, "tools.0.type: Input should be a valid string"),
    ({"tools": [{"name": "x", "input_schema": {"type": "object", "required": 3}}]},
     "tools.0.custom.input_schema: JSON schema is invalid: 'required' must be an array"),
    ({"context_management": {"edits": [{"type": ["clear_tool_uses_20250919"]}]}},
     "context_management.edits.0: Input tag found using 'type' does not match"),
], ids=["tool type", "required", "edit type"])
def test_a_field_of_the_wrong_json_type_is_a_400_not_a_crash(payload, wording):
    """Found by sending generated requests: each of these was a 500 (unhashable, not iterable)."""
    status, body = send(payload, {"anthropic-beta": "context-management-2025-06-27"})
    assert status == 400 and body["error"]["message"].startswith(wording), body


@pytest.mark.parametrize("tool_input", [{"path": 1.5}, {"path": ["a", "b"]}, {"path": {"x": 1}},
                                        {"command": {"a": 1}, "path": "a.txt"}], ids=repr)
def test_a_call_in_the_history_with_any_json_input_is_answered(tool_input):
    """The API takes any object as a tool_use input; the model reads what it can (three were a 500)."""
    name = "str_replace_based_edit_tool" if "command" in tool_input else "read_file"
    history = [{"role": "user", "content": "read a.txt"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": name,
                                                  "input": tool_input}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                             "content": "x"}]}]
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
    assert f"send the header `anthropic-beta: {beta}`" in refusal(payload)
    status, _ = send(payload, {"anthropic-beta": f"other-beta,{beta}"})
    assert status == 200

