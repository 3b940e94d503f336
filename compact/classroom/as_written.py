"""The lesson's snippets as written, kept as the reference the notebooks compare against.

Not the place to start (that is ``compact/pipeline/compactor.py``): these reproduce the
code of the lesson s08 "Context Compact" faithfully, including the shortfalls the README
lists; the package's own stages fix them. Nothing in the package calls this module.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..pipeline.storage import persist_tool_result
from ..pipeline.tool_result_budget import persisted_text

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


def _message_has_tool_use(message: dict) -> bool:
    return message.get("role") == "assistant" and isinstance(message.get("content"), list) \
        and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in message["content"])


def _is_tool_result_message(message: dict) -> bool:
    return message.get("role") == "user" and isinstance(message.get("content"), list) \
        and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in message["content"])


def tool_result_budget(messages: list, workdir: Path, max_bytes: int = 200_000) -> list:
    """Lesson: the newest batch's largest results to disk until it fits; its snippet line for line.

    Edits the last message in place, as written, and ranks by ``len(str(content))``: a result holding
    an image counts its base64 repr and is persisted as text, the picture lost (notebook 01).
    """
    last, PERSIST_THRESHOLD = messages[-1], 30_000

    def persist_large_output(tool_use_id, content):      # not printed in the lesson: the package's
        return persisted_text(persist_tool_result(workdir, tool_use_id, content), content, 2_000)

    blocks = [(i, block) for i, block in enumerate(last["content"])
              if isinstance(block, dict)
              and block.get("type") == "tool_result"]
    total = sum(len(str(block.get("content", ""))) for _, block in blocks)

    ranked = sorted(
        blocks,
        key=lambda item: len(str(item[1].get("content", ""))),
        reverse=True,
    )
    for _, block in ranked:
        if total <= max_bytes:
            break
        content = str(block.get("content", ""))
        if len(content) <= PERSIST_THRESHOLD:
            continue
        block["content"] = persist_large_output(
            block.get("tool_use_id", "unknown"), content)
        total = sum(len(str(item.get("content", ""))) for _, item in blocks)
    return messages


def snip_compact(messages: list, max_messages: int = 50) -> list:
    """Lesson: over ``max_messages``, the first 3, one marker and the rest of the tail.

    The trigger (the first line) is not printed in the lesson; the rest is its snippet line for
    line. It counts an earlier marker as a message and never reads its N, so snipping again
    replaces ``[snipped 10 messages]`` by a marker of the few messages cut this time.
    """
    if len(messages) <= max_messages:
        return messages
    keep_head, keep_tail = 3, max_messages - 3
    head_end = keep_head
    tail_start = len(messages) - keep_tail

    if head_end > 0 and _message_has_tool_use(messages[head_end - 1]):
        while (head_end < len(messages)
               and _is_tool_result_message(messages[head_end])):
            head_end += 1

    if (tail_start > 0
            and _is_tool_result_message(messages[tail_start])
            and _message_has_tool_use(messages[tail_start - 1])):
        tail_start -= 1

    if head_end >= tail_start:
        return messages

    snipped = tail_start - head_end
    marker = {"role": "user", "content": f"[snipped {snipped} messages]"}
    messages = messages[:head_end] + [marker] + messages[tail_start:]
    return messages


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
