"""The API's context editing, offline: ``clear_tool_uses_20250919`` and ``clear_thinking_20251015``.

Applied on the server to what the model sees, before it answers; the client's history is
never changed (it sends its whole history again next time). As documented:

- ``clear_tool_uses_20250919``: when the request reaches ``trigger`` (input tokens, default
  100,000, or a number of tool uses), the oldest tool results, in order, become
  ``CLEARED``, all but the newest ``keep`` tool uses (default 3) and every use of a tool in
  ``exclude_tools``; ``clear_tool_inputs`` (true, or tool names) clears those calls' inputs
  too. With ``clear_at_least``, nothing is cleared unless at least that many tokens go. Each
  tool_use and its tool_result stay, so no pair is broken. The lesson's sibling is
  ``micro_compact``.
- ``clear_thinking_20251015`` (first in ``edits``): thinking blocks of all but the newest
  ``keep`` assistant turns that hold any (default 1; ``"all"`` keeps every one) are removed.

Each edit that changed something is reported as ``{type, cleared_tool_uses |
cleared_thinking_turns, cleared_input_tokens}``, the tokens being exactly how many fewer
the model was sent (``count``, the offline tokenizer).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..pipeline.messages import block_type, blocks_of

CLEARED = "[Tool result cleared by context management (clear_tool_uses_20250919).]"
TOOL_DEFAULTS = {"trigger": {"type": "input_tokens", "value": 100_000},
                 "keep": {"type": "tool_uses", "value": 3}}
THINKING = ("thinking", "redacted_thinking")
Count = Callable[[list], int]         # input tokens of a request holding these messages


def tool_uses(messages: list) -> list[tuple[int, dict]]:
    """Every tool_use block of the assistant messages, oldest first, with its message index."""
    return [(i, b) for i, m in enumerate(messages) if m.get("role") == "assistant"
            for b in blocks_of(m) if block_type(b) == "tool_use"]


def _clears_input(edit: dict, name: str) -> bool:
    rule = edit.get("clear_tool_inputs")
    return rule is True or (isinstance(rule, list) and name in rule)


def _triggered(edit: dict, messages: list, tokens: int) -> bool:
    trigger = edit.get("trigger") or TOOL_DEFAULTS["trigger"]
    measure = len(tool_uses(messages)) if trigger["type"] == "tool_uses" else tokens
    return measure >= trigger["value"]


def clearable(messages: list, edit: dict) -> list[dict]:
    """The tool_use blocks this edit clears: all but the newest ``keep`` and the excluded."""
    keep = (edit.get("keep") or TOOL_DEFAULTS["keep"])["value"]
    excluded = set(edit.get("exclude_tools") or [])
    uses = [b for _, b in tool_uses(messages)]
    older = uses[:max(0, len(uses) - keep)]
    return [b for b in older if b.get("name") not in excluded]


def clear_tool_uses(messages: list, edit: dict, count: Count,
                    before: int | None = None) -> tuple[list, dict | None]:
    """(the messages the model sees, the applied edit or None); ``before``: ``count(messages)``
    when the caller has it already."""
    before = count(messages) if before is None else before
    if not _triggered(edit, messages, before):
        return messages, None
    chosen = {b["id"]: b["name"] for b in clearable(messages, edit)}
    cleared: set[str] = set()
    edited = [_cleared(message, edit, chosen, cleared) for message in messages]
    removed = before - count(edited)
    least = (edit.get("clear_at_least") or {}).get("value", 0)
    if not cleared or removed < least:
        return messages, None
    return edited, {"type": "clear_tool_uses_20250919", "cleared_tool_uses": len(cleared),
                    "cleared_input_tokens": removed}


def _cleared(message: dict, edit: dict, chosen: dict, cleared: set) -> dict:
    """``message`` with the chosen tool uses cleared: a new dict (and new blocks) where a block
    changes, the same object where nothing does, so the client's history is never touched."""
    blocks = []
    for block in blocks_of(message):
        kind = block_type(block)
        if kind == "tool_result" and block.get("tool_use_id") in chosen:
            cleared.add(block["tool_use_id"])
            block = {**block, "content": CLEARED}
        elif kind == "tool_use" and block.get("id") in chosen and _clears_input(edit, block["name"]):
            cleared.add(block["id"])
            block = {**block, "input": {}}
        blocks.append(block)
    changed = any(new is not old for new, old in zip(blocks, blocks_of(message), strict=True))
    return {**message, "content": blocks} if changed else message


def clear_thinking(messages: list, edit: dict, count: Count,
                   before: int | None = None) -> tuple[list, dict | None]:
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
        return messages, None
    turns = [i for i, m in enumerate(messages) if m.get("role") == "assistant"
             and any(block_type(b) in THINKING for b in blocks_of(m))]
    older = turns[:max(0, len(turns) - keep["value"])]
    edited = copy.deepcopy(messages)
    cleared = 0
    for i in older:
        rest = [b for b in blocks_of(edited[i]) if block_type(b) not in THINKING]
        if rest:                              # a turn that was only thinking keeps it
            edited[i]["content"] = rest
            cleared += 1
    if not cleared:
        return messages, None
    before = count(messages) if before is None else before
    return edited, {"type": "clear_thinking_20251015", "cleared_thinking_turns": cleared,
                    "cleared_input_tokens": before - count(edited)}


EDITORS = {"clear_tool_uses_20250919": clear_tool_uses, "clear_thinking_20251015": clear_thinking}


def apply_edits(messages: list, edits: list, count: Count,
                tokens: int | None = None) -> tuple[list, list[dict], int]:
    """The messages after every clearing edit, in order, the edits that applied, and the
    tokens left (``tokens``: ``count(messages)``, when the caller has it)."""
    applied = []
    tokens = count(messages) if tokens is None else tokens
    for edit in edits:
        editor = EDITORS.get(edit["type"])
        if editor is None:
            continue                          # compact_20260112: server_compaction.py
        messages, report = editor(messages, edit, count, tokens)
        if report:
            applied.append(report)
            tokens -= report["cleared_input_tokens"]
    return messages, applied, tokens


def _threshold_problem(value: Any, where: str, kinds: tuple[str, ...], low: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("type") not in kinds:
        return f"{where}.type: Input should be " + " or ".join(f"'{k}'" for k in kinds)
    number = value.get("value")
    if isinstance(number, bool) or not isinstance(number, int) or number < low:
        return f"{where}.value: Input should be an integer >= {low}"
    return None


def tool_edit_problem(edit: dict, where: str) -> str | None:
    for name, kinds, low in (("trigger", ("input_tokens", "tool_uses"), 1),
                             ("keep", ("tool_uses",), 0), ("clear_at_least", ("input_tokens",), 0)):
        problem = _threshold_problem(edit.get(name), f"{where}.{name}", kinds, low)
        if problem:
            return problem
    excluded = edit.get("exclude_tools")
    if excluded is not None and not (isinstance(excluded, list)
                                     and all(isinstance(n, str) for n in excluded)):
        return f"{where}.exclude_tools: Input should be a valid list of tool names"
    inputs = edit.get("clear_tool_inputs")
    if inputs is not None and not isinstance(inputs, bool) and not (
            isinstance(inputs, list) and all(isinstance(n, str) for n in inputs)):
        return f"{where}.clear_tool_inputs: Input should be a boolean or a list of tool names"
    return None


def thinking_edit_problem(edit: dict, where: str) -> str | None:
    keep = edit.get("keep")
    if keep is None or keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
        return None
    return _threshold_problem(keep, f"{where}.keep", ("thinking_turns",), 1)
