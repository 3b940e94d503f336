"""A stage acting on a history, as a picture: the messages before and after, as strips.

(A first, plain drawing; the classroom's stage picture replaces its body.)
"""

from __future__ import annotations

from typing import Any

import matplotlib
from matplotlib.figure import Figure

from ..anatomy import composition
from ..pipeline.events import StageEvent
from .plot import RC


def picture(before: list, after: list, event: StageEvent) -> Figure:
    """The history ``before`` and ``after`` one stage (``event``) ran, each as a strip of kinds."""
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(11, 3.2), layout="constrained")
        ax = figure.subplots()
        for row, messages in enumerate([before, after]):
            parts = composition(messages)
            left = 0
            for kind, chars in parts.items():
                if chars:
                    ax.barh(1 - row, chars, left=left, height=0.6, label=kind if row == 0 else None)
                    left += chars
            ax.text(left, 1 - row, f"  {left:,} chars", va="center")
        ax.set_yticks([1, 0], ["before", "after"])
        ax.set_title(f"{event.stage}: {event.size_before:,} → {event.size_after:,} chars")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=4, frameon=False)
    return figure


def run_picture(run: Any, stage: str) -> Figure:
    """``picture`` of the first turn of ``run`` where ``stage`` fired."""
    for turn in run.trace.turns:
        for event in turn.events:
            if event.stage == stage and event.fired:
                return picture(turn.before, turn.sent, event)
    raise ValueError(f"{stage} did not fire in this run (it fired: {sorted(set(run.fired))})")
