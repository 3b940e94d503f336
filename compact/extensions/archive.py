"""The archiving variant: whatever snip, micro and history remove is written to disk first and
the context keeps its path — nothing is lost, only moved (as the lesson's newer v8 does)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from ..pipeline.compact_history import compact_history, run_summarizer, summarizer
from ..pipeline.compactor import Compactor, snip_span
from ..pipeline.context import Context
from ..pipeline.formats import PLACEHOLDER, TRANSCRIPT_LINE, kept_path_placeholder, snip_marker
from ..pipeline.messages import (
    iter_tool_results,
    result_images,
    result_text,
    wire_json,
    with_results_replaced,
)
from ..pipeline.micro_compact import micro_compact
from ..pipeline.snip_compact import snip_compact
from ..pipeline.storage import TRANSCRIPT_DIR, persist_tool_result, write_transcript


class ArchivingCompactor(Compactor):
    """A Compactor whose snip, micro and history stages archive what they remove."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        archiving = {"snip_compact": archived_snip, "micro_compact": archived_micro,
                     "compact_history": cited_history}
        given = kwargs.get("functions") or {}              # a function passed in stays
        self.functions.update((k, f) for k, f in archiving.items() if k not in given)


def archived_snip(messages: list, ctx: Context) -> list:
    result = snip_compact(messages, ctx)
    span = snip_span(messages, result)
    if not span:
        return result
    path = write_transcript(Path(ctx.workdir), messages[span["head_end"]:span["tail_start"]]).as_posix()
    result = list(result)
    result[span["head_end"]] = snip_marker(span["snipped"], path)
    return result


def archived_micro(messages: list, ctx: Context) -> list:
    result = micro_compact(messages, ctx)
    before = {(i, j): block for i, j, block in iter_tool_results(messages)}
    saved = {}
    for i, j, block in iter_tool_results(result):
        if block.get("content") == PLACEHOLDER and before[i, j] is not block:
            old = before[i, j]        # an image result is archived as the JSON of its blocks
            text = wire_json(old["content"]) if result_images(old) else result_text(old)
            path = persist_tool_result(Path(ctx.workdir), old.get("tool_use_id"), text).as_posix()
            saved[i, j] = kept_path_placeholder(path)
    return with_results_replaced(result, saved) if saved else result


def cited_history(messages: list, ctx: Context) -> list:
    """compact_history, its summary naming the transcript it saved."""
    cited = replace(ctx, summarize=partial(_cited, ctx)) if ctx.summarize else ctx
    return compact_history(messages, cited)


def _cited(ctx: Context, span: list) -> str:      # compact_history saves the transcript first
    saved = sorted((Path(ctx.workdir) / TRANSCRIPT_DIR).glob("transcript-*.jsonl"))[-1]
    path = saved.relative_to(ctx.workdir).as_posix()
    return f"{run_summarizer(summarizer(ctx), span)}\n{TRANSCRIPT_LINE}{path}"
