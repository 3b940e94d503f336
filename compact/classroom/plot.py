"""Pictures of a run: context size per turn with the stages that fired, and what fills it.

Each stage has a panel around its own trigger: ``plot_context`` (chars against the 50,000
``context_limit``: compact_history), ``plot_tokens`` (the model's tokens against its window:
the refusal, reactive_compact), ``plot_batch`` (the newest batch against the 200,000 budget:
tool_result_budget), ``plot_messages`` (the message count against ``max_messages``:
snip_compact); ``mark_rereads`` flags what micro_compact's placeholders cost.
Sizes are measured once per model call, so they are drawn as points and steps, never as
slopes. Made for a classroom projector: big fonts, the Okabe–Ito colour-blind-safe palette, one
marker shape per stage, and a title that says what happened. Figures are built with the
object API (no pyplot state), so a notebook shows one only when it is the cell's value.

Every text a plot shows is in ``LABELS`` (one place, ready for a translated table). The figure
a plot draws into gets ``figure_fit.FittingLayout``: when it is drawn, its titles are wrapped
to the width they have and each legend moves to where it covers no data, at any figure size.
"""

from __future__ import annotations

from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..anatomy import KINDS
from ..offline.markers import read_persisted, read_placeholder
from ..pipeline import Limits
from ..pipeline.messages import block_type, blocks_of, is_tool_result_message, joined_text
from ..trace import Trace
from .figure_fit import FittingLayout, fitted_legend, fitting
from .show import call_text

LABELS = {
    "stage": {
        "tool_result_budget": "tool_result_budget (persisted to disk)",
        "snip_compact": "snip_compact (middle snipped)",
        "micro_compact": "micro_compact (old results → placeholder)",
        "compact_history": "compact_history (summary)",
        "reactive_compact": "reactive_compact (after refusal)",
        "compact_tool": "compact tool (model asked)",
    },
    "kind": {"user text": "user text", "assistant text": "assistant text", "tool calls": "tool calls",
             "tool results": "tool results", "persisted previews": "persisted previews",
             "placeholders": "placeholders", "summaries": "summaries", "markers": "markers"},
    "turn": "turn (model call)",
    "chars": "chars", "messages": "messages",
    "before": "{what} before the pipeline",
    "sent": "{what} sent to the model",
    "cut": "cut by the pipeline",
    "context_limit": "context_limit = {limit:,} chars",
    "refused": "refused: prompt is too long",
    "context_axis": "context size (chars of JSON)",
    "tokens_axis": "≈ tokens (chars ÷ 4)",
    "rereads": "turn that re-runs an earlier call",
    "reread_note": {1: "1 re-read", "many": "{count} re-reads"},
    "message_tokens": "the messages alone (chars ÷ 4)",
    "tokens_sent": "tokens the model counted (+ system prompt and tools)",
    "refused_tokens": "refused: {tokens:,} tokens",
    "window": "the model's window = {window:,} tokens",
    "tokens_per_request": "tokens per request",
    "tokens_title": "What the model measures: tokens, against its window",
    "batch_arrived": "newest batch as it arrived",
    "batch_sent": "as sent (persisted → path + preview)",
    "budget": "tool_result_budget = {budget:,} chars",
    "persist_threshold": "persist_threshold = {threshold:,} (only longer results go to disk)",
    "batch_axis": "chars of tool results\nin the newest batch",
    "batch_title": "tool_result_budget's trigger: the newest batch against the budget",
    "max_messages": "max_messages = {limit}",
    "messages_axis": "messages in the list\n(a snip marker is one)",
    "composition_axis": "chars in the context",
    "composition_title": "What the context is made of, per turn",
    "headline": {
        "refused": "No compaction: refused at turn {turn} — {error}",
        "micro_compact": "micro_compact: {count} old results are placeholders by turn {turn}",
        "tool_result_budget": ("tool_result_budget persisted {files} result(s) at turn {turn} "
                               "({before:,} → {after:,} chars)"),
        "snip_compact": "snip_compact at turn(s) {turns} (last: {before} → {after} messages)",
        "summary": "{stage} at turn {turn}: {before:,} → {after:,} chars, transcript saved",
        "not_fired": "{stage}: did not fire in this run",
        "quiet": "No compaction needed: the context stayed under the limit",
    },
}
STYLE = {   # stage → (colour, marker, legend label); the plots read the label from LABELS
    name: (colour, marker, LABELS["stage"][name]) for name, colour, marker in (
        ("tool_result_budget", "#E69F00", "s"), ("snip_compact", "#56B4E9", "D"),
        ("micro_compact", "#009E73", "o"), ("compact_history", "#D55E00", "*"),
        ("reactive_compact", "#CC79A7", "X"), ("compact_tool", "#0072B2", "P"))}
KIND_COLOURS = dict(zip(KINDS, ["#0072B2", "#56B4E9", "#999999", "#E69F00", "#F0E442",
                                "#009E73", "#D55E00", "#CC79A7"], strict=True))
RC = {"font.size": 14, "axes.titlesize": 16, "axes.labelsize": 14, "legend.fontsize": 11,
      "xtick.labelsize": 12, "ytick.labelsize": 12, "axes.spines.top": False}
CHARS_PER_TOKEN = 4
HEADROOM = 0.08        # of the y range, below 0 and above the top: no marker cut by the frame


def _parts(run: Any) -> tuple[Trace, Limits, Any]:
    if isinstance(run, Trace):
        return run, Limits(), None
    return run.trace, getattr(run, "limits", Limits()), run


def rereads_by_turn(run: Any) -> dict[int, list[str]]:
    """Turn → its tool calls that repeat an earlier call exactly (what ``Trace.rereads`` counts)."""
    trace, _, _ = _parts(run)
    seen, found = set(), {}
    for turn in trace.turns:
        for name, tool_input in turn.tool_calls:
            key = (name, repr(sorted(tool_input.items())))
            if key in seen:
                found.setdefault(turn.turn, []).append(call_text(name, tool_input))
            seen.add(key)
    return found


def _describe(stage: str, hits: list, trace: Trace) -> str:
    turn, event = hits[-1]
    text = LABELS["headline"]
    if stage == "micro_compact":
        last = trace.turns[-1].sent
        count = sum(1 for m in last if isinstance(m.get("content"), list)
                    for b in m["content"] if b.get("type") == "tool_result"
                    and read_placeholder(str(b.get("content", ""))) is not None)
        return text["micro_compact"].format(count=count, turn=turn)
    if stage == "tool_result_budget":
        return text["tool_result_budget"].format(files=len(event.files_written), turn=turn,
                                                 before=event.size_before, after=event.size_after)
    if stage == "snip_compact":
        turns = sorted({t for t, _ in hits})
        return text["snip_compact"].format(turns=", ".join(map(str, turns)),
                                           before=event.messages_before, after=event.messages_after)
    return text["summary"].format(stage=stage, turn=turn, before=event.size_before,
                                  after=event.size_after)


def headline(run: Any, stage: str | None = None) -> str:
    """One sentence on what happened, for the plot's title (about ``stage``, if given)."""
    trace, _, result = _parts(run)
    if stage is None and result is not None and getattr(result, "error", None):
        return LABELS["headline"]["refused"].format(turn=len(trace.turns) + 1, error=result.error)
    fired = [(t.turn, e) for t in trace.turns for e in t.events if e.fired]
    for name in ((stage,) if stage else ("compact_history", "reactive_compact",
                                          "tool_result_budget", "micro_compact", "snip_compact")):
        hits = [(turn, e) for turn, e in fired if e.stage == name]
        if hits:
            return _describe(name, hits, trace)
    if stage:
        return LABELS["headline"]["not_fired"].format(stage=stage)
    return LABELS["headline"]["quiet"]


def _turn_axis(ax: Axes, last_turn: int) -> None:
    """Turns 1..last on x; y from 0 with HEADROOM below and above, so a marker at 0 or at the
    top is drawn whole (the frame would cut it)."""
    last_turn = max(last_turn, 1)          # an empty run still gets a readable axis
    ax.set_xlabel(LABELS["turn"])
    if last_turn <= 20:
        ax.set_xticks(range(1, last_turn + 1))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0.5, last_turn + 0.5)
    ax.autoscale(axis="y")
    low, high = ax.get_ylim()
    top = max(high, 1.0)
    ax.set_ylim(-HEADROOM * top, max(high, 0) + HEADROOM * top)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:,.0f}")


def _finish(ax: Axes, title: str, legend: dict | None = None) -> None:
    """Classroom fonts on every text (also on an Axes made outside ``RC``), the legend where it
    covers no data, the title, and the figure's fitting layout."""
    ax.set_title(title, loc="left", fontsize=RC["axes.titlesize"])
    for axes in (ax, *ax.child_axes):
        axes.xaxis.label.set_fontsize(RC["axes.labelsize"])
        axes.yaxis.label.set_fontsize(RC["axes.labelsize"])
        axes.tick_params(axis="x", labelsize=RC["xtick.labelsize"])
        axes.tick_params(axis="y", labelsize=RC["ytick.labelsize"])
    fitted_legend(ax, framealpha=0.9, fontsize=RC["legend.fontsize"], **(legend or {}))
    fitting(ax.figure.figure)          # the root Figure (an Axes in a subfigure too)


def _before_and_sent(ax: Axes, turns: list[int], before: list[int], sent: list[int],
                     what: str) -> None:
    """Sizes are measured once per model call, so they are drawn as points and steps, never as
    a slope: hollow grey = before the pipeline, blue = sent, a red bar = what the pipeline cut."""
    ax.plot(turns, before, linestyle="None", marker="o", markersize=9, markerfacecolor="white",
            color="#777777", label=LABELS["before"].format(what=what), gid="size_before")
    ax.plot(turns, sent, drawstyle="steps-post", color="#0072B2", linewidth=2, marker="o",
            markersize=7, label=LABELS["sent"].format(what=what), gid="size_sent")
    cuts = [(t, s, b) for t, b, s in zip(turns, before, sent, strict=True) if b > s]
    if cuts:
        xs, lows, highs = zip(*cuts, strict=True)
        ax.vlines(xs, lows, highs, color="#D55E00", linewidth=2.5, alpha=0.6,
                  label=LABELS["cut"], gid="cut")


def new_axes(height: float) -> Axes:
    """One projector-wide Axes on a figure of its own (no pyplot state)."""
    return Figure(figsize=(11, height), layout=FittingLayout()).subplots()


def _stage_markers(ax: Axes, trace: Trace) -> None:
    for name, (colour, marker, _) in STYLE.items():
        label = LABELS["stage"][name]
        points = [(t.turn, t.size_sent) for t in trace.turns for e in t.events
                  if e.fired and e.stage == name]
        if name == "compact_tool":
            points = [(t.turn, t.size_sent) for t in trace.turns if name in t.stages]
        if points:
            xs, ys = zip(*points, strict=True)
            ax.scatter(xs, ys, s=220, color=colour, marker=marker, edgecolor="black",
                       zorder=5, label=label, gid=f"stage:{name}")


def _refusal(ax: Axes, last: tuple[int, float] | None, at: tuple[int, float], label: str) -> None:
    """The refused request: a dotted step from the ``last`` accepted one to a black ✕ ``at``."""
    if last is not None:
        ax.plot([last[0], at[0]], [last[1], at[1]], drawstyle="steps-post", color="black",
                linestyle=":", linewidth=1.5)
    ax.scatter([at[0]], [at[1]], s=260, marker="X", color="black", zorder=6, label=label,
               gid="refused")


def plot_context(run: Any, ax: Axes | None = None, title: str | None = None, *,
                 stage: str | None = None, mark_rereads: bool = False) -> Axes:
    """Context size per turn (chars of JSON) against ``context_limit``, with a marker per
    stage that fired; ``mark_rereads`` flags turns that re-run an earlier tool call."""
    trace, limits, result = _parts(run)
    with matplotlib.rc_context(RC):
        ax = ax if ax is not None else new_axes(6)
        turns = [t.turn for t in trace.turns]
        _before_and_sent(ax, turns, [t.size_before for t in trace.turns],
                         [t.size_sent for t in trace.turns], LABELS["chars"])
        ax.axhline(limits.context_limit, color="#D55E00", linestyle=":", linewidth=2,
                   label=LABELS["context_limit"].format(limit=limits.context_limit), gid="limit")
        _stage_markers(ax, trace)
        if mark_rereads:
            _mark_rereads(ax, trace)
        last_turn = max(turns, default=0)
        if result is not None and getattr(result, "refused_size", None):
            last_turn += 1
            last = (trace.turns[-1].turn, trace.turns[-1].size_sent) if trace.turns else None
            _refusal(ax, last, (last_turn, result.refused_size), LABELS["refused"])
        ax.set_ylabel(LABELS["context_axis"])
        ax.secondary_yaxis("right", functions=(lambda c: c / CHARS_PER_TOKEN,
                                               lambda t: t * CHARS_PER_TOKEN)
                           ).set_ylabel(LABELS["tokens_axis"])
        _turn_axis(ax, last_turn)
        _finish(ax, title or headline(run, stage))
    return ax


def _mark_rereads(ax: Axes, trace: Trace) -> None:
    found = rereads_by_turn(trace)
    sizes = {t.turn: t.size_sent for t in trace.turns}
    if not found:
        return
    xs = sorted(found)
    ax.scatter(xs, [sizes[x] for x in xs], s=420, marker="o", facecolor="none",
               edgecolor="#CC79A7", linewidth=3, zorder=7, label=LABELS["rereads"], gid="rereads")
    for x in xs:
        note = LABELS["reread_note"]
        ax.annotate(note[1] if len(found[x]) == 1 else note["many"].format(count=len(found[x])),
                    (x, sizes[x]), xytext=(0, 18), textcoords="offset points", ha="center",
                    color="#CC79A7", fontweight="bold")


def plot_tokens(run: Any, ax: Axes | None = None, title: str | None = None,
                window_tokens: int | None = None) -> Axes:
    """What the model measures: tokens per request (system prompt and tools included) against
    its window; the refused request is the ✕ (its count as the API's message states it)."""
    trace, _, result = _parts(run)
    refused = getattr(result, "refused_tokens", None) if result is not None else None
    window = window_tokens or (refused[1] if refused else None)
    with matplotlib.rc_context(RC):
        ax = ax if ax is not None else new_axes(5)
        turns = [t.turn for t in trace.turns]
        ax.plot(turns, [t.size_sent / CHARS_PER_TOKEN for t in trace.turns], linestyle="None",
                marker="s", markersize=8, markerfacecolor="white", color="#777777",
                label=LABELS["message_tokens"], gid="message_tokens")
        ax.plot(turns, [t.input_tokens for t in trace.turns], drawstyle="steps-post",
                color="#0072B2", linewidth=2, marker="o", markersize=7,
                label=LABELS["tokens_sent"], gid="tokens_sent")
        last_turn = max(turns, default=0)
        if refused:
            last_turn += 1
            last = (trace.turns[-1].turn, trace.turns[-1].input_tokens) if trace.turns else None
            _refusal(ax, last, (last_turn, refused[0]), LABELS["refused_tokens"].format(tokens=refused[0]))
        if window:
            ax.axhline(window, color="black", linestyle="--", linewidth=2,
                       label=LABELS["window"].format(window=window), gid="window")
        ax.set_ylabel(LABELS["tokens_per_request"])
        _turn_axis(ax, last_turn)
        _finish(ax, title or LABELS["tokens_title"])
    return ax


def batch_sizes(run: Any) -> list[tuple[int, int, int]]:
    """(turn, chars of the newest batch of tool results as it arrived, as it was sent).

    A persisted result counts at its full size on arrival (its block states it), so the
    numbers are in the unit ``tool_result_budget`` compares with its budget.
    """
    trace, _, _ = _parts(run)
    found = []
    for turn in trace.turns:
        last = turn.sent[-1] if turn.sent else {}
        if not is_tool_result_message(last):
            continue
        texts = [joined_text(b.get("content", "")) for b in blocks_of(last)
                 if block_type(b) == "tool_result"]
        arrived = sum(p.total_chars if (p := read_persisted(t)) and p.ours else len(t) for t in texts)
        found.append((turn.turn, arrived, sum(len(t) for t in texts)))
    return found


def plot_batch(run: Any, ax: Axes | None = None, title: str | None = None) -> Axes:
    """tool_result_budget's own trigger: the newest batch's size against the 200,000 budget."""
    trace, limits, _ = _parts(run)
    with matplotlib.rc_context(RC):
        ax = ax if ax is not None else new_axes(5)
        sizes = batch_sizes(run)
        if sizes:
            xs, arrived, sent = zip(*sizes, strict=True)
            for offset, values, colour, label, gid in (
                    (-0.2, arrived, "#BBBBBB", LABELS["batch_arrived"], "batch_arrived"),
                    (0.2, sent, "#E69F00", LABELS["batch_sent"], "batch_sent")):
                bars = ax.bar([x + offset for x in xs], values, width=0.4, color=colour,
                              edgecolor="black", label=label, gid=gid)
                ax.bar_label(bars, labels=[f"{v:,}" for v in values], fontsize=10, padding=2)
        ax.axhline(limits.tool_result_budget, color="#D55E00", linestyle=":", linewidth=2,
                   label=LABELS["budget"].format(budget=limits.tool_result_budget), gid="budget")
        ax.axhline(limits.persist_threshold, color="#777777", linestyle="--", linewidth=1.5,
                   label=LABELS["persist_threshold"].format(threshold=limits.persist_threshold),
                   gid="persist_threshold")
        ax.set_ylabel(LABELS["batch_axis"])
        _turn_axis(ax, max((t.turn for t in trace.turns), default=0))
        _finish(ax, title or LABELS["batch_title"])
    return ax


def plot_messages(run: Any, ax: Axes | None = None, title: str | None = None) -> Axes:
    """snip_compact's own trigger: how many messages there are, against ``max_messages``."""
    trace, limits, _ = _parts(run)
    with matplotlib.rc_context(RC):
        ax = ax if ax is not None else new_axes(5)
        turns = [t.turn for t in trace.turns]
        _before_and_sent(ax, turns, [t.messages_before for t in trace.turns],
                         [len(t.sent) for t in trace.turns], LABELS["messages"])
        ax.axhline(limits.max_messages, color="#56B4E9", linestyle=":", linewidth=2.5,
                   label=LABELS["max_messages"].format(limit=limits.max_messages), gid="max_messages")
        colour, marker, _ = STYLE["snip_compact"]
        label = LABELS["stage"]["snip_compact"]
        points = [(t.turn, len(t.sent)) for t in trace.turns
                  if any(e.fired and e.stage == "snip_compact" for e in t.events)]
        if points:
            xs, ys = zip(*points, strict=True)
            ax.scatter(xs, ys, s=220, color=colour, marker=marker, edgecolor="black", zorder=5,
                       label=label, gid="stage:snip_compact")
        ax.set_ylabel(LABELS["messages_axis"])
        _turn_axis(ax, max(turns, default=0))
        _finish(ax, title or headline(run, "snip_compact"), {"loc": "lower right"})
    return ax


def plot_composition(run: Any, ax: Axes | None = None) -> Axes:
    """What the context is made of, per turn: one stacked bar per turn, a colour per kind."""
    trace, _, _ = _parts(run)
    with matplotlib.rc_context(RC):
        ax = ax if ax is not None else new_axes(5)
        turns = [t.turn for t in trace.turns]
        bottom = [0] * len(turns)
        for kind in KINDS:
            values = [t.composition.get(kind, 0) for t in trace.turns]
            if any(values):
                ax.bar(turns, values, bottom=bottom, color=KIND_COLOURS[kind],
                       label=LABELS["kind"][kind], edgecolor="white", gid=f"kind:{kind}")
                bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        ax.set_ylabel(LABELS["composition_axis"])
        _turn_axis(ax, max(turns, default=0))
        _finish(ax, LABELS["composition_title"], {"ncols": 2})
    return ax


PANELS = {"context": plot_context, "tokens": plot_tokens, "batch": plot_batch,
          "messages": plot_messages, "composition": plot_composition}


def plot_run(run: Any, panels: tuple[str, ...] = ("context", "composition")) -> Figure:
    """Panels stacked, sharing the turn axis: by default the context size over what fills it,
    the picture the lab shows. Other panels: "tokens", "batch", "messages" (each stage's trigger).
    """
    unknown = [p for p in panels if p not in PANELS]
    if unknown or not panels:
        raise ValueError(f"unknown panel(s) {unknown}; choose from {list(PANELS)}")
    with matplotlib.rc_context(RC):
        heights = [3 if p == "context" else 2 for p in panels]
        fig = Figure(figsize=(11, 2.2 * sum(heights)), layout=FittingLayout())
        axes = fig.subplots(len(panels), 1, height_ratios=heights, squeeze=False)[:, 0]
        for name, ax in zip(panels, axes, strict=True):
            PANELS[name](run, ax=ax)
    return fig


def stage_markers(ax: Axes) -> dict[str, int]:
    """How many markers of each stage an Axes shows (for tests and checks)."""
    return {c.get_gid().split(":", 1)[1]: len(c.get_offsets()) for c in ax.collections
            if (c.get_gid() or "").startswith("stage:")}
