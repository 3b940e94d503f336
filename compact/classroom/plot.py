"""Pictures of a run: context size per turn with the stages that fired, and what fills it.

Made for a classroom projector: big fonts, the Okabe–Ito colour-blind-safe palette, one
marker shape per stage, and a title that says what happened. Figures are built with the
object API (no pyplot state), so a notebook shows one only when it is the cell's value.
"""

from __future__ import annotations

from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..loop import Trace
from ..pipeline import Limits
from ..pipeline.anatomy import KINDS
from ..pipeline.formats import is_placeholder

STYLE = {   # stage → (colour, marker, legend label)
    "tool_result_budget": ("#E69F00", "s", "tool_result_budget (persisted to disk)"),
    "snip_compact": ("#56B4E9", "D", "snip_compact (middle snipped)"),
    "micro_compact": ("#009E73", "o", "micro_compact (old results → placeholder)"),
    "compact_history": ("#D55E00", "*", "compact_history (summary)"),
    "reactive_compact": ("#CC79A7", "X", "reactive_compact (after refusal)"),
    "compact_tool": ("#0072B2", "P", "compact tool (model asked)"),
}
KIND_COLOURS = dict(zip(KINDS, ["#0072B2", "#56B4E9", "#999999", "#E69F00", "#F0E442",
                                "#009E73", "#D55E00", "#CC79A7"], strict=True))
RC = {"font.size": 14, "axes.titlesize": 16, "axes.labelsize": 14, "legend.fontsize": 11,
      "xtick.labelsize": 12, "ytick.labelsize": 12, "axes.spines.top": False}
CHARS_PER_TOKEN = 4


def _parts(run: Any) -> tuple[Trace, Limits, Any]:
    if isinstance(run, Trace):
        return run, Limits(), None
    return run.trace, getattr(run, "limits", Limits()), run


def headline(run: Any) -> str:
    """One sentence on what happened, for the plot's title."""
    trace, _, result = _parts(run)
    if result is not None and getattr(result, "error", None):
        turn = len(trace.turns) + 1
        return f"No compaction: refused at turn {turn} — {result.error}"
    fired = [(t.turn, e) for t in trace.turns for e in t.events if e.fired]
    for stage in ("compact_history", "reactive_compact", "tool_result_budget", "micro_compact",
                  "snip_compact"):
        hits = [(turn, e) for turn, e in fired if e.stage == stage]
        if not hits:
            continue
        turn, event = hits[-1]
        if stage == "micro_compact":
            last = trace.turns[-1].sent
            count = sum(1 for m in last if isinstance(m.get("content"), list)
                        for b in m["content"] if b.get("type") == "tool_result"
                        and is_placeholder(str(b.get("content", ""))))
            return f"micro_compact: {count} old results are placeholders by turn {turn}"
        if stage == "tool_result_budget":
            return (f"tool_result_budget persisted {len(event.files_written)} result(s) at turn "
                    f"{turn} ({event.size_before:,} → {event.size_after:,} chars)")
        if stage == "snip_compact":
            return f"snip_compact: {event.detail} at turn {turn}"
        return (f"{stage} at turn {turn}: {event.size_before:,} → {event.size_after:,} chars, "
                "transcript saved")
    return "No compaction needed: the context stayed under the limit"


def plot_context(run: Any, ax: Axes | None = None, title: str | None = None) -> Axes:
    trace, limits, result = _parts(run)
    with matplotlib.rc_context(RC):
        if ax is None:
            ax = Figure(figsize=(11, 6), layout="constrained").subplots()
        turns = [t.turn for t in trace.turns]
        ax.plot(turns, [t.size_before for t in trace.turns], linestyle="--", color="#999999",
                marker=".", label="before the pipeline", gid="size_before")
        ax.plot(turns, [t.size_sent for t in trace.turns], color="#0072B2", linewidth=2.5,
                marker=".", label="sent to the model", gid="size_sent")
        ax.axhline(limits.context_limit, color="#D55E00", linestyle=":", linewidth=2,
                   label=f"context_limit = {limits.context_limit:,} chars", gid="limit")
        for stage, (colour, marker, label) in STYLE.items():
            points = [(t.turn, t.size_sent) for t in trace.turns for e in t.events
                      if e.fired and e.stage == stage]
            if stage == "compact_tool":
                points = [(t.turn, t.size_sent) for t in trace.turns if stage in t.stages]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.scatter(xs, ys, s=220, color=colour, marker=marker, edgecolor="black",
                           zorder=5, label=label, gid=f"stage:{stage}")
        last_turn = max(turns, default=0)
        if result is not None and getattr(result, "refused_size", None):
            last_turn += 1
            if turns:
                ax.plot([turns[-1], last_turn], [trace.turns[-1].size_sent, result.refused_size],
                        color="black", linestyle=":", linewidth=1.5)
            ax.scatter([last_turn], [result.refused_size], s=260, marker="X", color="black",
                       zorder=6, label="refused: prompt is too long", gid="refused")
        ax.set_xlabel("turn (model call)")
        ax.set_ylabel("context size (chars of JSON)")
        ax.yaxis.set_major_formatter(lambda v, _: f"{v:,.0f}")
        ax.secondary_yaxis("right", functions=(lambda c: c / CHARS_PER_TOKEN,
                                               lambda t: t * CHARS_PER_TOKEN)
                           ).set_ylabel("≈ tokens (chars ÷ 4)")
        ax.set_xticks(range(1, last_turn + 1))
        ax.set_ylim(bottom=0)
        ax.legend(loc="upper left", framealpha=0.9)
        ax.set_title(title or headline(run), loc="left")
    return ax


def plot_composition(run: Any, ax: Axes | None = None) -> Axes:
    trace, _, _ = _parts(run)
    with matplotlib.rc_context(RC):
        if ax is None:
            ax = Figure(figsize=(11, 5), layout="constrained").subplots()
        turns = [t.turn for t in trace.turns]
        bottom = [0] * len(turns)
        for kind in KINDS:
            values = [t.composition.get(kind, 0) for t in trace.turns]
            if any(values):
                ax.bar(turns, values, bottom=bottom, color=KIND_COLOURS[kind], label=kind,
                       edgecolor="white", gid=f"kind:{kind}")
                bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        ax.set_xlabel("turn (model call)")
        ax.set_ylabel("chars in the context")
        ax.yaxis.set_major_formatter(lambda v, _: f"{v:,.0f}")
        ax.set_xticks(turns)
        ax.legend(loc="upper left", framealpha=0.9, ncols=2)
        ax.set_title("What the context is made of, per turn", loc="left")
    return ax


def plot_run(run: Any) -> Figure:
    """Both views, stacked: the picture the notebooks and the lab show."""
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(11, 10), layout="constrained")
        top, bottom = fig.subplots(2, 1, height_ratios=[3, 2])
        plot_context(run, ax=top)
        plot_composition(run, ax=bottom)
    return fig


def stage_markers(ax: Axes) -> dict[str, int]:
    """How many markers of each stage an Axes shows (for tests and checks)."""
    return {c.get_gid().split(":", 1)[1]: len(c.get_offsets()) for c in ax.collections
            if (c.get_gid() or "").startswith("stage:")}
