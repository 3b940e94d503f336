"""What a stage did, as a small record: the trace, the plots and the lab all read these."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StageEvent:
    stage: str                      # tool_result_budget | snip_compact | micro_compact | ...
    fired: bool                     # False when the stage found nothing to do
    messages_before: int
    messages_after: int
    size_before: int                # estimate_size before the stage
    size_after: int
    files_written: tuple[str, ...] = ()   # paths relative to the workdir
    placeholders: int = 0           # results replaced by a placeholder or a preview
    detail: str = ""                # one human sentence, e.g. "persisted 1 result (260,120 chars)"
    extra: dict = field(default_factory=dict, compare=False)

    @classmethod
    def nothing(cls, stage: str, messages: list, size: int, detail: str = "",
                files_written: tuple[str, ...] = ()) -> StageEvent:
        """The record of a stage that looked and found nothing to do (``files_written``: a
        transcript it saved before finding that out)."""
        return cls(stage, False, len(messages), len(messages), size, size,
                   files_written=files_written, detail=detail)

    def __str__(self) -> str:
        if not self.fired:
            return f"{self.stage}: nothing to do"
        return (f"{self.stage}: {self.detail} — {self.messages_before}→{self.messages_after} "
                f"messages, {self.size_before:,}→{self.size_after:,} chars")
