"""A model reply as the loop reads it: its blocks made sendable, its stop reason, a cut-off call.

Every reply real Claude can send must leave the history valid: empty text blocks are dropped
(the API refuses them when sent back), a tool call cut off by ``max_tokens`` keeps an object
input (it is answered with an error, never run), and a lone surrogate — which the SDK refuses
to send in any later request — becomes U+FFFD.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .pipeline.messages import to_plain

CUT_OFF = ("max_tokens", "model_context_window_exceeded")   # stop reasons of an unfinished reply
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class Reply:
    content: list[dict]          # the blocks as they are sent back
    stop: str                    # tool_use, end_turn, max_tokens, refusal, pause_turn, ...
    cut_id: str | None = None    # the id of a tool call max_tokens cut off, if any

    @property
    def calls(self) -> list[dict]:
        return [b for b in self.content if b["type"] == "tool_use"]

    @property
    def text(self) -> str:
        return "".join(b["text"] for b in self.content if b["type"] == "text")


def read_reply(response: Any) -> Reply:
    stop = response.stop_reason or "end_turn"
    last = response.content[-1] if response.content else None
    cut_id = last.id if stop in CUT_OFF and getattr(last, "type", None) == "tool_use" else None
    blocks = sendable(assistant_message(response.content)["content"])
    for block in blocks:
        if block["type"] == "tool_use" and block["id"] == cut_id and not isinstance(block["input"], dict):
            block["input"] = {}
    if stop == "pause_turn" and blocks and blocks[-1]["type"] == "text":
        # sent back as the last message, where the API refuses text ending in whitespace
        blocks[-1] = {**blocks[-1], "text": blocks[-1]["text"].rstrip()}
    return Reply(blocks, stop, cut_id)


def assistant_message(content: Any) -> dict:
    """An assistant message from ``response.content``, keeping only the fields the API takes
    back; empty (or whitespace-only) text blocks are dropped."""
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


def sendable(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value) if not value.isascii() else value
    if isinstance(value, dict):
        return {sendable(k): sendable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [sendable(item) for item in value]
    return value
