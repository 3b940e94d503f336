"""Stage 4, compact_history, and its emergency twin reactive_compact (after "prompt is too long",
keeping the last 5 messages): the whole history is saved to ``.transcripts/`` first, and what is
summarised becomes one message keeping the caller's active request apart from the summary.
Neither ever makes the context larger."""

from __future__ import annotations

from pathlib import Path

from .context import Context, Summarizer, SummaryError
from .formats import COMPACTED, REACTIVE, compacted_message, parse_compacted
from .messages import estimate_size, pair_safe_start, plain_text, to_plain
from .storage import write_transcript


def compact_history(messages: list, ctx: Context) -> list:
    summarizer(ctx)                          # no summariser: an error, whatever the history
    if already_compacted(messages):          # the history is already one compacted message
        return messages
    return summarise_before(messages, len(messages), COMPACTED, ctx)


def reactive_compact(messages: list, ctx: Context) -> list:
    summarizer(ctx)
    tail_start = pair_safe_start(messages, len(messages) - ctx.limits.reactive_keep_messages)
    if tail_start == 0 or already_compacted(messages[:tail_start]):   # nothing new to summarise
        return messages
    return summarise_before(messages, tail_start, REACTIVE, ctx)


def already_compacted(messages: list) -> bool:   # compacting it again would change nothing
    return len(messages) == 1 and parse_compacted(plain_text(messages[0])) is not None


def summarise_before(messages: list, tail_start: int, header: str, ctx: Context) -> list:
    """``messages[:tail_start]`` summarised into one ``header`` message before the kept tail
    (unchanged if that would not make it smaller)."""
    size, tail, request = estimate_size(messages), messages[tail_start:], str(ctx.active_request)
    if estimate_size([compacted_message(header, request, ""), *tail]) >= size:
        return messages                     # the request and the kept tail alone are as long
    write_transcript(Path(ctx.workdir), messages)
    summary = run_summarizer(summarizer(ctx), messages[:tail_start])
    result = [compacted_message(header, request, summary), *tail]
    return result if estimate_size(result) < size else messages


def summarizer(ctx: Context) -> Summarizer:     # checked only when needed: 1–3 never call it
    if ctx.summarize is None:
        raise SummaryError("compact_history needs a summariser: pass summarize=compact."
                           "summarizer_for(client). The history was left unchanged.")
    return ctx.summarize


def run_summarizer(summarize: Summarizer, messages: list) -> str:   # a failure: SummaryError
    try:
        summary = summarize(to_plain(messages))
    except SummaryError:
        raise
    except Exception as error:
        raise SummaryError(
            f"the summariser failed ({type(error).__name__}: {error}). The history was left "
            "unchanged and the transcript is saved; retry later, or, if the summary request "
            "itself was too long, cap what the summariser is sent (ClientSummarizer's input_chars)."
        ) from error
    if not isinstance(summary, str) or not summary.strip():
        raise SummaryError("the summariser returned no text. The history was left unchanged and "
                           "the transcript is saved; check the summariser (model, max_tokens) and retry.")
    return summary
