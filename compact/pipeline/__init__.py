"""The lesson's compactor: four stages and the reactive path, and nothing above them.

Open ``compactor.py`` first: its docstring draws the whole flow. Each stage has a file of
its own name; ``formats.py`` owns every text a stage writes into the context. Nothing in
this folder imports from the rest of ``compact`` (a test walks the imports to keep it so).
"""

from .compact_history import compact_history, reactive_compact
from .compactor import STAGES, Compactor
from .errors import CompactError, HistoryError, ModelResponseError, StorageError, SummaryError, ToolError
from .events import StageEvent
from .limits import Limits
from .micro_compact import micro_compact
from .snip_compact import snip_compact
from .tool_result_budget import tool_result_budget

__all__ = ["STAGES", "CompactError", "Compactor", "HistoryError", "Limits", "ModelResponseError",
           "StageEvent", "StorageError", "SummaryError", "ToolError", "compact_history",
           "micro_compact", "reactive_compact", "snip_compact", "tool_result_budget"]
