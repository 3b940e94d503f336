"""The package's own error types: each names what went wrong and what to do.

API errors from the model (``anthropic.APIStatusError`` and friends) are not wrapped:
they reach the caller unchanged, as the lesson's loop re-raises them.
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
