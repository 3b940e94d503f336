"""Worked solutions to the notebooks' "write it yourself" sections.

Each follows the lesson's snippet line by line, plus the package's fixes, written for
reading rather than speed: plain dicts, string contents, a new list returned (the caller's
list is never changed). They pass every case in ``stage_cases``; the package's own stages
(``compact/pipeline/``) do the same work with validation, events and typed blocks.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..pipeline import Context
from ..pipeline.formats import (
    AUTHORITATIVE,
    COMPACTED,
    REACTIVE,
    REFERENCE,
    placeholder_for,
    snip_marker,
    snipped_count,
)
from ..pipeline.messages import has_tool_use, is_tool_result_message
from ..pipeline.storage import persist_tool_result, write_transcript
from ..pipeline.tool_result_budget import persisted_text

MODULE = __name__      # a stage from here is the worked solution, not the learner's own


def tool_result_budget(messages: list, ctx: Context) -> list:
    limits = ctx.limits
    if not messages or not is_tool_result_message(messages[-1]):
        return list(messages)
    last = messages[-1]
    content = list(last["content"])                      # a copy we may change
    results = [(j, b) for j, b in enumerate(content) if b.get("type") == "tool_result"]
    total = sum(len(b["content"]) for _, b in results)
    for j, block in sorted(results, key=lambda jb: len(jb[1]["content"]), reverse=True):
        if total <= limits.tool_result_budget:
            break
        text = block["content"]
        if len(text) <= limits.persist_threshold:
            continue
        path = persist_tool_result(Path(ctx.workdir), block["tool_use_id"], text)
        content[j] = {**block, "content": persisted_text(path, text, limits.preview_chars)}
        total += len(content[j]["content"]) - len(text)
    return [*messages[:-1], {**last, "content": content}]


def snip_compact(messages: list, ctx: Context) -> list:
    limits = ctx.limits
    real = [m for m in messages if snipped_count(m) is None]      # fix: a marker is no message
    if len(real) <= limits.max_messages:
        return list(messages)
    keep_tail = limits.max_messages - limits.keep_head
    head_end = limits.keep_head
    if head_end > 0 and has_tool_use(messages[head_end - 1]):
        while head_end < len(messages) and is_tool_result_message(messages[head_end]):
            head_end += 1
    tail_start = len(messages) - keep_tail
    if (tail_start > 0 and is_tool_result_message(messages[tail_start])
            and has_tool_use(messages[tail_start - 1])):
        tail_start -= 1
    if head_end >= tail_start:
        return list(messages)
    gap = messages[head_end:tail_start]
    snipped = sum(1 if snipped_count(m) is None else snipped_count(m) for m in gap)   # fix
    return [*messages[:head_end], snip_marker(snipped), *messages[tail_start:]]


def micro_compact(messages: list, ctx: Context) -> list:
    limits = ctx.limits
    results = [(i, j) for i, m in enumerate(messages)
               if m["role"] == "user" and isinstance(m["content"], list)
               for j, b in enumerate(m["content"]) if b.get("type") == "tool_result"]
    keep = limits.keep_recent_results
    if len(results) <= keep:
        return list(messages)
    seen_until = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    out = list(messages)
    for i, j in results[:len(results) - keep]:
        if i > seen_until:                 # fix 1: the model has not read this batch yet
            continue
        text = messages[i]["content"][j]["content"]
        placeholder = placeholder_for(text)              # fix 2: a persisted result keeps its path
        if len(text) <= limits.min_compact_chars or len(placeholder) >= len(text):
            continue
        content = list(out[i]["content"])
        content[j] = {**content[j], "content": placeholder}
        out[i] = {**out[i], "content": content}
    return out


def _two_sections(header: str, active_request: str, summary: str) -> dict:
    reference = json.dumps(summary, ensure_ascii=False)   # one quoted string: no fake headers
    return {"role": "user", "content": (f"{header}\n\n{AUTHORITATIVE}\n{active_request}\n\n"
                                        f"{REFERENCE}\n{reference}")}


def compact_history(messages: list, ctx: Context) -> list:
    write_transcript(Path(ctx.workdir), messages)        # nothing is lost: it is on disk
    summary = ctx.summarize(messages)
    return [_two_sections(COMPACTED, str(ctx.active_request), summary)]


def reactive_compact(messages: list, ctx: Context) -> list:
    tail_start = max(0, len(messages) - ctx.limits.reactive_keep_messages)
    if (tail_start > 0 and is_tool_result_message(messages[tail_start])
            and has_tool_use(messages[tail_start - 1])):
        tail_start -= 1
    if tail_start == 0:                    # fix: nothing before the tail to summarise
        return list(messages)
    write_transcript(Path(ctx.workdir), messages)
    summary = ctx.summarize(messages[:tail_start])
    return [_two_sections(REACTIVE, str(ctx.active_request), summary), *messages[tail_start:]]
