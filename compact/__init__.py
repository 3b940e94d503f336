"""compact — how a coding agent keeps its context window from overflowing.

The lesson's four-stage pipeline, run before every model call (cheapest first)::

    tool_result_budget → snip_compact → micro_compact → compact_history (only if still too big)
    (disk + preview)     (head + tail)   (placeholders)  (transcript + one summary message)

plus ``reactive_compact`` when the API still answers "prompt is too long", the
model-invoked ``compact`` tool, and ``agent_loop`` that ties them together. Everything runs
offline on an embedded model unless ANTHROPIC_API_KEY is set. See ``compactor.py`` for the
whole flow in one diagram.
"""

from .anatomy import composition
from .client import banner, default_model, make_client
from .compactor import STAGES, Compactor
from .errors import (
    CompactError,
    HistoryError,
    ModelResponseError,
    StorageError,
    SummaryError,
    ToolError,
)
from .events import StageEvent
from .history import compacted_message, parse_compacted
from .limits import Limits
from .loop import SYSTEM, Trace, Turn, TurnLimitError, agent_loop
from .messages import estimate_size, validate_history
from .micro import PLACEHOLDER
from .storage import read_transcript
from .tools import TOOLS, Workspace

__all__ = [
    "PLACEHOLDER", "STAGES", "SYSTEM", "TOOLS", "CompactError", "Compactor", "HistoryError",
    "Limits", "ModelResponseError", "StageEvent", "StorageError", "SummaryError", "ToolError",
    "Trace", "Turn",
    "TurnLimitError", "Workspace", "agent_loop", "banner", "compacted_message", "composition",
    "default_model", "estimate_size", "make_client", "parse_compacted", "read_transcript",
    "validate_history",
]
