"""Stage 1, tool_result_budget: the newest batch of results may not exceed the budget.

Largest results go to disk first; the context keeps the path and a preview, so nothing is
lost and the model can read the rest back. Runs before micro_compact so a huge result is
on disk before it could ever become a placeholder.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from .events import StageEvent
from .formats import persisted_block
from .limits import Limits
from .messages import (
    block_type,
    estimate_size,
    is_tool_result_message,
    result_images,
    result_size,
    result_text,
    with_results_replaced,
)
from .storage import persist_tool_result

_PROBE_PATH = ".task_outputs/tool-results/" + "x" * 90 + ".txt"    # longest name safe_id makes


def _joins_previous(text: str, at: int) -> bool:
    """Whether text[at] continues the character before it (so a cut there splits it)."""
    char, before = text[at], text[at - 1]
    return (unicodedata.combining(char) != 0
            or char in "\u200d\ufe0e\ufe0f" or before == "\u200d"       # ZWJ, variation selectors
            or "\U0001f3fb" <= char <= "\U0001f3ff"                       # skin tones
            or ("\U0001f1e6" <= char <= "\U0001f1ff" and "\U0001f1e6" <= before <= "\U0001f1ff"
                and _regional_run(text, at) % 2 == 1))                    # a flag's second half


def _regional_run(text: str, at: int) -> int:
    """How many regional-indicator letters stand right before ``at``."""
    count = 0
    while at - count - 1 >= 0 and "\U0001f1e6" <= text[at - count - 1] <= "\U0001f1ff":
        count += 1
    return count


def preview_of(text: str, chars: int) -> str:
    """The first ``chars`` characters, never ending inside a user-perceived character:
    not before a combining mark, a joiner or variation selector, a skin tone, or the second
    half of a flag."""
    cut = min(chars, len(text))
    while 0 < cut < len(text) and _joins_previous(text, cut):
        cut -= 1
    return text[:cut]


def persisted_text(path: Path | str, text: str, preview_chars: int) -> str:
    """What stays in context for a persisted result: where it is, and how it begins."""
    return persisted_block(Path(path).as_posix(), len(text), preview_chars,
                           preview_of(text, preview_chars))


def tool_result_budget(messages: list, workdir: Path, limits: Limits = Limits(),
                       size: int | None = None) -> tuple[list, StageEvent]:
    """``size``: estimate_size(messages) if the caller already knows it (saves a pass)."""
    size = estimate_size(messages) if size is None else size
    nothing = StageEvent.nothing("tool_result_budget", messages, size)
    if not messages or not is_tool_result_message(messages[-1]):
        return list(messages), nothing
    last = messages[-1]
    blocks = [(j, b) for j, b in enumerate(last["content"]) if block_type(b) == "tool_result"]
    total = sum(result_size(b) for _, b in blocks)      # an image counts as IMAGE_CHARS
    if total <= limits.tool_result_budget:
        return list(messages), nothing

    # A result holding images stays as it is: its text preview would drop the image the
    # model has not seen yet (an image costs a fixed ~1,600 tokens, not its base64 size).
    texts = {j: result_text(b) for j, b in blocks if not result_images(b)}
    replacements: dict[tuple[int, int], str] = {}
    written: list[str] = []
    ranked = sorted(((j, b) for j, b in blocks if j in texts), key=lambda jb: len(texts[jb[0]]),
                    reverse=True)
    for j, block in ranked:
        if total <= limits.tool_result_budget:
            break
        text = texts[j]
        if len(text) <= limits.persist_threshold:
            continue
        if len(persisted_text(_PROBE_PATH, text, limits.preview_chars)) >= len(text):
            continue                          # a preview as long as the result saves nothing
        rel = persist_tool_result(workdir, block.get("tool_use_id"), text)
        replacement = persisted_text(rel, text, limits.preview_chars)
        replacements[len(messages) - 1, j] = replacement
        total += len(replacement) - len(text)
        written.append(rel.as_posix())
    if not written:
        return list(messages), nothing
    result = with_results_replaced(messages, replacements)
    return result, StageEvent(
        "tool_result_budget", True, len(messages), len(result), size, estimate_size(result),
        files_written=tuple(written), placeholders=len(written),
        detail=f"persisted {len(written)} result(s) to disk, kept a {limits.preview_chars:,}-char "
               "preview of each")
