"""The embedded offline model: the Messages API, answered deterministically on this machine."""

from .api import (
    AGENT_MAX_TOKENS,
    DEFAULT_WINDOW_TOKENS,
    HEADER,
    IN_PROCESS_URL,
    MAX_OUTPUT_TOKENS,
    MODEL_NAME,
    SERVE_WINDOW_TOKENS,
    count_tokens,
)
from .model import OfflineModel

__all__ = ["AGENT_MAX_TOKENS", "DEFAULT_WINDOW_TOKENS", "HEADER", "IN_PROCESS_URL",
           "MAX_OUTPUT_TOKENS", "MODEL_NAME", "SERVE_WINDOW_TOKENS", "OfflineModel", "count_tokens"]
