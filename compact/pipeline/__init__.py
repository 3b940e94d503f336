"""The lesson's compactor: four stages and the reactive path (open ``compactor.py`` first). It
imports nothing from the rest of ``compact``; ``compact/extensions/`` composes with it."""

from .compact_history import compact_history, reactive_compact
from .compactor import STAGES, Compactor, StageEvent
from .context import CompactError, Context, HistoryError, Limits, StorageError, SummaryError
from .micro_compact import micro_compact
from .snip_compact import snip_compact
from .summary import ClientSummarizer
from .tool_result_budget import tool_result_budget

__all__ = ["STAGES", "ClientSummarizer", "Context", "CompactError", "Compactor", "HistoryError",
           "Limits", "StageEvent", "StorageError", "SummaryError", "compact_history",
           "micro_compact", "reactive_compact", "snip_compact", "tool_result_budget"]
