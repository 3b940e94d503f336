"""The Messages API as the offline model speaks it, in one place: its tokenizer, every request
rule in the API's own 400 wording (``messages_problem`` is the tests' oracle), the request
surface, the Anthropic-defined tools, threads, errors and server-sent events."""

from __future__ import annotations

import copy
import json
import math
import re
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import takewhile
from typing import Any

from ..pipeline.messages import BYTES_PER_TOKEN, blocks_of, image_adjustment, tool_use_ids, wire_json

MODEL_NAME = "offline-compact-1"
HEADER = "x-offline-model"                 # on every HTTP answer: this is not Claude
IN_PROCESS_URL = f"http://{MODEL_NAME}.invalid"   # never resolves: only the in-process transport
DEFAULT_WINDOW_TOKENS = 16_000      # the teaching window, in-process (notebooks, experiments)
SERVE_WINDOW_TOKENS = 200_000       # `serve`: as large as a real model's, for any client
MAX_OUTPUT_TOKENS = 128_000         # the largest current model's maximum; its replies stay short
AGENT_MAX_TOKENS = 1_024            # what its clients ask for by default (its answers are short)
MAX_THREADS = 256                   # threads kept, by reply id
MAX_NESTING = 100                   # arrays and objects inside each other; deeper bodies are refused


def estimate_tokens(value: Any) -> int:
    """The offline tokenizer: one token per 4 UTF-8 bytes of the wire JSON (an image: 1,600)."""
    messages = value.get("messages") if isinstance(value, dict) else value     # a request, or messages
    size = len(wire_json(value).encode("utf-8", "surrogatepass")) + image_adjustment(messages)
    return math.ceil(size / BYTES_PER_TOKEN)


def count_tokens(payload: dict) -> int:
    """The input tokens of a request: its system, messages and tools."""
    return estimate_tokens({k: payload.get(k) for k in ("system", "messages", "tools") if k in payload})


ERROR_KINDS = {403: "permission_error", 404: "not_found_error", 413: "request_too_large", 500: "api_error"}


def error_answer(status: int, message: str, kind: str | None = None) -> tuple[int, dict]:
    """An error answer in the API's shape: ``{"type": "error", "error": {type, message}}``, its
    type the API's for the status unless given."""
    kind = kind or ERROR_KINDS.get(status, "invalid_request_error")
    return status, {"type": "error", "error": {"type": kind, "message": message}}


def models_answer(method: str, path: str, max_tokens: int, window: int) -> tuple[int, dict] | None:
    """``GET /v1/models`` (only this model, its limits as the Models API gives them), else None."""
    if method != "GET" or not path.startswith("/v1/models"):
        return None
    info = {"type": "model", "id": MODEL_NAME, "created_at": "2026-01-01T00:00:00Z",
            "display_name": "offline-compact-1 (the embedded teaching model, not Claude)",
            "lifecycle": "active", "max_tokens": max_tokens, "max_input_tokens": window}
    if path.rstrip("/") == "/v1/models":
        return 200, {"data": [info], "has_more": False, "first_id": MODEL_NAME, "last_id": MODEL_NAME}
    if path == f"/v1/models/{MODEL_NAME}":
        return 200, info
    return error_answer(404, f"model {path.rsplit('/', 1)[-1]!r} is not served here; this "
                        f"server is {MODEL_NAME}")


_SURROGATE = re.compile("[\ud800-\udfff]")
NOT_AN_OBJECT = "Input should be a valid dictionary or object to extract fields from"


def _walk(value: Any) -> Iterator[tuple[str, int, Any]]:
    """(path, depth, item) of ``value`` and all it holds, keys too, without recursion (the last
    key first, then the last value)."""
    stack = [("", 1, value)]
    while stack:
        path, depth, item = stack.pop()
        yield path, depth, item
        if isinstance(item, dict):
            stack.extend((f"{path}.{k}" if path else str(k), depth + 1, v) for k, v in item.items())
            stack.extend((f"{path}.{k}" if path else "key", depth + 1, k) for k in item if isinstance(k, str))
        elif isinstance(item, list):
            stack.extend((f"{path}.{k}", depth + 1, v) for k, v in enumerate(item))


def json_problem(body: bytes) -> tuple[Any, str | None]:
    """(payload, None), or (None, why the body is not a JSON document the API can read)."""
    try:
        payload = json.loads(body or b"{}")
    except RecursionError:
        return None, "the request body is nested too deeply to parse"
    except ValueError as error:             # bad JSON, or bytes that are not UTF-8
        return None, f"the request body is not valid JSON ({error})"
    if any(depth > MAX_NESTING for _, depth, item in _walk(payload) if isinstance(item, (dict, list))):
        return None, (f"the request body is nested too deeply: arrays and objects more than "
                      f"{MAX_NESTING} levels inside each other are not accepted")
    return payload, None


def lone_surrogate(value: Any) -> str | None:
    """The path of the first string holding a lone surrogate (no client can encode it), or None."""
    return next((path or "body" for path, _, item in _walk(value)
                 if isinstance(item, str) and _SURROGATE.search(item)), None)


_ID = re.compile(r"[a-zA-Z0-9_-]+")
IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
KNOWN_BLOCKS = ("text", "image", "document", "tool_use", "tool_result", "thinking",
                "redacted_thinking", "search_result", "compaction")
RESULT_BLOCKS = ("text", "image", "document", "search_result")   # inside a tool_result
EFFORTS = ("low", "medium", "high", "xhigh", "max")


ONLY_IN = {"tool_use": "assistant", "tool_result": "user", "compaction": "assistant"}


def literal(where: str, allowed: tuple[str, ...]) -> str:
    """The refusal of a value outside ``allowed``: "Input should be 'a', 'b' or 'c'"."""
    quoted = [f"'{a}'" for a in allowed]
    return f"{where}: Input should be " + (f"{', '.join(quoted[:-1])} or " if quoted[1:] else "") + quoted[-1]


def _tag_problem(kind: Any, allowed: tuple[str, ...], where: str) -> str:
    return (f"{where}: Input tag {kind!r} found using 'type' does not match any of the "
            f"expected tags: {', '.join(repr(t) for t in allowed)}")


def _id_problem(value: Any, where: str) -> str | None:
    ok = isinstance(value, str) and _ID.fullmatch(value)
    return None if ok else f"{where}: String should match pattern '^[a-zA-Z0-9_-]+$'"


def _text_problem(text: Any, where: str) -> str | None:
    if not isinstance(text, str):
        return f"{where}.text: Input should be a valid string"
    if not text:
        return "messages: text content blocks must be non-empty"
    return None if text.strip() else "messages: text content blocks must contain non-whitespace text"


def _image_problem(block: dict, where: str) -> str | None:
    source, where = block.get("source"), f"{where}.image.source"
    if not isinstance(source, dict):
        return f"{where}: Field required"
    if source.get("type") == "base64":
        if source.get("media_type") not in IMAGE_MEDIA_TYPES:
            return literal(f"{where}.base64.media_type", IMAGE_MEDIA_TYPES)
        return None if isinstance(source.get("data"), str) and source["data"] else \
            f"{where}.base64.data: Field required"
    if source.get("type") == "url":
        return None if isinstance(source.get("url"), str) else f"{where}.url.url: Field required"
    return _tag_problem(source.get("type"), ("base64", "url"), where)


def _inner_problem(block: Any, allowed: tuple[str, ...], where: str) -> str | None:
    """A block's shape, its tag, and a text or image block's own rules."""
    if not isinstance(block, dict):
        return f"{where}: {NOT_AN_OBJECT}"
    kind = block.get("type")
    if kind not in allowed:
        return _tag_problem(kind, allowed, where)
    if kind == "text":
        return _text_problem(block.get("text"), where)
    return _image_problem(block, where) if kind == "image" else None


def _result_problem(block: dict, where: str) -> str | None:
    content = block.get("content")
    problem = _id_problem(block.get("tool_use_id"), f"{where}.tool_result.tool_use_id")
    if problem or content is None or isinstance(content, str):
        return problem
    if not isinstance(content, list):
        return f"{where}.tool_result.content: Input should be a valid string or list"
    return next((p for k, inner in enumerate(content)
                 if (p := _inner_problem(inner, RESULT_BLOCKS, f"{where}.tool_result.content.{k}"))), None)


def _use_problem(block: dict, where: str, seen_ids: set[str]) -> str | None:
    if problem := _id_problem(block.get("id"), f"{where}.tool_use.id"):
        return problem
    if not isinstance(block.get("name"), str) or not block["name"]:
        return f"{where}.tool_use.name: Field required"
    if not isinstance(block.get("input"), dict):
        return f"{where}.tool_use.input: Input should be a valid dictionary"
    if block["id"] in seen_ids:
        return f"{where}: `tool_use` ids must be unique"
    seen_ids.add(block["id"])
    return None


def _block_problem(block: Any, role: str, where: str, seen_ids: set[str]) -> str | None:
    problem = _inner_problem(block, KNOWN_BLOCKS, where)
    kind = None if problem else block["type"]
    if ONLY_IN.get(kind, role) != role:
        return f"{where}: `{kind}` blocks can only be in `{ONLY_IN[kind]}` messages"
    if kind == "tool_use":
        return _use_problem(block, where, seen_ids)
    return _result_problem(block, where) if kind == "tool_result" else problem


def _message_problem(message: Any, i: int, last: bool, seen_ids: set[str]) -> str | None:
    """What is wrong with message ``i`` on its own (its role, its content, its blocks)."""
    if not isinstance(message, dict):
        return f"messages.{i}: {NOT_AN_OBJECT}"
    role, content = message.get("role"), message.get("content")
    if role not in ("user", "assistant"):
        return literal(f"messages.{i}.role", ("user", "assistant"))
    opens_with_compaction = isinstance(content, list) and bool(content) and \
        isinstance(content[0], dict) and content[0].get("type") == "compaction"
    if i == 0 and role != "user" and not opens_with_compaction:
        return 'messages: first message must use the "user" role'
    if "content" not in message:
        return f"messages.{i}.content: Field required"
    if not isinstance(content, (str, list)):
        return f"messages.{i}.content: Input should be a valid string or list"
    if not content and not (last and role == "assistant"):
        return (f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message")
    if isinstance(content, str):
        return "messages: text content blocks must contain non-whitespace text" \
            if content and not content.strip() else None
    return next((p for j, block in enumerate(content)
                 if (p := _block_problem(block, role, f"messages.{i}.content.{j}", seen_ids))), None)


def _pairing_problem(messages: list) -> str | None:
    """A result with no call just before it, or a call the next message does not open by answering."""
    for i, message in enumerate(messages):
        asked = tool_use_ids(messages[i - 1]) if i else []
        for j, block in enumerate(blocks_of(message)):
            if block.get("type") == "tool_result" and block["tool_use_id"] not in asked:
                return (f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
                        f"blocks: {block['tool_use_id']}. Each `tool_result` block must have a "
                        "corresponding `tool_use` block in the previous message.")
        following = messages[i + 1] if i + 1 < len(messages) else {}
        opening = blocks_of(following) if following.get("role") == "user" else []
        answered = {b.get("tool_use_id") for b in takewhile(lambda b: b["type"] == "tool_result", opening)}
        missing = [t for t in tool_use_ids(message) if following and t not in answered]
        if missing:
            return (f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                    "corresponding `tool_result` block in the next message.")
    return None


def messages_problem(messages: Any) -> str | None:
    """The first rule ``messages`` breaks, in the API's words, or None."""
    if not isinstance(messages, list):
        return "messages: Input should be a valid list"
    if not messages:
        return "messages: at least one message is required"
    seen_ids: set[str] = set()
    problem = next((p for i, message in enumerate(messages)
                    if (p := _message_problem(message, i, i == len(messages) - 1, seen_ids))), None)
    if problem or (problem := _pairing_problem(messages)) or messages[-1]["role"] != "assistant":
        return problem
    content = messages[-1]["content"]      # a prefill may not end with whitespace
    tail = content if isinstance(content, str) else (
        content[-1].get("text", "") if content and content[-1].get("type") == "text" else "")
    return "messages: final assistant content cannot end with trailing whitespace" \
        if tail and tail != tail.rstrip() else None


def _max_tokens_problem(payload: dict, max_output_tokens: int, model: str) -> str | None:
    limit = payload.get("max_tokens")
    if "max_tokens" not in payload:
        return "max_tokens: Field required"
    if type(limit) is not int:
        return "max_tokens: Input should be a valid integer"
    if limit < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    if limit > max_output_tokens:
        return (f"max_tokens: {limit} > {max_output_tokens}, which is the maximum allowed "
                f"number of output tokens for {model}")
    return None


def _system_problem(system: Any) -> str | None:
    blocks = [] if system is None or isinstance(system, str) else system
    if not isinstance(blocks, list) or not all(isinstance(b, dict) and b.get("type") == "text"
                                               for b in blocks):
        return "system: Input should be a valid string or a list of text blocks"
    return next((p for k, b in enumerate(blocks) if (p := _text_problem(b.get("text"), f"system.{k}"))), None)


def request_problem(payload: Any, *, max_output_tokens: int, model: str,
                    count_only: bool = False) -> str | None:
    """The first rule a ``/v1/messages`` (or ``count_tokens``) body breaks, or None."""
    if not isinstance(payload, dict):
        return NOT_AN_OBJECT
    if where := lone_surrogate(payload):
        return (f"{where}: the text holds a lone surrogate, which is not valid Unicode; the "
                "request body must be valid UTF-8 JSON")
    if not isinstance(payload.get("model"), str) or not payload["model"]:
        return "model: Field required"
    return (None if count_only else _max_tokens_problem(payload, max_output_tokens, model)) \
        or _system_problem(payload.get("system")) or tools_problem(payload.get("tools")) \
        or messages_problem(payload.get("messages"))


def window_problem(tokens: int, max_tokens: int | None, window: int) -> str | None:
    """The API's refusals when the prompt, or the prompt plus ``max_tokens``, exceeds the window."""
    if tokens > window:
        return f"prompt is too long: {tokens} tokens > {window} maximum"
    if max_tokens is not None and tokens + max_tokens > window:
        return (f"input length and `max_tokens` exceed context limit: {tokens} + {max_tokens} "
                f"> {window}, decrease input length or `max_tokens` and try again")
    return None


# type → (the fixed name, the role it plays); the memory tool is never used for workspace files
DEFINED: dict[str, tuple[str, str]] = {
    "bash_20250124": ("bash", "bash"), "bash_20241022": ("bash", "bash"),
    "text_editor_20250728": ("str_replace_based_edit_tool", "text_editor"),
    "text_editor_20250429": ("str_replace_based_edit_tool", "text_editor"),
    "text_editor_20250124": ("str_replace_editor", "text_editor"),
    "memory_20250818": ("memory", "memory"),
}
EDITOR_COMMANDS = {"view": "read_file", "create": "write_file", "str_replace": "edit_file"}
_SCHEMAS = {
    "text_editor": {"type": "object", "required": ["command", "path"], "properties": {
        "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert"]},
        "path": {"type": "string"}, "file_text": {"type": "string"},
        "old_str": {"type": "string"}, "new_str": {"type": "string"},
        "view_range": {"type": "array"}, "insert_line": {"type": "integer"}}},
    "bash": {"type": "object", "required": ["command"], "properties": {
        "command": {"type": "string"}, "restart": {"type": "boolean"}}},
}


def defined_role(spec: dict) -> str | None:
    """The role of an Anthropic-defined tool (``bash``, ``text_editor``, ``memory``), else None."""
    entry = DEFINED.get(str(spec.get("type")))
    return entry[1] if entry else None


def schema_of(spec: dict) -> dict:
    schema = _SCHEMAS.get(defined_role(spec)) or spec.get("input_schema")
    return schema if isinstance(schema, dict) else {}


def _tool_problem(index: int, spec: Any) -> str | None:
    where = f"tools.{index}"
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
        return f"{where}: Input should be a valid tool, with a name"
    kind = spec.get("type")
    if not isinstance(kind, str | None):
        return f"{where}.type: Input should be a valid string"
    if kind in (None, "custom"):
        schema = spec.get("input_schema")
        if not isinstance(schema, dict):
            return f"{where}.custom.input_schema: Field required"
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            return (f"{where}.custom.input_schema: JSON schema is invalid: 'required' must be an "
                    "array of strings")
        return None if schema.get("type") == "object" else \
            f"{where}.custom.input_schema.type: Input should be 'object'"
    if kind in DEFINED:
        name = DEFINED[kind][0]
        return None if spec["name"] == name else f"{where}.{kind}.name: Input should be '{name}'"
    return (f"{where}: the tool type {kind!r} is not supported by the offline model "
            "offline-compact-1 (it runs no server tools: web search, web fetch, code execution, "
            "computer use, ...); give a custom tool with an input_schema, or use the real API")


def tools_problem(tools: Any) -> str | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return "tools: Input should be a valid list"
    seen: set[str] = set()
    for index, spec in enumerate(tools):
        if problem := _tool_problem(index, spec):
            return problem
        if spec["name"] in seen:
            return f"tools: Tool names must be unique. Duplicate: {spec['name']!r}"
        seen.add(spec["name"])
    return None


HONOURED = ("model", "max_tokens", "messages", "system", "tools", "tool_choice",
            "stop_sequences", "stream", "context_management", "compaction", "thread")
# accepted, with no effect on a deterministic model without a cache (docs/offline-model.md says why)
NO_EFFECT = ("metadata", "temperature", "top_p", "top_k", "service_tier", "cache_control")
UNSUPPORTED = {
    "container": "code-execution containers", "mcp_servers": "remote MCP servers",
    "fallbacks": "model fallbacks", "fallback_credit_token": "fallback credits",
    "billing_policy": "billing policies", "diagnostics": "request diagnostics",
    "inference_geo": "inference regions",
}
COUNT_FIELDS = ("model", "messages", "system", "tools", "tool_choice", "thinking",
                "context_management", "compaction", "cache_control", "output_config", "speed",
                "mcp_servers", "billing_policy")
BETAS = {"context_management": "context-management-2025-06-27", "compact_20260112": "compact-2026-01-12",
         "compaction": "compact-2026-09-04", "thread": "message-threads-2026-08-12"}


def unsupported(field: str, what: str) -> str:
    return (f"{field}: {what} are not supported by the offline model offline-compact-1; remove it, "
            "or point the client at the real API (ANTHROPIC_API_KEY)")


def _field_problem(payload: dict, count_only: bool) -> str | None:
    allowed = COUNT_FIELDS if count_only else (*HONOURED, *NO_EFFECT, *UNSUPPORTED, "thinking",
                                               "output_config", "speed")
    for name in payload:
        if name not in allowed:
            return f"{name}: Extra inputs are not permitted"
        if name in UNSUPPORTED and payload[name] not in (None, [], {}):
            return unsupported(name, UNSUPPORTED[name])
    return None


def _number(value: Any, low: float, high: float = math.inf) -> bool:
    return type(value) in (int, float) and low <= value <= high


def all_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(s, str) for s in value)


def rules_problem(value: dict, rules: tuple, where: str = "") -> str | None:
    """The refusal of the first rule (field, accepts, refusal) whose field is sent and not
    accepted; a refusal is a text (``{where}`` filled in) or made from the value."""
    return next((refusal(value[name]) if callable(refusal) else refusal.format(where=where)
                 for name, accepts, refusal in rules
                 if value.get(name) is not None and not accepts(value[name])), None)


def _config_extra(config: dict) -> list:
    return [k for k, v in config.items() if v is not None and k != "effort"]


# thinking, output_config and speed: only their plain settings are supported
VALUE_RULES = (
    ("thinking", lambda v: isinstance(v, dict) and v.get("type") == "disabled", lambda v: (
        f"thinking: {v!r}: extended thinking is not supported by the offline model "
        'offline-compact-1 (it writes no thinking blocks); send {"type": "disabled"} or leave it out')),
    ("output_config", lambda v: isinstance(v, dict), "output_config: Input should be a valid dictionary"),
    ("output_config", lambda v: not _config_extra(v), lambda v: unsupported(
        f"output_config.{_config_extra(v)[0]}", "structured outputs and task budgets")),
    ("output_config", lambda v: v.get("effort") in (None, *EFFORTS),
     literal("output_config.effort", EFFORTS)),
    ("speed", lambda v: v == "standard", unsupported("speed", "fast-mode requests")),
    ("temperature", lambda v: _number(v, 0, 1), "temperature: Input should be a number between 0 and 1"),
    ("top_p", lambda v: _number(v, 0, 1), "top_p: Input should be a number between 0 and 1"),
    ("top_k", lambda v: type(v) is int and v >= 0, "top_k: Input should be a non-negative integer"),
    ("service_tier", lambda v: v in ("auto", "standard_only"),
     literal("service_tier", ("auto", "standard_only"))),
    ("stream", lambda v: v in (True, False), "stream: Input should be a valid boolean"),
    ("stop_sequences", all_strings, "stop_sequences: Input should be a valid list of strings"),
    ("stop_sequences", lambda v: all(s.strip() for s in v),
     "stop_sequences: each stop sequence must contain non-whitespace characters"),
)


def _tool_choice_problem(choice: Any, tools: Any) -> str | None:
    if choice is None:
        return None
    if not isinstance(choice, dict) or choice.get("type") not in ("auto", "any", "tool", "none"):
        return ("tool_choice: Input tag found using 'type' does not match any of the expected "
                "tags: 'auto', 'any', 'tool', 'none'")
    if not isinstance(choice.get("disable_parallel_tool_use", False), bool):
        return "tool_choice.disable_parallel_tool_use: Input should be a valid boolean"
    names = [t.get("name") for t in tools or [] if isinstance(t, dict)]
    if choice["type"] in ("any", "tool") and not names:
        return f"tool_choice.{choice['type']} may only be specified while providing tools"
    if choice["type"] == "tool" and choice.get("name") not in names:
        return f"tool_choice: Tool '{choice.get('name')}' not found in provided tools"
    return None


def edits_of(payload: dict) -> list:
    management = payload.get("context_management")
    edits = management.get("edits") if isinstance(management, dict) else None
    return edits if isinstance(edits, list) else []


def _needed_betas(payload: dict) -> Iterator[tuple[str, str]]:
    """(field, beta) for each beta field sent: context editing needs its beta, the compaction edit
    the compaction beta."""
    yield from ((name, BETAS[name]) for name in ("compaction", "thread") if payload.get(name) is not None)
    if payload.get("context_management") is not None:
        kinds = {str(e.get("type")) for e in edits_of(payload) if isinstance(e, dict)}
        if "compact_20260112" in kinds:
            yield "context_management.edits.compact_20260112", BETAS["compact_20260112"]
        if kinds - {"compact_20260112"} or not kinds:
            yield "context_management", BETAS["context_management"]


def _betas_problem(payload: dict, headers: Any) -> str | None:
    """A beta field sent without its ``anthropic-beta`` header (comma-separated, as the SDK sends)."""
    sent = {part.strip() for part in str((headers or {}).get("anthropic-beta", "")).split(",")}
    return next((f"{field}: this feature is in beta; send the header `anthropic-beta: {beta}` "
                 f"(the SDK: client.beta.messages.create(..., betas=[\"{beta}\"]))"
                 for field, beta in _needed_betas(payload) if beta not in sent), None)


def surface_problem(payload: dict, headers: Any = None, count_only: bool = False) -> str | None:
    """The first field of ``payload`` the offline model refuses, in the API's words, or None."""
    return _field_problem(payload, count_only) or rules_problem(payload, VALUE_RULES) \
        or tools_problem(payload.get("tools")) \
        or _tool_choice_problem(payload.get("tool_choice"), payload.get("tools")) \
        or _betas_problem(payload, headers)


CREATE_ONLY = ("system", "tools")


@dataclass
class Threads:
    """SDK 2.14's tool runner sends ``thread: {"type": "create"}``, then ``continue`` with only the
    new messages; a continue from a reply no longer held gets the API's ``thread_not_found``."""

    held: OrderedDict = field(default_factory=OrderedDict)   # reply id → the request it ends

    def resolve(self, payload: dict) -> tuple[dict, tuple[int, dict] | None]:
        """(the request with the thread's conversation in front, None) or (payload, the error)."""
        thread = payload.get("thread")
        if thread is None or isinstance(thread, dict) and thread.get("type") == "create":
            return payload, None
        if not isinstance(thread, dict) or thread.get("type") != "continue":
            return payload, error_answer(400, literal("thread.type", ("create", "continue")))
        previous = thread.get("previous_message_id")
        held = self.held.get(previous) if isinstance(previous, str) else None
        if held is None:
            status, body = error_answer(404, f"thread.previous_message_id: no thread ends at "
                                        f"{previous!r} (this server keeps the last {MAX_THREADS}); "
                                        "send the whole conversation")
            body["error"]["details"] = {"error_code": "thread_not_found"}
            return payload, (status, body)
        if repeated := [f for f in CREATE_ONLY if f in payload]:
            return payload, error_answer(400, f"{repeated[0]}: a thread continue takes it from "
                                         "the thread; leave it out")
        if not isinstance(payload.get("messages"), list):
            return payload, None            # the rules refuse it in the API's words
        return {**payload, **{f: held[f] for f in CREATE_ONLY if f in held},
                "messages": [*held["messages"], *payload["messages"]]}, None

    def record(self, payload: dict, reply: dict) -> None:
        """Keep the conversation a threaded request ended in, under the reply's id (its messages
        shared, not copied: nothing changes a request's messages in place)."""
        if payload.get("thread") is None:
            return
        self.held[reply["id"]] = {
            **{f: payload[f] for f in CREATE_ONLY if f in payload},
            "messages": [*payload["messages"],
                         {"role": "assistant", "content": copy.deepcopy(reply["content"])}]}
        self.held.move_to_end(reply["id"])
        while len(self.held) > MAX_THREADS:
            self.held.popitem(last=False)


PIECE = 24                     # characters per text delta / JSON delta: every client sees several
CONTENT_TYPE = "text/event-stream; charset=utf-8"


def sse(kind: str, **fields: Any) -> bytes:
    """One server-sent event: its name, and its data with that name as its ``type``."""
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields}, ensure_ascii=False)}\n\n".encode()


def _block_events(index: int, block: dict) -> Iterator[bytes]:
    def pieces(text: str) -> list[str]:
        return [text[i:i + PIECE] for i in range(0, len(text), PIECE)] or [""]
    if block["type"] == "text":
        start = {**block, "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
    elif block["type"] == "tool_use":
        start = {**block, "input": {}}
        text = json.dumps(block["input"], ensure_ascii=False) if block["input"] else ""
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces(text)]
    else:                                   # compaction: one delta with the whole summary
        start = {"type": "compaction", "content": None}
        deltas = [{"type": "compaction_delta", "content": block.get("content"),
                   "encrypted_content": block.get("encrypted_content")}]
    yield sse("content_block_start", index=index, content_block=start)
    yield from (sse("content_block_delta", index=index, delta=delta) for delta in deltas)
    yield sse("content_block_stop", index=index)


def event_stream(body: dict) -> Iterator[bytes]:
    """The events of a streamed answer, in the API's order: ``message_start`` (empty content, no
    stop reason), ``ping``, each block's start/deltas/stop, ``message_delta`` (stop reason, usage,
    ``context_management``), ``message_stop``; or the ``error`` event of one that failed."""
    if body.get("type") == "error":
        yield sse("error", error=body["error"])
        return
    usage = {**body["usage"], "output_tokens": 1 if body["content"] else 0}
    usage.pop("iterations", None)
    message = {**body, "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
    message.pop("context_management", None)
    yield sse("message_start", message=message)
    yield sse("ping")
    for index, block in enumerate(body["content"]):
        yield from _block_events(index, block)
    managed = {"context_management": body["context_management"]} \
        if body.get("context_management") is not None else {}
    ending = {"stop_reason": body["stop_reason"], "stop_sequence": body["stop_sequence"]}
    yield sse("message_delta", delta=ending,
              usage={k: v for k, v in body["usage"].items() if k != "service_tier"}, **managed)
    yield sse("message_stop")
