"""What every stage is handed besides the messages: one small, plain object.

Every stage has one shape, the package's and yours alike: ``stage(messages, ctx) -> list``,
the new list of messages (the list it was given stays as it was).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .limits import Limits

Summarizer = Callable[[list], str]        # the messages to summarise -> the summary


@dataclass(frozen=True)
class Context:
    workdir: Path = Path(".")             # where transcripts and persisted results go
    limits: Limits = Limits()             # the lesson's numbers
    active_request: str = ""              # the user's request, captured when it was submitted
    summarize: Summarizer | None = None   # stage 4's and the reactive path's model call
