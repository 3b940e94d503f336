"""A stage acting on a history, as a picture: ``picture(before, after, event)`` is the stage
picture of ``stage_picture.py``; ``run_picture(run, stage)`` draws it for the first turn of a
real run where the stage fired (``ExperimentResult.picture``)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from .stage_picture import plot_stage as picture


def run_picture(run: Any, stage: str) -> Figure:
    """``picture`` of the first turn of ``run`` where ``stage`` fired."""
    for turn in run.trace.turns:
        for event in turn.events:
            if event.stage == stage and event.fired:
                return picture(turn.before, turn.sent, event)
    raise ValueError(f"{stage} did not fire in this run (it fired: {sorted(set(run.fired))})")


__all__ = ["picture", "run_picture"]
