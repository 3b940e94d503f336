"""What a history is, how big it is, where its tool results are, and which histories the API
takes (``validate_history``, checked before any stage runs). A history is a list of Messages-API
messages, ``{"role": "user"|"assistant", "content": a string or a list of blocks}``; blocks may be
plain dicts or the SDK's typed objects (``response.content``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .context import HistoryError

# An image costs tokens by its pixels (about 1,600 once the API resized it), not its base64 text.
BYTES_PER_TOKEN = 4
IMAGE_TOKENS = 1_600
IMAGE_CHARS = IMAGE_TOKENS * BYTES_PER_TOKEN


def to_plain(value: Any) -> Any:              # SDK objects (pydantic models) as plain JSON
    if hasattr(value, "model_dump"):
        return to_plain(value.model_dump(mode="json", exclude_none=True))
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    return [to_plain(item) for item in value] if isinstance(value, (list, tuple)) else value


def _sdk_object(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def wire_json(value: Any) -> str:             # the JSON text that goes over the wire
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_sdk_object)


def estimate_size(messages: Any) -> int:
    """The characters of the messages as sent. The lesson measures ``len(str(messages))``,
    Python's repr (its quotes, escapes and ``True``/``None`` are not what is sent); this counts
    the wire JSON (same spirit, same 50,000 limit), an image as ``IMAGE_CHARS``."""
    try:
        text = wire_json(messages)
    except (TypeError, ValueError, RecursionError) as error:   # bytes, sets, cycles, depth
        raise HistoryError(
            f"the history is not JSON ({type(error).__name__}: {error}); the Messages API takes "
            "only JSON values: decode bytes to str, turn sets into lists, flatten deep nesting"
        ) from error
    return len(text) + image_adjustment(messages)


def image_adjustment(messages: Any) -> int:     # so each image counts as IMAGE_CHARS
    total = 0
    for block in (b for m in (messages if isinstance(messages, list) else ()) for b in blocks_of(m)):
        kind = block.get("type") if isinstance(block, dict) else None
        inner = block.get("content") if kind == "tool_result" else [block] if kind == "image" else None
        for image in inner if isinstance(inner, list) else ():
            if isinstance(image, dict) and image.get("type") == "image":
                source = image.get("source")
                data = source.get("data") if isinstance(source, dict) else None
                total += IMAGE_CHARS - (len(data) if isinstance(data, str) else 0)
    return total


def blocks_of(message: Any) -> list:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def block_type(block: Any) -> str | None:
    return block.get("type") if isinstance(block, dict) else getattr(block, "type", None)


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


def iter_tool_results(messages: list) -> Iterator[tuple[int, int, dict]]:   # (i, j, block), oldest first
    for i, message in enumerate(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            yield from ((i, j, b) for j, b in enumerate(blocks_of(message))
                        if block_type(b) == "tool_result")


def joined_text(content: Any) -> str:         # a string as it is; a list of blocks, its text joined
    if isinstance(content, list):
        return "".join(b["text"] for b in content
                       if isinstance(b, dict) and isinstance(b.get("text"), str))
    return content if isinstance(content, str) else ""


def result_text(block: dict) -> str:          # a tool_result's text (result_size counts images)
    return joined_text(block.get("content", ""))


def result_images(block: dict) -> int:
    content = block.get("content")
    return sum(isinstance(b, dict) and b.get("type") == "image" for b in content
               ) if isinstance(content, list) else 0


def other_blocks(block: dict) -> list:        # a tool_result's blocks that are neither text nor image
    content = block.get("content")
    return [b for b in content if not (isinstance(b, dict) and b.get("type") in ("text", "image"))
            ] if isinstance(content, list) else []


def result_size(block: dict) -> int:          # its text, IMAGE_CHARS per image, others as JSON
    others = other_blocks(block)
    rest = len(wire_json(others)) if others else 0
    return len(result_text(block)) + IMAGE_CHARS * result_images(block) + rest


def plain_text(message: Any) -> str:          # a message's text (text blocks only)
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    return "".join(to_plain(b).get("text", "") for b in blocks_of(message) if block_type(b) == "text")


def last_assistant_index(messages: list) -> int:   # where the model last spoke: it has not read what follows
    return max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)


def pair_safe_start(messages: list, start: int) -> int:
    """``start`` moved back by one if a cut there would part a tool_use from its results."""
    start = min(max(start, 0), len(messages))
    if (0 < start < len(messages) and is_tool_result_message(messages[start])
            and has_tool_use(messages[start - 1])):
        start -= 1
    return start


def with_results_replaced(messages: list, replacements: dict[tuple[int, int], str]) -> list:
    """A new list with block (i, j)'s content replaced; the caller's list and dicts never change."""
    result = list(messages)
    for (i, j), text in replacements.items():
        if result[i] is messages[i]:
            result[i] = {**messages[i], "content": list(messages[i]["content"])}
        result[i]["content"][j] = {**messages[i]["content"][j], "content": text}
    return result


# ---- validate_history: the Messages API's rules; a HistoryError names the first problem ----

RESULT_BLOCKS = ("text", "image", "document", "search_result")   # what a tool_result may hold


def validate_history(messages: Any, start: int = 0) -> None:
    """Shape and pairing, from ``start`` on (the messages before it are known to be valid)."""
    if not isinstance(messages, list):
        raise HistoryError(f"a history must be a list of messages, got {type(messages).__name__}")
    for index in range(start, len(messages)):
        problem = message_problem(messages[index], f"message {index}")
        if problem:
            raise HistoryError(problem)
    for problem in pairing_problems(messages, max(start - 1, 0)):
        raise HistoryError(f"{problem}; every tool_result must answer a tool_use of the message "
                           "right before it")


def checked_size(messages: Any) -> int:         # estimate_size of a history the API would take
    validate_history(messages)
    return estimate_size(messages)


def message_problem(message: Any, where: str) -> str | None:
    if not isinstance(message, dict):
        return f"{where} is a {type(message).__name__}, expected a dict with 'role' and 'content'"
    role, content = message.get("role"), message.get("content")
    if role not in ("user", "assistant"):
        return (f"{where} has role {role!r}; only 'user' and 'assistant' are allowed (put system "
                "text in the system prompt)")
    if not isinstance(content, (str, list)):
        return f"{where} has content of type {type(content).__name__}; expected a string or a list of blocks"
    return next((p for j, b in enumerate(content if isinstance(content, list) else ())
                 if (p := block_problem(b, role, f"{where}, block {j}"))), None)


def block_problem(block: Any, role: str, where: str) -> str | None:
    kind = block_type(block)
    if not isinstance(kind, str):
        return f"{where} has no 'type'"
    if not isinstance(block, dict) and not hasattr(block, "model_dump"):
        return f"{where} is a {type(block).__name__}; expected a dict (or an SDK content block)"
    belongs = {"tool_result": "user", "tool_use": "assistant"}.get(kind)
    if belongs and role != belongs:
        return f"{where}: {kind} blocks belong in {belongs} messages"
    if kind == "tool_result" and not isinstance(block.get("tool_use_id"), str):
        return f"{where}: tool_result needs a string tool_use_id"
    if kind == "tool_use" and not isinstance(to_plain(block).get("id"), str):
        return f"{where}: tool_use needs a string id"
    return result_content_problem(block) if kind == "tool_result" else None


def result_content_problem(block: dict) -> str | None:
    content = block.get("content", "")
    where = f"tool_result {block.get('tool_use_id')!r}"
    if not isinstance(content, (str, list)):
        return (f"{where} has content of type {type(content).__name__}; expected a string or a "
                "list of text/image blocks. Decode bytes to str (or wrap them as text) before "
                "adding the result.")
    for k, item in enumerate(content if isinstance(content, list) else ()):
        kind, source = (item.get("type"), item.get("source")) if isinstance(item, dict) else (None, None)
        if kind not in RESULT_BLOCKS:
            return (f"{where}, content block {k} is a {kind or type(item).__name__!r}; expected "
                    f"one of {', '.join(RESULT_BLOCKS)}")
        if kind == "text" and not isinstance(item.get("text"), str):
            return f"{where}, content block {k}: a text block needs a string 'text'"
        if kind == "image" and not (isinstance(source, dict) and (
                isinstance(source.get("data"), str) or isinstance(source.get("url"), str))):
            return (f"{where}, content block {k}: an image block needs a 'source' with base64 "
                    "'data' or a 'url'")
        if kind in ("document", "search_result") and not (isinstance(source, dict) or isinstance(
                item.get("content"), list)):
            return f"{where}, content block {k}: a {kind} block needs a 'source' or a 'content' list"
    return None


def pairing_problems(messages: list, start: int = 0) -> list[str]:
    """What the API would reject about tool_use/tool_result pairing, from ``start`` on."""
    problems = []
    for index in range(start, len(messages)):
        message, before = messages[index], messages[index - 1] if index else {}
        orphans = sorted(set(tool_result_ids(message))
                         - set(tool_use_ids(before) if has_tool_use(before) else ()))
        if orphans:
            problems.append(f"message {index} holds tool_result(s) {orphans} with no matching "
                            "tool_use in the message before")
        if has_tool_use(message) and index + 1 < len(messages):
            missing = sorted(set(tool_use_ids(message)) - set(tool_result_ids(messages[index + 1])))
            if missing:
                problems.append(f"message {index} has tool_use(s) {missing} not answered by the "
                                "next message")
    return problems
