"""The Messages API's request rules, with the real API's wording, so what passes offline passes live.

``request_problem`` returns the first thing the real API would reject about a request body
(a 400 ``invalid_request_error``), or None; ``window_problem`` the context-window refusal;
``error_answer`` puts any refusal (of this module, the server or the models list) in the
API's error shape.
The agent's tests use both as the oracle for every history ``agent_loop`` sends.

Wordings are the API's own, as seen in its 400 bodies: ``messages.N: `tool_use` ids were
found without `tool_result` blocks immediately after: ...``, ``messages: text content blocks
must be non-empty``, ``max_tokens: N > M, which is the maximum allowed number of output
tokens for ...``, ``input length and `max_tokens` exceed context limit: ...``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..pipeline.messages import blocks_of, tool_use_ids

ID_PATTERN = "^[a-zA-Z0-9_-]+$"
_ID = re.compile(r"[a-zA-Z0-9_-]+")
IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
# Blocks a request may hold; anything else is an unknown tag.
KNOWN_BLOCKS = ("text", "image", "document", "tool_use", "tool_result", "thinking",
                "redacted_thinking", "search_result", "compaction")
RESULT_BLOCKS = ("text", "image", "document", "search_result")   # inside a tool_result
_NOT_AN_OBJECT = "Input should be a valid dictionary or object to extract fields from"
_SURROGATE = re.compile("[\ud800-\udfff]")


def _unanswered(index: int, ids: list[str]) -> str:
    return (f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(ids)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message.")


def _orphan(index: int, j: int, tool_use_id: str) -> str:
    return (f"messages.{index}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
            f"blocks: {tool_use_id}. Each `tool_result` block must have a corresponding "
            "`tool_use` block in the previous message.")


def _pattern(where: str) -> str:
    return f"{where}: String should match pattern '{ID_PATTERN}'"


def lone_surrogate(value: Any) -> str | None:
    """The path of the first string holding a lone surrogate (not valid Unicode text), or None.

    Why: such a string cannot be encoded as UTF-8, so no real client can send it and any
    reply echoing it would poison every later request. Every request is checked, so the whole
    body is first serialised once (keys and strings kept as characters) and the walk that
    names the place runs only when that text cannot be encoded.
    """
    try:
        json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return None
    except UnicodeEncodeError:
        pass                                 # a surrogate somewhere: the walk finds where
    except (TypeError, ValueError, RecursionError):
        pass                                 # not plain JSON (or too deep): the walk decides
    return _surrogate_path(value)


# In JSON text, a lone surrogate can come only from a ``\uD800``–``\uDFFF`` escape or from a
# surrogate's own UTF-8 bytes (``json.loads`` decodes bytes with ``surrogatepass``).
# Each is searched only where its first bytes occur (a fast scan), as a body rarely holds either.
_SURROGATE_ESCAPE, _SURROGATE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]"), re.compile(rb"\xed[\xa0-\xbf]")


def surrogate_free(body: bytes) -> bool:
    """True when the JSON text ``body`` cannot parse to a string holding a surrogate, so its
    payload needs no ``lone_surrogate`` check (a pair of escapes, an escaped backslash: checked)."""
    return (b"\\u" not in body or _SURROGATE_ESCAPE.search(body) is None) and \
        (b"\xed" not in body or _SURROGATE_BYTES.search(body) is None)


def _surrogate_path(value: Any) -> str | None:
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return path or "body"
        elif isinstance(item, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in item.items())
            stack.extend((f"{path}.{k}" if path else "key", k) for k in item if isinstance(k, str))
        elif isinstance(item, list):
            stack.extend((f"{path}.{k}", v) for k, v in enumerate(item))
    return None


def _text_problem(text: Any, where: str) -> str | None:
    if not isinstance(text, str):
        return f"{where}.text: Input should be a valid string"
    if not text:
        return "messages: text content blocks must be non-empty"
    if not text.strip():
        return "messages: text content blocks must contain non-whitespace text"
    return None


def _image_problem(block: dict, where: str) -> str | None:
    source = block.get("source")
    if not isinstance(source, dict):
        return f"{where}.image.source: Field required"
    if source.get("type") == "base64":
        if source.get("media_type") not in IMAGE_MEDIA_TYPES:
            return (f"{where}.image.source.base64.media_type: Input should be "
                    + ", ".join(f"'{t}'" for t in IMAGE_MEDIA_TYPES[:-1])
                    + f" or '{IMAGE_MEDIA_TYPES[-1]}'")
        if not isinstance(source.get("data"), str) or not source["data"]:
            return f"{where}.image.source.base64.data: Field required"
        return None
    if source.get("type") == "url":
        return None if isinstance(source.get("url"), str) else f"{where}.image.source.url.url: Field required"
    return (f"{where}.image.source: Input tag {source.get('type')!r} found using 'type' does "
            "not match any of the expected tags: 'base64', 'url'")


def _result_content_problem(content: Any, where: str) -> str | None:
    if content is None or isinstance(content, str):
        return None
    if not isinstance(content, list):
        return f"{where}.tool_result.content: Input should be a valid string or list"
    for k, block in enumerate(content):
        inner = f"{where}.tool_result.content.{k}"
        if not isinstance(block, dict):
            return f"{inner}: {_NOT_AN_OBJECT}"
        kind = block.get("type")
        if kind not in RESULT_BLOCKS:
            return _tag_problem(kind, RESULT_BLOCKS, inner)
        problem = (_text_problem(block.get("text"), inner) if kind == "text"
                   else _image_problem(block, inner) if kind == "image" else None)
        if problem:
            return problem
    return None


def _tag_problem(kind: Any, allowed: tuple[str, ...], where: str) -> str:
    return (f"{where}: Input tag {kind!r} found using 'type' does not match any of the "
            f"expected tags: {', '.join(repr(t) for t in allowed)}")


def _block_problem(block: Any, role: str, where: str, seen_ids: set[str]) -> str | None:
    if not isinstance(block, dict):
        return f"{where}: {_NOT_AN_OBJECT}"
    kind = block.get("type")
    if kind not in KNOWN_BLOCKS:
        return _tag_problem(kind, KNOWN_BLOCKS, where)
    if kind == "text":
        return _text_problem(block.get("text"), where)
    if kind == "image":
        return _image_problem(block, where)
    if kind == "compaction" and role != "assistant":
        return f"{where}: `compaction` blocks can only be in `assistant` messages"
    if kind == "tool_use":
        if role != "assistant":
            return f"{where}: `tool_use` blocks can only be in `assistant` messages"
        tool_id = block.get("id")
        if not isinstance(tool_id, str) or not _ID.fullmatch(tool_id):
            return _pattern(f"{where}.tool_use.id")
        if not isinstance(block.get("name"), str) or not block["name"]:
            return f"{where}.tool_use.name: Field required"
        if not isinstance(block.get("input"), dict):
            return f"{where}.tool_use.input: Input should be a valid dictionary"
        if tool_id in seen_ids:
            return f"{where}: `tool_use` ids must be unique"
        seen_ids.add(tool_id)
    if kind == "tool_result":
        if role != "user":
            return f"{where}: `tool_result` blocks can only be in `user` messages"
        tool_use_id = block.get("tool_use_id")
        if not isinstance(tool_use_id, str) or not _ID.fullmatch(tool_use_id):
            return _pattern(f"{where}.tool_result.tool_use_id")
        return _result_content_problem(block.get("content"), where)
    return None


def _leading_result_ids(message: Any) -> list[str]:
    """The tool_use_ids of the tool_result blocks at the START of a user message."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return []
    ids = []
    for block in blocks_of(message):
        if not (isinstance(block, dict) and block.get("type") == "tool_result"):
            break
        ids.append(block.get("tool_use_id"))
    return ids


def _starts_with_compaction(message: dict) -> bool:
    """A history may open with the compaction block that replaced what came before it."""
    content = message.get("content")
    return isinstance(content, list) and bool(content) and isinstance(content[0], dict) \
        and content[0].get("type") == "compaction"


def messages_problem(messages: Any) -> str | None:
    """The first rule ``messages`` breaks, in the API's words, or None."""
    if not isinstance(messages, list):
        return "messages: Input should be a valid list"
    if not messages:
        return "messages: at least one message is required"
    seen_ids: set[str] = set()
    for i, message in enumerate(messages):
        problem = _message_problem(message, i, i == len(messages) - 1, seen_ids)
        if problem:
            return problem
    return _pairing_problem(messages) or _final_problem(messages[-1])


def _message_problem(message: Any, i: int, last: bool, seen_ids: set[str]) -> str | None:
    """What is wrong with message ``i`` on its own (its role, its content, its blocks)."""
    if not isinstance(message, dict):
        return f"messages.{i}: {_NOT_AN_OBJECT}"
    role = message.get("role")
    if role not in ("user", "assistant"):
        return f"messages.{i}.role: Input should be 'user' or 'assistant'"
    if i == 0 and role != "user" and not _starts_with_compaction(message):
        return 'messages: first message must use the "user" role'
    if "content" not in message:
        return f"messages.{i}.content: Field required"
    content = message["content"]
    empty_allowed = last and role == "assistant"
    if not isinstance(content, (str, list)):
        return f"messages.{i}.content: Input should be a valid string or list"
    if not content and not empty_allowed:
        return (f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message")
    if isinstance(content, str):
        return "messages: text content blocks must contain non-whitespace text" \
            if content and not content.strip() else None
    for j, block in enumerate(content):
        problem = _block_problem(block, role, f"messages.{i}.content.{j}", seen_ids)
        if problem:
            return problem
    return None


def _pairing_problem(messages: list) -> str | None:
    """A result with no call just before it, or a call the next message does not answer."""
    last = len(messages) - 1
    for i, message in enumerate(messages):
        asked = tool_use_ids(messages[i - 1]) if i else []
        for j, block in enumerate(blocks_of(message)):
            if block.get("type") == "tool_result" and block["tool_use_id"] not in asked:
                return _orphan(i, j, block["tool_use_id"])
        ids = tool_use_ids(message)
        if ids and i < last:
            answered = set(_leading_result_ids(messages[i + 1]))
            missing = [t for t in ids if t not in answered]
            if missing:
                return _unanswered(i, missing)
    return None


def _final_problem(final: dict) -> str | None:
    """A final assistant message (a prefill) may not end with whitespace."""
    if final["role"] != "assistant":
        return None
    content = final["content"]
    tail = content if isinstance(content, str) else (
        content[-1].get("text", "") if content and content[-1].get("type") == "text" else "")
    if tail and tail != tail.rstrip():
        return "messages: final assistant content cannot end with trailing whitespace"
    return None


def request_problem(payload: Any, *, max_output_tokens: int, model: str,
                    count_only: bool = False, text_checked: bool = False) -> str | None:
    """The first rule a ``/v1/messages`` body (or a ``count_tokens`` body) breaks, or None;
    ``text_checked``: the body it was parsed from is ``surrogate_free``."""
    if not isinstance(payload, dict):
        return _NOT_AN_OBJECT
    where = None if text_checked else lone_surrogate(payload)
    if where:
        return (f"{where}: the text holds a lone surrogate, which is not valid Unicode; the "
                "request body must be valid UTF-8 JSON")
    if not isinstance(payload.get("model"), str) or not payload["model"]:
        return "model: Field required"
    if not count_only:
        limit = payload.get("max_tokens")
        if "max_tokens" not in payload:
            return "max_tokens: Field required"
        if not isinstance(limit, int) or isinstance(limit, bool):
            return "max_tokens: Input should be a valid integer"
        if limit < 1:
            return "max_tokens: Input should be greater than or equal to 1"
        if limit > max_output_tokens:
            return (f"max_tokens: {limit} > {max_output_tokens}, which is the maximum allowed "
                    f"number of output tokens for {model}")
    system = payload.get("system")
    if system is not None and not isinstance(system, str):
        if not isinstance(system, list) or not all(
                isinstance(b, dict) and b.get("type") == "text" for b in system):
            return "system: Input should be a valid string or a list of text blocks"
        for k, block in enumerate(system):
            problem = _text_problem(block.get("text"), f"system.{k}")
            if problem:
                return problem
    tools = payload.get("tools")
    if tools is not None and not (isinstance(tools, list) and all(
            isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools)):
        return "tools: Input should be a valid list of tools, each with a name"
    return messages_problem(payload.get("messages"))


def error_answer(status: int, kind: str, message: str) -> tuple[int, dict]:
    """An error answer in the API's shape: ``{"type": "error", "error": {type, message}}``."""
    return status, {"type": "error", "error": {"type": kind, "message": message}}


def window_problem(tokens: int, max_tokens: int | None, window: int) -> str | None:
    """The API's refusals when the prompt, or the prompt plus ``max_tokens``, exceeds the window."""
    if tokens > window:
        return f"prompt is too long: {tokens} tokens > {window} maximum"
    if max_tokens is not None and tokens + max_tokens > window:
        return (f"input length and `max_tokens` exceed context limit: {tokens} + {max_tokens} "
                f"> {window}, decrease input length or `max_tokens` and try again")
    return None


MAX_NESTING = 100          # arrays and objects inside each other; deeper bodies are refused


def nesting_depth(value: Any, stop_at: int = MAX_NESTING + 1) -> int:
    """How deep arrays and objects nest in ``value`` (walked without recursion), up to ``stop_at``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest >= stop_at:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def json_problem(body: bytes) -> tuple[Any, str | None]:
    """(payload, None), or (None, why the body is not a JSON document the API can read)."""
    try:
        payload = json.loads(body or b"{}")
    except RecursionError:
        return None, "the request body is nested too deeply to parse"
    except ValueError as error:             # bad JSON, or bytes that are not UTF-8
        return None, f"the request body is not valid JSON ({error})"
    if nesting_depth(payload) > MAX_NESTING:
        return None, (f"the request body is nested too deeply: arrays and objects more than "
                      f"{MAX_NESTING} levels inside each other are not accepted")
    return payload, None
