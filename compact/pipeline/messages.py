"""What a history is, how big it is, and where its tool results are. A history is a list of
Messages-API messages, ``{"role": "user"|"assistant", "content": a string or a list of blocks}``;
blocks may be plain dicts or the SDK's typed objects (``response.content``)."""

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
