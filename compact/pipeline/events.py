"""What a stage did: it reports a ``Change``; the Compactor records a ``StageEvent`` with sizes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Change:
    detail: str = ""                         # one sentence, e.g. "persisted 1 result(s) ..."
    files_written: tuple[str, ...] = ()      # paths relative to the workdir
    placeholders: int = 0                    # results replaced by a placeholder or a preview
    extra: dict = field(default_factory=dict)
    fired: bool = True                       # False: the stage found nothing to do


def nothing(detail: str = "", files_written: tuple[str, ...] = ()) -> Change:   # found nothing to do
    return Change(detail, files_written, fired=False)


@dataclass(frozen=True)
class StageEvent:
    stage: str                      # tool_result_budget | snip_compact | micro_compact | ...
    fired: bool
    messages_before: int
    messages_after: int
    size_before: int                # estimate_size before the stage, and after
    size_after: int
    files_written: tuple[str, ...] = ()
    placeholders: int = 0
    detail: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    def __str__(self) -> str:
        if not self.fired:
            return f"{self.stage}: nothing to do"
        return (f"{self.stage}: {self.detail} — {self.messages_before}→{self.messages_after} "
                f"messages, {self.size_before:,}→{self.size_after:,} chars")
