"""compact — how a coding agent keeps its context window from overflowing: the lesson's
pipeline (start at ``pipeline/compactor.py``) and ``agent_loop``, offline on an embedded model
unless ANTHROPIC_API_KEY is set. Above the pipeline: ``extensions/``, ``offline/``, the agent
(``loop.py``), ``classroom/`` and ``study/``."""

from .client import banner, default_model, make_client, summarizer_for
from .fileio import ToolError
from .loop import SYSTEM, LoopOptions, TurnLimitError, agent_loop
from .model_call import ModelResponseError
from .pipeline import STAGES, Compactor, Limits, StageEvent
from .pipeline.context import CompactError, HistoryError, StorageError, SummaryError
from .pipeline.formats import PLACEHOLDER, compacted_message, parse_compacted
from .pipeline.messages import estimate_size, validate_history
from .pipeline.storage import read_transcript
from .tools import TOOLS, Workspace
from .trace import Trace, Turn, composition

__all__ = [
    "PLACEHOLDER", "STAGES", "SYSTEM", "TOOLS", "CompactError", "Compactor", "HistoryError",
    "Limits", "LoopOptions", "ModelResponseError", "StageEvent", "StorageError", "SummaryError",
    "ToolError", "Trace", "Turn", "TurnLimitError", "Workspace", "agent_loop", "banner",
    "compacted_message", "composition", "default_model", "estimate_size", "make_client",
    "parse_compacted", "read_transcript", "summarizer_for", "validate_history",
]
