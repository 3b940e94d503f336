"""The embedded offline model: the Messages API, answered deterministically on this machine."""

from .api import (
    AGENT_MAX_TOKENS,
    DEFAULT_WINDOW_TOKENS,
    MAX_OUTPUT_TOKENS,
    SERVE_WINDOW_TOKENS,
    OfflineModel,
    count_tokens,
)
from .identity import HEADER, IN_PROCESS_URL, MODEL_NAME

__all__ = ["AGENT_MAX_TOKENS", "DEFAULT_WINDOW_TOKENS", "HEADER", "IN_PROCESS_URL",
           "MAX_OUTPUT_TOKENS", "MODEL_NAME", "SERVE_WINDOW_TOKENS", "OfflineModel", "count_tokens"]
