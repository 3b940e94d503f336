"""The strategy comparison's picture: cumulative input tokens per user turn."""

from __future__ import annotations

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..classroom.plot import RC

STRATEGY_COLOURS = ["#000000", "#0072B2", "#E69F00", "#CC79A7", "#009E73", "#D55E00", "#56B4E9"]


def plot_strategies(reports: list, ax: Axes | None = None) -> Axes:
    """Cumulative input tokens per user turn, one line per strategy, on the same session."""
    with matplotlib.rc_context(RC):
        if ax is None:
            ax = Figure(figsize=(11, 6), layout="constrained").subplots()
        for colour, report in zip(STRATEGY_COLOURS, reports, strict=False):
            turns = range(1, len(report.cumulative_tokens) + 1)
            ax.plot(turns, report.cumulative_tokens, color=colour, linewidth=2.5,
                    label=f"{report.strategy}: {report.input_tokens:,}", gid=f"strategy:{report.strategy}")
        ax.set_xlabel("user turn")
        ax.set_ylabel("cumulative input tokens sent")
        ax.yaxis.set_major_formatter(lambda v, _: f"{v / 1e6:.1f} M")
        ax.legend(loc="upper left", framealpha=0.9, title="strategy: total tokens")
        base = next((r.input_tokens for r in reports if r.strategy == "none"), None)
        best = min(reports, key=lambda r: r.input_tokens)
        if base:
            ax.set_title(f"{best.strategy} sends {1 - best.input_tokens / base:.0%} fewer input tokens "
                         "than no compaction", loc="left")
    return ax
