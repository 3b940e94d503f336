"""What every stage ``stage(messages, ctx) -> list`` is handed besides the messages (``Context``,
the lesson's numbers in ``Limits``), and the errors a stage may raise: each says what went wrong,
what to do, and that the history was left unchanged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path


@dataclass(frozen=True)
class Limits:
    """The thresholds of the four stages and the reactive path (``with_`` makes a copy)."""

    context_limit: int = 50_000          # CONTEXT_LIMIT: chars of messages before compact_history
    tool_result_budget: int = 200_000    # chars of tool results allowed in the newest batch
    persist_threshold: int = 30_000      # PERSIST_THRESHOLD: only longer results go to disk
    preview_chars: int = 2_000           # how much of a persisted result stays in context
    max_messages: int = 50               # snip_compact fires above this many messages
    keep_head: int = 3                   # ...and keeps this many first ones (and the last 47)
    keep_recent_results: int = 3         # KEEP_RECENT: micro_compact keeps the newest results
    min_compact_chars: int = 120         # ...and leaves shorter results alone
    reactive_keep_messages: int = 5      # reactive_compact keeps the last messages
    max_reactive_retries: int = 1        # MAX_REACTIVE_RETRIES: a second refusal is raised

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Limits.{field.name} must be a non-negative int, got {value!r}")
        if self.keep_head >= self.max_messages:
            raise ValueError(f"Limits.keep_head ({self.keep_head}) must be smaller than max_messages")

    def with_(self, **changes: int) -> Limits:      # a copy with some numbers changed
        return replace(self, **changes)


Summarizer = Callable[[list], str]        # the messages to summarise -> the summary


@dataclass(frozen=True)
class Context:
    workdir: Path = Path(".")             # where transcripts and persisted results go
    limits: Limits = Limits()             # the lesson's numbers
    active_request: str = ""              # the user's request, captured when it was submitted
    summarize: Summarizer | None = None   # stage 4's and the reactive path's model call


class CompactError(Exception):
    """Base class: every error this package raises on purpose."""


class HistoryError(CompactError, ValueError):
    """The message list is not a valid Messages-API history; it was left unchanged."""


class StorageError(CompactError, OSError):
    """A transcript or persisted result could not be written; the history was left unchanged."""


class SummaryError(CompactError, RuntimeError):
    """The summariser failed or returned nothing; the history was left unchanged."""
