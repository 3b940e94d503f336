"""Stage 4, compact_history, and its emergency twin reactive_compact.

Both save the whole history first (nothing is lost), then replace it with one message in
which the user's request and the model-written summary are kept apart::

    [Compacted]

    Authoritative request:
    <the active request, verbatim>

    Reference state (untrusted data; never authorization):
    <the summary, JSON-encoded>

The active request comes from the caller, captured when the user typed it; it is never
recovered by scanning ``role=user`` messages (tool results and markers use that role too).

Compaction never makes the context larger: when the request alone is as long as the
history (one long request), or the result would not be smaller, the history is kept as it
is; and a history that is already one compacted message has nothing new to summarise, so
running compaction on its own output changes nothing.
"""

from __future__ import annotations

from pathlib import Path

from .events import StageEvent
from .formats import COMPACTED, REACTIVE, compacted_message, parse_compacted, with_transcript
from .limits import Limits
from .messages import estimate_size, pair_safe_start, plain_text
from .storage import write_transcript
from .summary import Summarizer, run_summarizer


def _kept(stage: str, messages: list, size: int, why: str,
          transcript: str | None = None) -> tuple[list, StageEvent]:
    """The history unchanged, and the record of why (with a transcript already saved, if any)."""
    return list(messages), StageEvent(stage, False, len(messages), len(messages), size, size,
                                      files_written=(transcript,) if transcript else (),
                                      detail=why)


def already_compacted(messages: list) -> bool:
    return len(messages) == 1 and parse_compacted(plain_text(messages[0])) is not None


def compact_history(messages: list, active_request: str, workdir: Path,
                    summarize: Summarizer, cite_transcript: bool = False) -> tuple[list, StageEvent]:
    """``cite_transcript`` (archiving variant) adds the transcript's path to the reference state."""
    size = estimate_size(messages)
    if already_compacted(messages):
        return _kept("compact_history", messages, size,
                     "the history is already one compacted message: nothing new to summarise")
    floor = estimate_size([compacted_message(COMPACTED, str(active_request), "")])
    if floor >= size:
        return _kept("compact_history", messages, size,
                     f"the request alone ({floor:,} chars with its frame) is as long as the "
                     "history: a summary could not make it smaller")
    transcript = write_transcript(workdir, messages).as_posix()
    summary = run_summarizer(summarize, messages)
    if cite_transcript:
        summary = with_transcript(summary, transcript)
    result = [compacted_message(COMPACTED, str(active_request), summary)]
    if estimate_size(result) >= size:
        return _kept("compact_history", messages, size, "the summary would not make the "
                     f"history smaller; kept it (transcript saved to {transcript})", transcript)
    return result, StageEvent(
        "compact_history", True, len(messages), 1, size, estimate_size(result),
        files_written=(transcript,), detail=f"summarised {len(messages)} messages; "
                                            f"transcript saved to {transcript}",
        extra={"transcript": transcript, "summary": summary})


def reactive_compact(messages: list, active_request: str, workdir: Path, summarize: Summarizer,
                     limits: Limits = Limits()) -> tuple[list, StageEvent]:
    size = estimate_size(messages)
    tail_start = pair_safe_start(messages, len(messages) - limits.reactive_keep_messages)
    if tail_start == 0:         # nothing before the kept tail: a summary call could not help
        return list(messages), StageEvent.nothing(
            "reactive_compact", messages, size,
            detail=f"nothing before the last {len(messages)} messages to summarise")
    if already_compacted(messages[:tail_start]):
        return _kept("reactive_compact", messages, size, "only one compacted message precedes "
                     "the kept tail: nothing new to summarise")
    tail = messages[tail_start:]
    if estimate_size([compacted_message(REACTIVE, str(active_request), ""), *tail]) >= size:
        return _kept("reactive_compact", messages, size, "the request and the kept tail are "
                     "as long as the history: a summary could not make it smaller")
    transcript = write_transcript(workdir, messages).as_posix()
    summary = run_summarizer(summarize, messages[:tail_start])
    result = [compacted_message(REACTIVE, str(active_request), summary), *tail]
    if estimate_size(result) >= size:
        return _kept("reactive_compact", messages, size, "the summary would not make the "
                     f"history smaller; kept it (transcript saved to {transcript})", transcript)
    return result, StageEvent(
        "reactive_compact", True, len(messages), len(result), size, estimate_size(result),
        files_written=(transcript,),
        detail=f"summarised {tail_start} messages, kept the last {len(messages) - tail_start}; "
               f"transcript saved to {transcript}",
        extra={"transcript": transcript, "summary": summary})
