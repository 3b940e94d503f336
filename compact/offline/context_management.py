"""The API's own context management, offline: what the model is shown of a request.

Applied on copies, never to the client's history: re-sent compaction blocks, the
``clear_tool_uses`` and ``clear_thinking`` edits, and server compaction in a signed block.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..pipeline.messages import block_type, blocks_of, to_plain
from .api import all_strings, edits_of, literal, rules_problem
from .markers import CLEARED
from .summarizer import entries_of_messages, offline_summary

SUMMARY_HEADER = "[Compacted]"       # how a compaction block reads to the offline model
EDIT = "compact_20260112"
DEFAULT_TRIGGER, MIN_TRIGGER = 150_000, 50_000
TOOL_DEFAULTS = {"trigger": {"type": "input_tokens", "value": 100_000},
                 "keep": {"type": "tool_uses", "value": 3}}
THINKING = ("thinking", "redacted_thinking")
Count = Callable[[list], int]         # input tokens of a request holding these messages


@dataclass
class Prepared:
    messages: list                     # what the model sees
    original_tokens: int               # the request as sent (after compaction blocks)
    tokens: int                        # what the model sees
    applied: list = field(default_factory=list)
    compaction: str | None = None      # None, "edit" or "summarize"
    edit: dict = field(default_factory=dict)


def prepare(payload: dict, count: Count) -> Prepared:
    """What the model is shown: the compaction blocks read, then each clearing edit in order;
    ``count(messages)``: the input tokens of this request holding those messages."""
    visible = visible_messages(payload["messages"])
    edits, original = edits_of(payload), count(visible)
    prepared = Prepared(visible, original, original)
    for edit in (e for e in edits if e["type"] in EDITORS):     # compact_20260112: below
        prepared.messages, report = EDITORS[edit["type"]](prepared.messages, edit, count, prepared.tokens)
        if report:
            prepared.applied.append(report)
            prepared.tokens -= report["cleared_input_tokens"]
    edit = next((e for e in edits if e.get("type") == EDIT), None)
    if payload.get("compaction") is not None:
        prepared.compaction, prepared.edit = "summarize", payload["compaction"]
    elif edit is not None and prepared.tokens >= (edit.get("trigger") or {}).get("value", DEFAULT_TRIGGER):
        prepared.compaction, prepared.edit = "edit", edit
    return prepared


def clear_tool_uses(messages: list, edit: dict, count: Count,
                    before: int | None = None) -> tuple[list, dict | None]:
    """(the messages the model sees, the applied edit or None); ``before``: ``count(messages)``
    when the caller has it already."""
    before = count(messages) if before is None else before
    trigger = edit.get("trigger") or TOOL_DEFAULTS["trigger"]
    uses = [b for m in messages if m.get("role") == "assistant" for b in blocks_of(m)
            if block_type(b) == "tool_use"]             # oldest first
    if (len(uses) if trigger["type"] == "tool_uses" else before) < trigger["value"]:
        return messages, None
    keep = (edit.get("keep") or TOOL_DEFAULTS["keep"])["value"]
    excluded = set(edit.get("exclude_tools") or [])
    chosen = {b["id"]: b["name"] for b in uses[:max(0, len(uses) - keep)] if b.get("name") not in excluded}
    cleared: set[str] = set()
    edited = [_cleared(message, edit, chosen, cleared) for message in messages]
    removed = before - count(edited)
    if not cleared or removed < (edit.get("clear_at_least") or {}).get("value", 0):
        return messages, None
    return edited, {"type": "clear_tool_uses_20250919", "cleared_tool_uses": len(cleared),
                    "cleared_input_tokens": removed}


def _cleared(message: dict, edit: dict, chosen: dict, cleared: set) -> dict:
    """``message`` with the chosen tool uses cleared: a new dict (and new blocks) where a block
    changes, the same object where nothing does."""
    rule = edit.get("clear_tool_inputs")
    blocks = []
    for block in blocks_of(message):
        kind = block_type(block)
        if kind == "tool_result" and block.get("tool_use_id") in chosen:
            cleared.add(block["tool_use_id"])
            block = {**block, "content": CLEARED}
        elif kind == "tool_use" and block.get("id") in chosen and (
                rule is True or (isinstance(rule, list) and block["name"] in rule)):
            cleared.add(block["id"])
            block = {**block, "input": {}}
        blocks.append(block)
    changed = any(new is not old for new, old in zip(blocks, blocks_of(message), strict=True))
    return {**message, "content": blocks} if changed else message


def clear_thinking(messages: list, edit: dict, count: Count, before: int) -> tuple[list, dict | None]:
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if _keeps_all(keep):
        return messages, None
    turns = [i for i, m in enumerate(messages) if m.get("role") == "assistant"
             and any(block_type(b) in THINKING for b in blocks_of(m))]
    edited, cleared = copy.deepcopy(messages), 0
    for i in turns[:max(0, len(turns) - keep["value"])]:
        rest = [b for b in blocks_of(edited[i]) if block_type(b) not in THINKING]
        if rest:                              # a turn that was only thinking keeps it
            edited[i]["content"] = rest
            cleared += 1
    if not cleared:
        return messages, None
    return edited, {"type": "clear_thinking_20251015", "cleared_thinking_turns": cleared,
                    "cleared_input_tokens": before - count(edited)}


EDITORS = {"clear_tool_uses_20250919": clear_tool_uses, "clear_thinking_20251015": clear_thinking}


def signature(content: str) -> str:
    return "offline-" + hashlib.sha256(f"offline-compact-1\n{content}".encode()).hexdigest()[:32]


def summary_block(messages: list, instructions: str | None) -> dict:
    """The ``compaction`` block summarising ``messages`` (what the model was shown)."""
    summary = offline_summary(entries_of_messages(to_plain(messages)))
    if instructions and instructions.strip():
        summary += ("\nSummary instructions received (an extractive summary keeps the same facts "
                    f"whatever they ask): {' '.join(instructions.split())[:300]}")
    return {"type": "compaction", "content": summary, "signature": signature(summary)}


def iteration(kind: str, input_tokens: int, output_tokens: int) -> dict:
    return {"type": kind, "input_tokens": input_tokens, "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def visible_messages(messages: list) -> list:
    """What the model sees: from the last compaction block with content on, that block as its
    summary; consecutive messages of one role then merge into one turn, as the API combines
    them (a message left empty, holding only a no-op block, goes)."""
    found = [(i, j, b.get("content")) for i, m in enumerate(messages) for j, b in enumerate(blocks_of(m))
             if block_type(b) == "compaction"]
    if not found:
        return messages
    if summarized := [(i, j, summary) for i, j, summary in found if summary]:
        i, j, summary = summarized[-1]
        rest = blocks_of(messages[i])[j + 1:]
        messages = [{"role": "user", "content": f"{SUMMARY_HEADER}\n\n{summary}"},
                    *([{"role": "assistant", "content": rest}] if rest else []), *messages[i + 1:]]
    merged: list = []
    for message in messages:
        if isinstance(message.get("content"), list):
            message = {**message, "content": [b for b in blocks_of(message) if block_type(b) != "compaction"]}
        if not message["content"]:
            continue
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1] = {**merged[-1], "content": _as_blocks(merged[-1]["content"])
                          + _as_blocks(message["content"])}
        else:
            merged.append(message)
    return merged


def _as_blocks(content: object) -> list:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _keeps_all(keep: Any) -> bool:
    return keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all")


def _count(value: Any, low: int) -> bool:
    return type(value) is int and value >= low


def _threshold(name: str, kinds: tuple[str, ...], low: int, also=lambda v: False) -> tuple:
    """The rules of a ``{"type": kind, "value": n}`` setting (``also``: another accepted value)."""
    return ((name, lambda v: also(v) or isinstance(v, dict) and v.get("type") in kinds,
             literal(f"{{where}}.{name}.type", kinds)),
            (name, lambda v: also(v) or _count(v.get("value"), low),
             f"{{where}}.{name}.value: Input should be an integer >= {low}"))


def _text(name: str) -> tuple:
    return name, lambda v: isinstance(v, str), f"{{where}}.{name}: Input should be a valid string"


RULES = {   # edit type → its rules (``api.rules_problem``)
    "clear_tool_uses_20250919": (
        *_threshold("trigger", ("input_tokens", "tool_uses"), 1), *_threshold("keep", ("tool_uses",), 0),
        *_threshold("clear_at_least", ("input_tokens",), 0),
        ("exclude_tools", all_strings, "{where}.exclude_tools: Input should be a valid list of tool names"),
        ("clear_tool_inputs", lambda v: isinstance(v, bool) or all_strings(v),
         "{where}.clear_tool_inputs: Input should be a boolean or a list of tool names")),
    "clear_thinking_20251015": _threshold("keep", ("thinking_turns",), 1, also=_keeps_all),
    EDIT: (("trigger", lambda v: isinstance(v, dict) and v.get("type") == "input_tokens",
            literal("{where}.trigger.type", ("input_tokens",))),
           ("trigger", lambda v: _count(v.get("value"), MIN_TRIGGER),
            f"{{where}}.trigger.value: Input should be greater than or equal to {MIN_TRIGGER}"),
           ("pause_after_compaction", lambda v: isinstance(v, bool),
            "{where}.pause_after_compaction: Input should be a valid boolean"), _text("instructions")),
}


def _edits_problem(management: Any) -> str | None:
    if management is None:
        return None
    if not isinstance(management, dict) or not isinstance(management.get("edits", []), list):
        return "context_management.edits: Input should be a valid list"
    edits = management.get("edits", [])
    for k, edit in enumerate(edits):
        where = f"context_management.edits.{k}"
        if not isinstance(edit, dict) or str(edit.get("type")) not in RULES:
            return (f"{where}: Input tag found using 'type' does not match any of the expected "
                    "tags: " + ", ".join(f"'{t}'" for t in RULES))
        if edit["type"] in [e["type"] for e in edits[:k]]:
            return f"{where}: each edit type may appear once; {edit['type']!r} is repeated"
        if edit["type"] == "clear_thinking_20251015" and k != 0:
            return f"{where}: clear_thinking_20251015 must be the first edit in the list"
        if problem := rules_problem(edit, RULES[edit["type"]], where):
            return problem
    return None


def _config_problem(config: Any, edits: list) -> str | None:
    """The top-level ``compaction`` field."""
    if config is None:
        return None
    if not isinstance(config, dict) or config.get("type") != "summarize":
        return literal("compaction.type", ("summarize",))
    if problem := rules_problem(config, (_text("instructions"),), "compaction"):
        return problem
    if any(e.get("type") == EDIT for e in edits):
        return (f"compaction: cannot be combined with a {EDIT} edit in context_management; "
                "send one or the other")
    return None


def _compaction_block_problem(block: dict, where: str) -> str | None:
    """A re-sent compaction block: content a non-empty string or null, signature unchanged."""
    content = block.get("content")
    if content is not None and (not isinstance(content, str) or not content):
        return f"{where}.compaction.content: Input should be a non-empty string or null"
    sent = block.get("signature")
    if content is not None and sent is not None and sent != signature(content):
        return (f"{where}: the compaction block's signature does not match its content; send "
                "the block back exactly as it was returned")
    return None


def management_problem(payload: dict) -> str | None:
    """The first rule ``context_management``, ``compaction`` or a re-sent block breaks."""
    return _edits_problem(payload.get("context_management")) \
        or _config_problem(payload.get("compaction"), edits_of(payload)) \
        or next((p for i, message in enumerate(payload["messages"])
                 for j, block in enumerate(blocks_of(message)) if block_type(block) == "compaction"
                 and (p := _compaction_block_problem(block, f"messages.{i}.content.{j}"))), None)
