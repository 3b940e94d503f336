"""Message helpers: what a history is, how big it is, where its tool results are.

A history is a list of Messages-API messages: ``{"role": "user"|"assistant", "content": ...}``
where content is a string or a list of blocks. Blocks may be plain dicts or the SDK's typed
objects (``response.content``); everything here accepts both.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from .errors import HistoryError

ROLES = ("user", "assistant")
BYTES_PER_TOKEN = 4          # the offline tokenizer's rule, and the plots' "≈ tokens"
# An image costs tokens by its pixels, not by its base64 text: about 1,600 tokens for one
# the API has resized to its limit. A screenshot is counted as that, whatever its bytes.
IMAGE_TOKENS = 1_600
IMAGE_CHARS = IMAGE_TOKENS * BYTES_PER_TOKEN
RESULT_BLOCKS = ("text", "image")    # what a tool_result's content list may hold


def to_plain(value: Any) -> Any:
    """Turn SDK objects (pydantic models) into the plain JSON the API receives."""
    if hasattr(value, "model_dump"):
        return to_plain(value.model_dump(mode="json", exclude_none=True))
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    return value


def assistant_message(content: Any) -> dict:
    """An assistant message from ``response.content``, keeping only the fields the API takes back.

    Empty (or whitespace-only) text blocks are dropped: the API refuses them when they are
    sent back ("text content blocks must be non-empty").
    """
    blocks = []
    for block in to_plain(list(content)):
        if block.get("type") == "text":
            if isinstance(block.get("text"), str) and block["text"].strip():
                blocks.append({"type": "text", "text": block["text"]})
        elif block.get("type") == "tool_use":
            blocks.append({"type": "tool_use", "id": block["id"], "name": block["name"],
                           "input": block.get("input", {})})
        else:
            blocks.append(block)
    return {"role": "assistant", "content": blocks}


def _sdk_object(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def wire_json(value: Any) -> str:
    """The JSON text that goes over the wire (compact separators, UTF-8 kept as characters)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_sdk_object)


def _image_cost(block: Any) -> int:
    """What an image block adds to the wire size to count as ``IMAGE_CHARS``."""
    source = block.get("source")
    data = source.get("data") if isinstance(source, dict) else None
    return IMAGE_CHARS - (len(data) if isinstance(data, str) else 0)


def image_adjustment(messages: Any) -> int:
    """Characters to add to the wire size so each image counts as ``IMAGE_CHARS``, not as
    the length of its base64 data (a 1 MB screenshot is ~1,600 tokens, not 350,000).

    Images sit in user content or inside a tool_result; one plain loop, no recursion (it
    runs on every size measurement).
    """
    if isinstance(messages, dict):                     # a request payload
        messages = messages.get("messages")
    total = 0
    for message in messages if isinstance(messages, list) else ():
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "image":
                total += _image_cost(block)
            elif kind == "tool_result" and isinstance(inner := block.get("content"), list):
                total += sum(_image_cost(item) for item in inner
                             if isinstance(item, dict) and item.get("type") == "image")
    return total


def estimate_size(messages: Any) -> int:
    """Characters of the serialised messages: the lesson's measure, taken on the wire JSON.

    The lesson uses ``len(str(messages))``, which measures Python's repr (quotes, escapes and
    ``True``/``None`` differ from what is sent). Same character-count spirit, honest input.
    Images count as ``IMAGE_CHARS`` each, not by their base64 text.
    """
    try:
        text = wire_json(messages)
    except (TypeError, ValueError, RecursionError) as error:   # bytes, sets, cycles, ...
        raise HistoryError(
            f"the history is not JSON ({error}); the Messages API takes only JSON values: "
            "decode bytes to str and turn sets into lists") from error
    return len(text) + image_adjustment(messages)


def estimate_tokens(value: Any) -> int:
    """Tokens by the offline rule: one per 4 UTF-8 bytes of the wire JSON (an image:
    ``IMAGE_TOKENS``)."""
    size = len(wire_json(value).encode("utf-8", "surrogatepass")) + image_adjustment(value)
    return math.ceil(size / BYTES_PER_TOKEN)


def blocks_of(message: Any) -> list:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def block_type(block: Any) -> str | None:
    if isinstance(block, dict):
        return block.get("type")
    return getattr(block, "type", None)


def is_tool_result_message(message: Any) -> bool:
    return (isinstance(message, dict) and message.get("role") == "user"
            and any(block_type(b) == "tool_result" for b in blocks_of(message)))


def has_tool_use(message: Any) -> bool:
    return (isinstance(message, dict) and message.get("role") == "assistant"
            and any(block_type(b) == "tool_use" for b in blocks_of(message)))


def tool_use_ids(message: Any) -> list[str]:
    return [b["id"] if isinstance(b, dict) else b.id for b in blocks_of(message)
            if block_type(b) == "tool_use"]


def tool_result_ids(message: Any) -> list[str]:
    return [b.get("tool_use_id") for b in blocks_of(message) if block_type(b) == "tool_result"]


def iter_tool_results(messages: list) -> Iterator[tuple[int, int, dict]]:
    """Every tool_result block, oldest first, as (message index, block index, block)."""
    for i, message in enumerate(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            for j, block in enumerate(blocks_of(message)):
                if block_type(block) == "tool_result":
                    yield i, j, block


def joined_text(content: Any) -> str:
    """A content value as text: a string as it is, a list of blocks as its text joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b["text"] for b in content
                       if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def result_content_problem(block: dict) -> str | None:
    """Why a tool_result's content is not what the API takes, or None (a string, or a list
    of text, image and document blocks: screenshots and computer use send images)."""
    content = block.get("content", "")
    if isinstance(content, str):
        return None
    where = f"tool_result {block.get('tool_use_id')!r}"
    if not isinstance(content, list):
        return (f"{where} has content of type {type(content).__name__}; expected a string or a "
                "list of text/image blocks. Decode bytes to str (or wrap them as text) before "
                "adding the result.")
    for k, item in enumerate(content):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind not in RESULT_BLOCKS:
            return (f"{where}, content block {k} is a {kind or type(item).__name__!r}; expected "
                    f"one of {', '.join(RESULT_BLOCKS)}")
        if kind == "text" and not isinstance(item.get("text"), str):
            return f"{where}, content block {k}: a text block needs a string 'text'"
        source = item.get("source")
        if kind == "image" and not (isinstance(source, dict) and (
                isinstance(source.get("data"), str) or isinstance(source.get("url"), str))):
            return (f"{where}, content block {k}: an image block needs a 'source' with base64 "
                    "'data' or a 'url'")
    return None


def result_text(block: dict) -> str:
    """The text of a tool_result: a string, or the joined text of its text blocks (images,
    if any, are left out: see ``result_size`` for what the whole result costs)."""
    problem = result_content_problem(block)
    if problem:
        raise HistoryError(problem)
    return joined_text(block.get("content", ""))


def result_images(block: dict) -> int:
    """How many image blocks a tool_result holds."""
    content = block.get("content")
    return sum(1 for b in content if isinstance(b, dict) and b.get("type") == "image"
               ) if isinstance(content, list) else 0


def result_size(block: dict) -> int:
    """What a tool_result costs in characters: its text, plus ``IMAGE_CHARS`` per image."""
    return len(result_text(block)) + IMAGE_CHARS * result_images(block)


def last_assistant_index(messages: list) -> int:
    """Where the model last spoke (-1: never): the tool results after it, it has not read."""
    return max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)


def plain_text(message: Any) -> str:
    """The user-visible text of a message (text blocks only), for markers and requests."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    return "".join(to_plain(b).get("text", "") for b in blocks_of(message)
                   if block_type(b) == "text")


def validate_history(messages: Any, start: int = 0) -> None:
    """Raise HistoryError naming the first problem; a valid history passes silently.

    Checks shape (list of role/content messages, typed blocks, string tool_result content)
    and pairing: each tool_result answers a tool_use of the assistant message right before
    it, and each tool_use is answered by the next message (a trailing one may still wait).
    ``start``: messages before it are known to be valid (``SizeCache``); only the rest, and
    the pairing across the boundary, are checked.
    """
    if not isinstance(messages, list):
        raise HistoryError(
            f"a history must be a list of messages, got {type(messages).__name__}; "
            "pass e.g. [{'role': 'user', 'content': 'hi'}]"
        )
    for index in range(start, len(messages)):
        message = messages[index]
        where = f"message {index}"
        if not isinstance(message, dict):
            raise HistoryError(f"{where} is a {type(message).__name__}, expected a dict "
                               "with 'role' and 'content'")
        if message.get("role") not in ROLES:
            raise HistoryError(f"{where} has role {message.get('role')!r}; "
                               "only 'user' and 'assistant' are allowed (put system text in "
                               "the system prompt)")
        content = message.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            raise HistoryError(f"{where} has content of type {type(content).__name__}; "
                               "expected a string or a list of blocks")
        for j, block in enumerate(content):
            kind = block_type(block)
            if not isinstance(kind, str):
                raise HistoryError(f"{where}, block {j} has no 'type'")
            if not isinstance(block, dict) and not hasattr(block, "model_dump"):
                raise HistoryError(f"{where}, block {j} is a {type(block).__name__}; expected "
                                   "a dict (or an SDK content block)")
            if kind == "tool_result":
                if message["role"] != "user":
                    raise HistoryError(f"{where}: tool_result blocks belong in user messages")
                if not isinstance(block.get("tool_use_id"), str):
                    raise HistoryError(f"{where}, block {j}: tool_result needs a string "
                                       "tool_use_id")
                problem = result_content_problem(block)
                if problem:
                    raise HistoryError(problem)
            if kind == "tool_use" and message["role"] != "assistant":
                raise HistoryError(f"{where}: tool_use blocks belong in assistant messages")
            if kind == "tool_use" and not isinstance(to_plain(block).get("id"), str):
                raise HistoryError(f"{where}, block {j}: tool_use needs a string id")
    for problem in pairing_problems(messages, max(start - 1, 0)):
        raise HistoryError(problem + "; every tool_result must answer a tool_use of the "
                           "message right before it")


def pairing_problems(messages: list, start: int = 0) -> list[str]:
    """What the API would reject about tool_use/tool_result pairing (empty when fine);
    ``start``: check only from that message on."""
    problems = []
    for index in range(start, len(messages)):
        message = messages[index]
        answered = set(tool_result_ids(message))
        if answered:
            before = messages[index - 1] if index else {}
            asked = set(tool_use_ids(before)) if has_tool_use(before) else set()
            orphans = sorted(answered - asked)
            if orphans:
                problems.append(f"message {index} holds tool_result(s) {orphans} with no "
                                "matching tool_use in the message before")
        if has_tool_use(message) and index + 1 < len(messages):
            missing = sorted(set(tool_use_ids(message)) - set(tool_result_ids(messages[index + 1])))
            if missing:
                problems.append(f"message {index} has tool_use(s) {missing} not answered by "
                                "the next message")
    return problems


def pair_safe_start(messages: list, start: int) -> int:
    """``start`` moved back by one if a cut there would part a tool_use from its results."""
    start = min(max(start, 0), len(messages))
    if (0 < start < len(messages) and is_tool_result_message(messages[start])
            and has_tool_use(messages[start - 1])):
        start -= 1
    return start


def with_results_replaced(messages: list, replacements: dict[tuple[int, int], str]) -> list:
    """A new list where block (i, j)'s content is replaced; untouched messages are shared,
    touched ones copied, so the caller's list and dicts never change."""
    result = list(messages)
    for (i, j), text in replacements.items():
        if result[i] is messages[i]:
            result[i] = {**messages[i], "content": list(messages[i]["content"])}
        result[i]["content"][j] = {**messages[i]["content"][j], "content": text}
    return result


def tool_turn(*calls: tuple[str, str, str], name: str = "read_file") -> list[dict]:
    """A hand-built tool round: the assistant's tool_use blocks and the user's results.

    ``calls`` are ``(tool_use_id, path, result_text)``; notebooks and tests build histories
    with it instead of spelling out the blocks.
    """
    return [{"role": "assistant", "content": [
                {"type": "tool_use", "id": i, "name": name, "input": {"path": p}} for i, p, _ in calls]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": i, "content": t} for i, _, t in calls]}]


def tool_results(messages: list) -> list[str]:
    """The text of every tool_result, oldest first."""
    return [result_text(block) for _, _, block in iter_tool_results(messages)]
