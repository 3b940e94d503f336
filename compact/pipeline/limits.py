"""Every number the pipeline uses, in one place; the defaults are the lesson's."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Limits:
    """Thresholds for the four stages and the reactive path.

    Frozen so a run's numbers cannot drift mid-session; use ``limits.with_(...)``
    (or ``dataclasses.replace``) to try other values in a notebook.
    """

    context_limit: int = 50_000          # chars of serialised messages before compact_history
    tool_result_budget: int = 200_000    # chars of tool results allowed in the newest batch
    persist_threshold: int = 30_000      # only results longer than this are written to disk
    preview_chars: int = 2_000           # how much of a persisted result stays in context
    max_messages: int = 50               # snip_compact fires above this many messages
    keep_head: int = 3                   # snip_compact keeps this many first messages
    keep_recent_results: int = 3         # micro_compact keeps this many newest tool results
    min_compact_chars: int = 120         # micro_compact leaves shorter results alone
    micro_compact_above: int = 0         # micro_compact waits until the context is this big (0: always)
    reactive_keep_messages: int = 5      # reactive_compact keeps this many last messages
    max_reactive_retries: int = 1        # a second prompt-too-long in a row is raised
    summary_input_chars: int = 40_000    # cap on what the summariser is sent (shortfall 4)
    summary_result_chars: int = 1_500    # each tool result is clipped to this in the summary input
    summary_unseen_chars: int = 8_000    # ...but one the model has not read yet keeps this much:
    #                                      the summary is the only place it can survive
    # The cache-friendly configuration (0 = off, the lesson's behaviour). Prompt caching
    # reads an unchanged prefix at ~0.1x and writes a changed one at ~1.25x, so a prompt
    # rewritten near its start on every call pays full price every call:
    high_water_mark: int = 0             # chars: stages 2-4 wait until the context is above it
    #                                      (or holds more than max_messages), then act at once
    low_water_mark: int = 0              # chars: ...clearing old results, then summarising
    #                                      if the context is still above this
    summary_max_chars: int = 0           # >0: summarise only the span since the last summary,
    #                                      merge, keep the merged summary under this many chars

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Limits.{name} must be a non-negative int, got {value!r}")
        if self.keep_head >= self.max_messages:
            raise ValueError(
                f"Limits.keep_head ({self.keep_head}) must be smaller than "
                f"max_messages ({self.max_messages})"
            )
        if 0 < self.summary_max_chars < 1_000:
            raise ValueError(f"Limits.summary_max_chars ({self.summary_max_chars}) must be 0 "
                             "(off) or at least 1,000: a summary needs room for its notes")
        if self.high_water_mark and self.low_water_mark >= self.high_water_mark:
            raise ValueError(
                f"Limits.low_water_mark ({self.low_water_mark}) must be below "
                f"high_water_mark ({self.high_water_mark}): compaction goes from the high "
                "mark down to the low one")

    def with_(self, **changes: int) -> Limits:
        """A copy with some numbers changed (the original stays as it was)."""
        return replace(self, **changes)
