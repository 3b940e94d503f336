"""The API's server-side compaction, offline: the ``compact_20260112`` edit and ``compaction``.

- Re-sent compaction blocks: the model sees nothing before the last compaction block that
  has content (a block whose ``content`` is null is a no-op); that block reads as the
  summary of everything it replaced (``visible_messages``).
- ``compact_20260112`` in ``context_management.edits``: when the input reaches ``trigger``
  (input tokens; default 150,000, at least 50,000), the conversation is summarised first;
  the reply starts with the ``compaction`` block and goes on from it, or, with
  ``pause_after_compaction``, is that block alone with ``stop_reason: "compaction"``.
- ``compaction: {"type": "summarize"}`` (what the SDK's ``compact_before_next_turn()``
  sends): everything sent is summarised, nothing is sampled after it.

The summary is the offline model's extractive one (``summarizer.offline_summary``), labelled
as such; ``instructions`` cannot steer an extractive summariser, so the summary says it
received them. Each block is signed (``signature``) so a block changed on the way back is
refused. Costs go in ``usage.iterations``; the top-level usage counts only sampling.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..pipeline.messages import block_type, blocks_of, to_plain
from .conversation import entries_of_messages
from .summarizer import offline_summary

EDIT = "compact_20260112"
DEFAULT_TRIGGER, MIN_TRIGGER = 150_000, 50_000
SUMMARY_HEADER = "[Compacted]"       # how a compaction block reads to the offline model


def signature(content: str) -> str:
    return "offline-" + hashlib.sha256(f"offline-compact-1\n{content}".encode()).hexdigest()[:32]


def summary_block(messages: list, instructions: str | None) -> dict:
    """The ``compaction`` block summarising ``messages`` (what the model was shown)."""
    summary = offline_summary(entries_of_messages(to_plain(messages)))
    if instructions and instructions.strip():
        summary += ("\nSummary instructions received (an extractive summary keeps the same facts "
                    f"whatever they ask): {' '.join(instructions.split())[:300]}")
    return {"type": "compaction", "content": summary, "signature": signature(summary)}


def _as_blocks(content: object) -> list:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _merge_turns(messages: list) -> list:
    """Consecutive messages of one role as one turn, as the API combines them; a message left
    empty (it held only a no-op compaction block) goes."""
    merged: list = []
    for message in messages:
        if not message["content"]:
            continue
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1] = {**merged[-1], "content": _as_blocks(merged[-1]["content"])
                          + _as_blocks(message["content"])}
        else:
            merged.append(message)
    return merged


def last_compaction(messages: list) -> tuple[int, int] | None:
    """(message, block) index of the last compaction block with content, or None."""
    found = None
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks_of(message)):
            if block_type(block) == "compaction" and block.get("content"):
                found = (i, j)
    return found


def visible_messages(messages: list) -> list:
    """What the model sees: from the last compaction block on, that block as its summary."""
    where = last_compaction(messages)
    if where is not None:
        i, j = where
        summary = blocks_of(messages[i])[j]["content"]
        rest = blocks_of(messages[i])[j + 1:]
        messages = [{"role": "user", "content": f"{SUMMARY_HEADER}\n\n{summary}"},
                    *([{"role": "assistant", "content": rest}] if rest else []), *messages[i + 1:]]
    elif not any(block_type(b) == "compaction" for m in messages for b in blocks_of(m)):
        return messages
    cleaned = [{**m, "content": [b for b in blocks_of(m) if block_type(b) != "compaction"]}
               if isinstance(m.get("content"), list) else m for m in messages]
    return _merge_turns(cleaned)


def compact_edit(edits: list) -> dict | None:
    return next((e for e in edits if e.get("type") == EDIT), None)


def triggered(edit: dict, tokens: int) -> bool:
    return tokens >= (edit.get("trigger") or {}).get("value", DEFAULT_TRIGGER)


def iteration(kind: str, input_tokens: int, output_tokens: int) -> dict:
    return {"type": kind, "input_tokens": input_tokens, "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def block_problem(block: dict, where: str) -> str | None:
    """A re-sent compaction block: content a non-empty string or null, signature unchanged."""
    content = block.get("content")
    if content is None:
        return None
    if not isinstance(content, str) or not content:
        return f"{where}.compaction.content: Input should be a non-empty string or null"
    sent = block.get("signature")
    if sent is not None and sent != signature(content):
        return (f"{where}: the compaction block's signature does not match its content; send "
                "the block back exactly as it was returned")
    return None


def edit_problem(edit: dict, where: str) -> str | None:
    trigger = edit.get("trigger")
    if trigger is not None:
        if not isinstance(trigger, dict) or trigger.get("type") != "input_tokens":
            return f"{where}.trigger.type: Input should be 'input_tokens'"
        value = trigger.get("value")
        if isinstance(value, bool) or not isinstance(value, int) or value < MIN_TRIGGER:
            return f"{where}.trigger.value: Input should be greater than or equal to {MIN_TRIGGER}"
    if not isinstance(edit.get("pause_after_compaction", False), bool):
        return f"{where}.pause_after_compaction: Input should be a valid boolean"
    if edit.get("instructions") is not None and not isinstance(edit["instructions"], str):
        return f"{where}.instructions: Input should be a valid string"
    return None


def config_problem(config: Any, edits: list) -> str | None:
    """The top-level ``compaction`` field."""
    if config is None:
        return None
    if not isinstance(config, dict) or config.get("type") != "summarize":
        return "compaction.type: Input should be 'summarize'"
    if config.get("instructions") is not None and not isinstance(config["instructions"], str):
        return "compaction.instructions: Input should be a valid string"
    if compact_edit(edits):
        return (f"compaction: cannot be combined with a {EDIT} edit in context_management; "
                "send one or the other")
    return None
