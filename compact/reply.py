"""A model reply as the loop reads it, and its tool calls run as a batch answered by ONE message.

Every reply real Claude can send leaves the history valid: empty text blocks are dropped, a lone
surrogate becomes U+FFFD, a call cut off by ``max_tokens`` is answered with an error (never
run), none is run after a refusal, and Ctrl-C answers the interrupted calls."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .pipeline.formats import COMPACT_ACK
from .pipeline.messages import has_tool_use, to_plain
from .tools import LONE_SURROGATE, Workspace

CUT_OFF = ("max_tokens", "model_context_window_exceeded")   # stop reasons of an unfinished reply


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
    """``response.content`` as a message: only the fields the API takes back, no empty text."""
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
        return LONE_SURROGATE.sub("\ufffd", value) if not value.isascii() else value
    if isinstance(value, dict):
        return {sendable(k): sendable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [sendable(item) for item in value]
    return value

INTERRUPTED = ("Error: interrupted by the user (Ctrl-C): the call was stopped (a command and "
               "every process it started were killed). Ask the user before running it again.")
NOT_RUN_INTERRUPTED = "Error: not run: the user interrupted this batch (Ctrl-C) before this call."
NOT_RUN_REFUSED = "Error: not run: the model's reply ended in a refusal, so its tool calls were not run."
CUT_OFF_CALL = ("Error: this {name} call was cut off: the reply reached max_tokens={max_tokens} while "
                "writing it, so its input is incomplete and it was not run. Call it again with the "
                "whole input (split a long input into smaller steps).")


def result_block(call: dict, output: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call["id"], "content": output}


def run_tool_batch(reply: Reply, workspace: Workspace, messages: list, max_tokens: int) -> bool:
    """Run every call of ``reply``, append the one message answering them; True if ``compact``
    was called."""
    results: list[dict] = []
    compact_requested = False
    try:
        for call in reply.calls:
            if call["id"] == reply.cut_id:
                output = CUT_OFF_CALL.format(name=call["name"], max_tokens=max_tokens)
            elif reply.stop == "refusal":
                output = NOT_RUN_REFUSED
            elif call["name"] == "compact":
                output, compact_requested = COMPACT_ACK, True
            else:
                output = workspace.run(call["name"], dict(call["input"]))
            results.append(result_block(call, output))
    except BaseException:
        for k, call in enumerate(reply.calls[len(results):]):
            results.append(result_block(call, INTERRUPTED if k == 0 else NOT_RUN_INTERRUPTED))
        raise
    finally:
        messages.append({"role": "user", "content": results})
    return compact_requested


def answer_open_calls(messages: list, output: str = INTERRUPTED) -> None:
    """If the history ends with tool calls nobody answered, answer them with ``output``."""
    if messages and has_tool_use(messages[-1]):
        messages.append({"role": "user", "content": [
            result_block(b, output) for b in messages[-1]["content"] if b["type"] == "tool_use"]})
