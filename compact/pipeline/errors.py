"""The package's own error types: each names what went wrong and what to do.

API errors from the model (``anthropic.APIStatusError`` such as a 529 overload, and
``anthropic.APIConnectionError`` such as a timeout) are not wrapped: they reach the caller
unchanged, as the lesson's loop re-raises them; ``agent_loop`` only adds a note (Python
3.11+) saying what state the history is in and what to do. A reply the SDK accepted but
that is not a Messages-API message becomes ``ModelResponseError``.
"""

from __future__ import annotations


class CompactError(Exception):
    """Base class: every error this package raises on purpose."""


class HistoryError(CompactError, ValueError):
    """The message list is not a valid Messages-API history; it was left unchanged."""


class StorageError(CompactError, OSError):
    """A transcript or persisted result could not be written; the history was left unchanged."""


class SummaryError(CompactError, RuntimeError):
    """The summariser failed or returned nothing; the history was left unchanged."""


class ToolError(CompactError):
    """A tool refused its input (e.g. a path outside the workspace). Reported to the model."""


class ModelResponseError(CompactError, RuntimeError):
    """The model API answered with a body that is not a message (a proxy's HTML page, wrong JSON).

    Why a package error: the SDK does not validate response bodies, so without this check
    the loop would crash halfway through a turn. The history holds the state from just
    before the call.
    """
