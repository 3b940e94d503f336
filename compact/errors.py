"""The agent's errors (the pipeline's own are in ``pipeline/errors.py``).

API errors from the model (``anthropic.APIStatusError`` such as a 529 overload,
``anthropic.APIConnectionError`` such as a timeout) are not wrapped: they reach the caller
unchanged, as the lesson's loop re-raises them; ``agent_loop`` only adds a note (Python 3.11+)
saying what state the history is in and what to do.
"""

from __future__ import annotations

from .pipeline.errors import CompactError


class ToolError(CompactError):
    """A tool refused its input (e.g. a path outside the workspace). Reported to the model."""


class ModelResponseError(CompactError, RuntimeError):
    """The model API answered with a body that is not a message (a proxy's HTML page, wrong JSON).

    Why a package error: the SDK does not validate response bodies, so without this check
    the loop would crash halfway through a turn. The history holds the state from just
    before the call.
    """


class TurnLimitError(CompactError):
    """The agent did not finish within max_turns; the history is intact and can be resumed."""

    def __init__(self, message: str, trace: object = None) -> None:
        super().__init__(message)
        self.trace = trace
