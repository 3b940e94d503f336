"""A reply cut at ``max_tokens`` or at a stop sequence, as the real API cuts one: what fits is kept.

A text block is cut inside its text; a tool call that does not fit is cut inside its input,
so the reply ends with a ``tool_use`` block whose input is incomplete (here: empty), and
``stop_reason`` is ``max_tokens``. Callers must not run that call as if it were whole.
"""

from __future__ import annotations

from ..pipeline.messages import estimate_tokens


def _fitting_text(kept: list, block: dict, max_tokens: int) -> str:
    """The longest head of ``block``'s text that still fits after ``kept``."""
    text, low, high = block["text"], 0, len(block["text"])
    while low < high:                                   # binary search on the cut
        mid = (low + high + 1) // 2
        if estimate_tokens([*kept, {**block, "text": text[:mid]}]) <= max_tokens:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip()


def cut_at_max_tokens(content: list, max_tokens: int) -> tuple[list, bool]:
    """(content that fits in ``max_tokens`` output tokens, whether anything was cut)."""
    if estimate_tokens(content) <= max_tokens:
        return content, False
    kept: list = []
    for block in content:
        if estimate_tokens([*kept, block]) <= max_tokens:
            kept.append(block)
            continue
        if block.get("type") == "text":
            text = _fitting_text(kept, block, max_tokens)
            if text.strip():                   # the API never returns an empty text block
                kept.append({**block, "text": text})
        elif block.get("type") == "tool_use":
            partial = {**block, "input": {}}
            if estimate_tokens([*kept, partial]) <= max_tokens:
                kept.append(partial)
        break
    return kept, True


def cut_at_stop_sequence(content: list, stop_sequences: list | None) -> tuple[list, str | None]:
    """(content up to the first stop sequence written, that sequence) or (content, None).

    As the API: generation stops where a text block first contains one of the sequences;
    the sequence itself is not returned, and nothing after it (no later tool call) is.
    """
    for index, block in enumerate(content):
        if block.get("type") != "text" or not stop_sequences:
            continue
        hits = [(block["text"].find(s), s) for s in stop_sequences if s in block["text"]]
        if hits:
            at, sequence = min(hits)
            head = block["text"][:at].rstrip()
            kept = content[:index] + ([{**block, "text": head}] if head.strip() else [])
            return kept, sequence
    return content, None
