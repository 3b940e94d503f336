"""The embedded offline model: the Messages API, answered deterministically on this machine."""

from .api import (
    AGENT_MAX_TOKENS,
    DEFAULT_WINDOW_TOKENS,
    MAX_OUTPUT_TOKENS,
    MODEL_NAME,
    OfflineModel,
    count_tokens,
)

__all__ = ["AGENT_MAX_TOKENS", "DEFAULT_WINDOW_TOKENS", "MAX_OUTPUT_TOKENS", "MODEL_NAME",
           "OfflineModel", "count_tokens"]
