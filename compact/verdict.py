"""What a bash command may do to files, from harmless to never run: the judgement's answer."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Level(IntEnum):
    READ_ONLY = 0       # every program is a known reader; nothing is redirected into a file
    WRITES = 1          # may create or change files, as far as it can be judged nothing is lost
    UNKNOWN = 2         # cannot tell what it runs (a variable command, an unreadable script)
    DESTRUCTIVE = 3     # deletes, moves or overwrites something
    DENIED = 4          # never run, even if confirmed (rm -rf /, sudo, mkfs, a fork bomb)


@dataclass(frozen=True)
class Verdict:
    level: Level
    reason: str

    @property
    def asks(self) -> bool:
        """Whether the user must confirm it (wherever it runs)."""
        return self.level in (Level.UNKNOWN, Level.DESTRUCTIVE)


HARMLESS = Verdict(Level.READ_ONLY, "reads only")


def worst(verdicts: list[Verdict]) -> Verdict:
    """The most serious of ``verdicts`` (the first of equals), or HARMLESS for none."""
    return max(verdicts, key=lambda v: v.level, default=HARMLESS)
