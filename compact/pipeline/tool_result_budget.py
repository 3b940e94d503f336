"""Stage 1, tool_result_budget: from the largest result of the newest batch down, each one over
the persist threshold is written whole to ``.task_outputs/tool-results/<tool_use_id>.txt`` and
replaced by its path and a preview, until the batch fits the budget. Nothing is lost, and a
huge result is on disk before micro_compact could make it a placeholder."""

from __future__ import annotations

from pathlib import Path

import regex

from .context import Context
from .formats import persisted_block
from .messages import (
    block_type,
    is_tool_result_message,
    other_blocks,
    result_images,
    result_size,
    result_text,
    with_results_replaced,
)
from .storage import persist_tool_result

_LONGEST_PATH = ".task_outputs/tool-results/" + "x" * 90 + ".txt"    # the longest safe_id makes


def tool_result_budget(messages: list, ctx: Context) -> list:
    limits = ctx.limits
    if not messages or not is_tool_result_message(messages[-1]):
        return messages
    last = len(messages) - 1
    blocks = [(j, b) for j, b in enumerate(messages[last]["content"]) if block_type(b) == "tool_result"]
    total = sum(result_size(b) for _, b in blocks)          # an image counts as IMAGE_CHARS
    # A result holding images, documents or search results stays whole: a text preview would
    # drop what the model has not seen.
    texts = {j: result_text(b) for j, b in blocks if not result_images(b) and not other_blocks(b)}
    replacements = {}
    for j in sorted(texts, key=lambda j: len(texts[j]), reverse=True):
        if total <= limits.tool_result_budget:
            break
        text = texts[j]
        if len(text) <= limits.persist_threshold or \
                len(persisted_text(_LONGEST_PATH, text, limits.preview_chars)) >= len(text):
            continue                        # (a preview as long as the result saves nothing)
        path = persist_tool_result(Path(ctx.workdir), messages[last]["content"][j].get("tool_use_id"), text)
        replacements[last, j] = persisted_text(path, text, limits.preview_chars)
        total += len(replacements[last, j]) - len(text)
    return with_results_replaced(messages, replacements) if replacements else messages


def persisted_text(path: Path | str, text: str, preview_chars: int) -> str:
    """What stays in context for a persisted result: where it is, and how it begins."""
    return persisted_block(Path(path).as_posix(), len(text), preview_chars,
                           preview_of(text, preview_chars))


def preview_of(text: str, chars: int) -> str:
    """At most ``chars`` characters, never cutting a user-perceived one (an accent, a ZWJ emoji)."""
    if len(text) <= chars:
        return text
    cut = 0
    for cluster in regex.finditer(r"\X", text, endpos=min(len(text), chars + 64)):
        if cluster.end() > chars:
            break
        cut = cluster.end()
    return text[:cut]
