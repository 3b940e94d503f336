"""compact — how a coding agent keeps its context window from overflowing.

The lesson's four-stage pipeline, run before every model call (cheapest first)::

    tool_result_budget → snip_compact → micro_compact → compact_history (only if still too big)
    (disk + preview)     (head + tail)   (placeholders)  (transcript + one summary message)

plus ``reactive_compact`` when the API still answers "prompt is too long", the
model-invoked ``compact`` tool, and ``agent_loop`` that ties them together. Everything runs
offline on an embedded model unless ANTHROPIC_API_KEY is set.

The layers, bottom up: ``pipeline/`` (the compactor; start at ``pipeline/compactor.py``),
``offline/`` (the embedded model), the agent (``loop.py``, ``model_call.py``, ``tools.py``,
``client.py``), then ``classroom/`` (experiments, plots, the lab) and ``study/``
(the long session and the strategy comparison).
"""

from .client import banner, default_model, make_client
from .loop import SYSTEM, Trace, Turn, TurnLimitError, agent_loop
from .pipeline import STAGES, Compactor, Limits, StageEvent
from .pipeline.anatomy import composition
from .pipeline.errors import (
    CompactError,
    HistoryError,
    ModelResponseError,
    StorageError,
    SummaryError,
    ToolError,
)
from .pipeline.formats import PLACEHOLDER, compacted_message, parse_compacted
from .pipeline.messages import estimate_size, validate_history
from .pipeline.storage import read_transcript
from .tools import TOOLS, Workspace

__all__ = [
    "PLACEHOLDER", "STAGES", "SYSTEM", "TOOLS", "CompactError", "Compactor", "HistoryError",
    "Limits", "ModelResponseError", "StageEvent", "StorageError", "SummaryError", "ToolError",
    "Trace", "Turn",
    "TurnLimitError", "Workspace", "agent_loop", "banner", "compacted_message", "composition",
    "default_model", "estimate_size", "make_client", "parse_compacted", "read_transcript",
    "validate_history",
]
