"""The pipeline's errors: each says what went wrong, what to do, and that the history was left
unchanged (a stage that fails never leaves half its work in the caller's list)."""


class CompactError(Exception):
    """Base class: every error this package raises on purpose."""


class HistoryError(CompactError, ValueError):
    """The message list is not a valid Messages-API history; it was left unchanged."""


class StorageError(CompactError, OSError):
    """A transcript or persisted result could not be written; the history was left unchanged."""


class SummaryError(CompactError, RuntimeError):
    """The summariser failed or returned nothing; the history was left unchanged."""
