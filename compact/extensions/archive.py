"""The archiving variant: whatever a stage removes is written to disk first, and the context
keeps its path — nothing is lost, only moved (the lesson's newer v8 version does the same).

    snip_compact     the snipped middle → a transcript; ``[snipped N messages; archived at <path>]``
    micro_compact    each replaced result → ``.task_outputs/tool-results/``; its placeholder
                     keeps the path: ``[Earlier tool result compacted. Full output: <path>]``
    compact_history  the summary ends ``Full transcript: <path>``
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..pipeline.compactor import LESSON_STAGES, Compactor
from ..pipeline.events import Change
from ..pipeline.formats import (
    COMPACTED,
    PLACEHOLDER,
    TRANSCRIPT_LINE,
    compacted_message,
    kept_path_placeholder,
    snip_marker,
)
from ..pipeline.limits import Limits
from ..pipeline.messages import (
    estimate_size,
    iter_tool_results,
    result_images,
    result_text,
    wire_json,
    with_results_replaced,
)
from ..pipeline.storage import persist_tool_result, write_transcript


def with_transcript(summary: str, transcript: str) -> str:
    """The archiving variant's summary: it names where the whole history was saved."""
    return f"{summary}\n{TRANSCRIPT_LINE}{transcript}"


class ArchivingCompactor(Compactor):
    """A Compactor whose snip, micro and history stages archive what they remove."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        archiving = {"snip_compact": self.archived_snip, "micro_compact": self.archived_micro,
                     "compact_history": self.cited_history}
        given = kwargs.get("functions") or {}              # a function passed in stays
        self.functions.update((k, f) for k, f in archiving.items() if k not in given)

    def archived_snip(self, messages: list, limits: Limits) -> tuple[list, Change]:
        result, change = LESSON_STAGES["snip_compact"](messages, limits)
        if not change.fired:
            return result, change
        head_end, tail_start = change.extra["head_end"], change.extra["tail_start"]
        path = write_transcript(self.workdir, messages[head_end:tail_start]).as_posix()
        result = list(result)
        result[head_end] = snip_marker(change.extra["snipped"], path)
        return result, replace(change, files_written=(path,))

    def archived_micro(self, messages: list, limits: Limits) -> tuple[list, Change]:
        result, change = LESSON_STAGES["micro_compact"](messages, limits)
        before = {(i, j): block for i, j, block in iter_tool_results(messages)}
        saved, written = {}, []
        for i, j, block in iter_tool_results(result):
            if block.get("content") == PLACEHOLDER and before[i, j] is not block:
                old = before[i, j]        # an image result is archived as the JSON of its blocks
                text = wire_json(old["content"]) if result_images(old) else result_text(old)
                path = persist_tool_result(self.workdir, old.get("tool_use_id"), text).as_posix()
                saved[i, j] = kept_path_placeholder(path)
                written.append(path)
        if not saved:
            return result, change
        return with_results_replaced(result, saved), replace(change, files_written=tuple(written))

    def cited_history(self, messages: list, active_request: str, workdir: Any, summarize: Any
                      ) -> tuple[list, Change]:
        result, change = LESSON_STAGES["compact_history"](messages, active_request, workdir, summarize)
        if not change.fired:
            return result, change
        summary = with_transcript(change.extra["summary"], change.extra["transcript"])
        cited = [compacted_message(COMPACTED, str(active_request), summary), *result[1:]]
        if estimate_size(cited) >= estimate_size(messages):
            return result, change
        return cited, replace(change, extra={**change.extra, "summary": summary})
