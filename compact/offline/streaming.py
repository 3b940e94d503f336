"""A finished reply as the server-sent events the Messages API streams for ``"stream": true``.

The order is the API's: ``message_start`` (the message with empty content, no stop reason
and the input usage), a ``ping``, then per content block ``content_block_start`` (the block
with its text, input or summary empty), its deltas (``text_delta`` pieces;
``input_json_delta`` pieces of the input's JSON; one ``compaction_delta``) and
``content_block_stop``; then ``message_delta`` (``stop_reason``, ``stop_sequence``, the
final usage and ``context_management``) and ``message_stop``. A failure after the stream
started is an ``error`` event, as the API sends one mid-stream.

The offline model answers whole, so the stream is cut from the finished reply; the pieces
are small enough that every client sees several chunks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

PIECE = 24                     # characters per text delta / JSON delta
CONTENT_TYPE = "text/event-stream; charset=utf-8"


def sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _pieces(text: str) -> list[str]:
    return [text[i:i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def _block_events(index: int, block: dict) -> Iterator[bytes]:
    kind = block["type"]
    if kind == "text":
        start, deltas = {**block, "text": ""}, [{"type": "text_delta", "text": p}
                                                for p in _pieces(block["text"])]
    elif kind == "tool_use":
        start = {**block, "input": {}}
        text = json.dumps(block["input"], ensure_ascii=False) if block["input"] else ""
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(text)]
    elif kind == "compaction":
        start = {"type": "compaction", "content": None}
        deltas = [{"type": "compaction_delta", "content": block.get("content"),
                   "encrypted_content": block.get("encrypted_content")}]
    else:
        raise ValueError(f"no stream form for a {kind!r} block")
    yield sse("content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": start})
    for delta in deltas:
        yield sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": delta})
    yield sse("content_block_stop", {"type": "content_block_stop", "index": index})


def start_event(reply: dict) -> bytes:
    usage = {**reply["usage"], "output_tokens": 1 if reply["content"] else 0}
    usage.pop("iterations", None)
    message = {**reply, "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": usage}
    message.pop("context_management", None)
    return sse("message_start", {"type": "message_start", "message": message})


def reply_events(reply: dict) -> Iterator[bytes]:
    """Every event of ``reply`` (a finished Messages API reply), in the API's order."""
    yield start_event(reply)
    yield sse("ping", {"type": "ping"})
    for index, block in enumerate(reply["content"]):
        yield from _block_events(index, block)
    delta = {"type": "message_delta",
             "delta": {"stop_reason": reply["stop_reason"], "stop_sequence": reply["stop_sequence"]},
             "usage": {k: v for k, v in reply["usage"].items() if k != "service_tier"}}
    if reply.get("context_management") is not None:
        delta["context_management"] = reply["context_management"]
    yield sse("message_delta", delta)
    yield sse("message_stop", {"type": "message_stop"})


def error_events(reply_start: dict | None, kind: str, message: str) -> Iterator[bytes]:
    """A stream that failed after it started: its ``message_start`` (if any), then ``error``."""
    if reply_start is not None:
        yield start_event(reply_start)
    yield sse("error", {"type": "error", "error": {"type": kind, "message": message}})
