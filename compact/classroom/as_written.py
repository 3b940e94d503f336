"""The lesson's snippets as written, kept as the reference the notebooks compare against.

Not the place to start (that is ``compact/pipeline/compactor.py``): these reproduce the
code of the lesson s08 "Context Compact" faithfully, including the shortfalls the README
lists; the package's own stages fix them. Nothing in the package calls this module.
"""

from __future__ import annotations

import json

KEEP_RECENT = 3
PLACEHOLDER = "[Earlier tool result compacted. Re-run if needed.]"


def estimate_size(messages: list) -> int:
    """Lesson: ``len(str(messages))`` — Python's repr, not what is sent."""
    return len(str(messages))


def collect_tool_results(messages: list) -> list:
    return [(i, j, block) for i, message in enumerate(messages)
            if message.get("role") == "user" and isinstance(message.get("content"), list)
            for j, block in enumerate(message["content"])
            if isinstance(block, dict) and block.get("type") == "tool_result"]


def micro_compact(messages: list) -> list:
    """Lesson: every result but the 3 newest, if > 120 chars, becomes the placeholder.

    Mutates in place, as written; it can hit the newest, unseen batch (shortfall 1) and
    erases a persisted result's path along with its preview (shortfall 2).
    """
    tool_results = collect_tool_results(messages)
    if len(tool_results) <= KEEP_RECENT:
        return messages
    for _, _, block in tool_results[:-KEEP_RECENT]:
        if len(block.get("content", "")) > 120:
            block["content"] = PLACEHOLDER
    return messages


def summary_input(messages: list) -> str:
    """Lesson: the whole history goes to the summariser, uncapped (shortfall 4)."""
    return json.dumps(messages, ensure_ascii=False)
