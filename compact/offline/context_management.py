"""What the model is shown of a request, after the API's own context management.

``prepare`` takes a valid request and returns a ``Prepared``: the messages the model sees
(from the last compaction block on, then every clearing edit applied), the tokens before
and after, the edits applied, and whether this request compacts (``"edit"``: the
``compact_20260112`` edit's trigger was reached; ``"summarize"``: top-level ``compaction``).
``management_problem`` is the first rule ``context_management``, ``compaction`` or a
re-sent compaction block breaks, in the API's words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..pipeline.messages import block_type, blocks_of
from .context_editing import EDITORS, apply_edits, thinking_edit_problem, tool_edit_problem
from .server_compaction import (
    EDIT,
    block_problem,
    compact_edit,
    config_problem,
    edit_problem,
    triggered,
    visible_messages,
)

KINDS = (*EDITORS, EDIT)


@dataclass
class Prepared:
    messages: list                     # what the model sees
    original_tokens: int               # the request as sent (after compaction blocks)
    tokens: int                        # what the model sees
    applied: list = field(default_factory=list)
    compaction: str | None = None      # None, "edit" or "summarize"
    edit: dict = field(default_factory=dict)

    @property
    def report(self) -> dict | None:
        """The reply's ``context_management`` (present whenever edits were asked for)."""
        return {"applied_edits": self.applied}


def edits_of(payload: dict) -> list:
    management = payload.get("context_management")
    edits = management.get("edits") if isinstance(management, dict) else None
    return edits if isinstance(edits, list) else []


def _edits_problem(management: Any) -> str | None:
    if management is None:
        return None
    if not isinstance(management, dict) or not isinstance(management.get("edits", []), list):
        return "context_management.edits: Input should be a valid list"
    seen = []
    for k, edit in enumerate(management.get("edits", [])):
        where = f"context_management.edits.{k}"
        if not isinstance(edit, dict) or edit.get("type") not in KINDS:
            return (f"{where}: Input tag found using 'type' does not match any of the expected "
                    "tags: " + ", ".join(f"'{t}'" for t in KINDS))
        if edit["type"] in seen:
            return f"{where}: each edit type may appear once; {edit['type']!r} is repeated"
        if edit["type"] == "clear_thinking_20251015" and k != 0:
            return f"{where}: clear_thinking_20251015 must be the first edit in the list"
        seen.append(edit["type"])
        check = {"clear_tool_uses_20250919": tool_edit_problem,
                 "clear_thinking_20251015": thinking_edit_problem, EDIT: edit_problem}[edit["type"]]
        problem = check(edit, where)
        if problem:
            return problem
    return None


def management_problem(payload: dict) -> str | None:
    problem = _edits_problem(payload.get("context_management")) or config_problem(
        payload.get("compaction"), edits_of(payload))
    if problem:
        return problem
    for i, message in enumerate(payload["messages"]):
        for j, block in enumerate(blocks_of(message)):
            if block_type(block) == "compaction":
                problem = block_problem(block, f"messages.{i}.content.{j}")
                if problem:
                    return problem
    return None


def prepare(payload: dict, count: Callable[[list], int]) -> Prepared:
    """``count(messages)``: the input tokens of this request holding those messages."""
    visible = visible_messages(payload["messages"])
    original = count(visible)
    edits = edits_of(payload)
    seen, applied, tokens = apply_edits(visible, edits, count, original)
    prepared = Prepared(seen, original, tokens, applied)
    edit = compact_edit(edits)
    if payload.get("compaction") is not None:
        prepared.compaction, prepared.edit = "summarize", payload["compaction"]
    elif edit is not None and triggered(edit, prepared.tokens):
        prepared.compaction, prepared.edit = "edit", edit
    return prepared
