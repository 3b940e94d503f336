"""The embedded offline model: the Messages API, answered deterministically on this machine."""

from .api import DEFAULT_WINDOW_TOKENS, MODEL_NAME, OfflineModel, count_tokens

__all__ = ["DEFAULT_WINDOW_TOKENS", "MODEL_NAME", "OfflineModel", "count_tokens"]
