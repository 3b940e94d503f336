"""The lesson's compactor: four stages and the reactive path, and nothing above them.

Open ``compactor.py`` first: its docstring draws the whole flow. Each stage has a file of its
own name; ``formats.py`` owns every text a stage writes into the context; ``summary.py`` is
the lesson's summariser. Nothing in this folder imports from the rest of ``compact``, and the
variants beyond the lesson (``compact/extensions/``) compose with it from outside.
"""

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
