"""The embedded offline model: the Messages API, answered deterministically on this machine."""

from .api import DEFAULT_WINDOW_TOKENS, SERVE_WINDOW_TOKENS, OfflineModel, count_tokens
from .identity import HEADER, MODEL_NAME

__all__ = ["DEFAULT_WINDOW_TOKENS", "HEADER", "MODEL_NAME", "SERVE_WINDOW_TOKENS", "OfflineModel",
           "count_tokens"]
