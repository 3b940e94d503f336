"""Pictures of a run, one panel per stage's trigger: context chars, tokens, the newest batch, the
message count, and what fills the context. Sizes are measured once per model call: points and
steps, never slopes. For a projector: big fonts, the Okabe–Ito palette, a marker per stage, texts
from the catalogs (``say("plot.…")``), each legend under its Axes; no pyplot state."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib
import noto_cjk_sans_otc
import numpy as np
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.textpath import TextToPath
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import ScaledTranslation

from ..offline.markers import read_placeholder
from ..pipeline import Limits
from ..pipeline.formats import conversation_length
from ..pipeline.messages import iter_tool_results
from ..texts import say
from ..trace import KINDS, Trace, Turn, composition

# Chinese glyphs from pip alone: the Noto Sans CJK font of ``noto-cjk-sans-otc`` (SIL Open Font
# License) is the fallback behind DejaVu Sans, so CJK text never draws as boxes (Colab has none).
CJK_FAMILY = "Noto Sans CJK SC"          # the simplified-Chinese face of the collection
# A monospace text names both faces: matplotlib takes only the first font of "monospace".
MONOSPACE = ["DejaVu Sans Mono", CJK_FAMILY]
if not any(f.name == CJK_FAMILY for f in font_manager.fontManager.ttflist):
    font_manager.fontManager.addfont(str(noto_cjk_sans_otc.FONT_PATH))
matplotlib.rcParams["font.family"] = ["DejaVu Sans", CJK_FAMILY]


STYLE = {   # stage → (colour, marker); the legend label is say(f"plot.stage.{stage}")
    "tool_result_budget": ("#E69F00", "s"), "snip_compact": ("#56B4E9", "D"),
    "micro_compact": ("#009E73", "o"), "compact_history": ("#D55E00", "*"),
    "reactive_compact": ("#CC79A7", "X"), "compact_tool": ("#0072B2", "P")}
KIND_COLOURS = dict(zip(KINDS, ["#0072B2", "#56B4E9", "#999999", "#E69F00", "#F0E442",
                                "#009E73", "#D55E00", "#CC79A7"], strict=True))
STACK = ("summaries", *(k for k in KINDS if k != "summaries"))   # bottom up: a summary is message 0
RC = {"font.size": 14, "axes.titlesize": 16, "axes.labelsize": 14, "legend.fontsize": 11,
      "xtick.labelsize": 12, "ytick.labelsize": 12, "axes.spines.top": False}
CHARS_PER_TOKEN = 4
HEADROOM = 0.08        # of the y range, below 0 and above the top: no marker cut by the frame
X_DECORATIONS = 39     # points an x axis' tick labels and label take under an Axes (RC's fonts)
Y_DECORATIONS = 80     # points a y axis' tick labels and label take beside an Axes (RC's fonts)
REACTIVE_OFFSET = 0.12  # turns: a reactive cut's bar stands just left of its turn's marker
SNIP_CLEARANCE = 13    # points: a message count's cut stands right of the snip diamond (half-width 10.5)
LEGEND_GAP = 6         # points between them and a legend under the Axes
REFUSAL = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum")   # the API's message


def _parts(run: Any) -> tuple[Trace, Limits, Any]:
    if isinstance(run, Trace):
        return run, run.limits, None
    return run.trace, getattr(run, "limits", run.trace.limits), run


def placeholders(messages: list) -> int:
    return sum(read_placeholder(str(b.get("content", ""))) is not None
               for _, _, b in iter_tool_results(messages))


def _describe(stage: str, hits: list, trace: Trace) -> str:
    turn, event = hits[-1]
    if stage == "micro_compact":
        return say("plot.headline.micro_compact", count=placeholders(trace.turns[-1].sent), turn=turn)
    if stage == "tool_result_budget":
        files = len(event.files_written)
        return say("plot.headline.tool_result_budget" + ("_one" if files == 1 else ""), files=files,
                   turn=turn, before=event.size_before, after=event.size_after)
    if stage == "snip_compact":
        turns = sorted({t for t, _ in hits})
        last = next(t for t in trace.turns if t.turn == turn)       # counted as the plot counts
        return say("plot.headline.snip_compact", turns=say("offline.list_sep").join(map(str, turns)),
                   before=conversation_length(last.before) if last.before else event.messages_before,
                   after=conversation_length(last.sent) if last.sent else event.messages_after)
    return say("plot.headline.summary", stage=stage, turn=turn, before=event.size_before,
                                  after=event.size_after)


def headline(run: Any, stage: str | None = None) -> str:
    """One sentence on what happened, for the plot's title (about ``stage``, if given)."""
    trace, _, result = _parts(run)
    if stage is None and result is not None and getattr(result, "error", None):
        error = re.sub(r", decrease .*", "", result.error)     # the API's advice after the numbers
        error = re.sub(r"\b\d{4,}\b", lambda number: f"{int(number[0]):,}", error)  # 19165 → 19,165
        return say("plot.headline.refused" if getattr(result, "refused_size", None) is not None
                   else "plot.headline.stopped", turn=len(trace.turns) + 1, error=error)
    fired = [(t.turn, e) for t in trace.turns for e in t.events if e.fired]
    for name in ((stage,) if stage else ("compact_history", "reactive_compact",
                                          "tool_result_budget", "micro_compact", "snip_compact")):
        hits = [(turn, e) for turn, e in fired if e.stage == name]
        if hits:
            return _describe(name, hits, trace)
    return say("plot.headline.not_fired", stage=stage) if stage else say("plot.headline.quiet")


def _turns_x(ax: Axes, last_turn: int) -> None:
    """Turns 1..last on x (an empty run still gets a readable axis)."""
    last_turn = max(last_turn, 1)
    ax.set_xlabel(say("plot.turn"))
    if last_turn <= 20:
        ax.set_xticks(range(1, last_turn + 1))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0.5, last_turn + 0.5)


def share_turns(axes: Any) -> None:
    """One turn axis for stacked panels, a refused turn (drawn on some panels only) included."""
    last = round(max(ax.get_xlim()[1] for ax in axes) - 0.5)
    for ax in axes:
        _turns_x(ax, last)


def _turn_axis(ax: Axes, last_turn: int) -> None:
    """Turns 1..last on x; y from 0 with HEADROOM below and above, so no marker is cut."""
    _turns_x(ax, last_turn)
    ax.autoscale(axis="y")
    high = ax.get_ylim()[1]
    top = max(high, 1.0)
    ax.set_ylim(-HEADROOM * top, max(high, 0) + HEADROOM * top)
    thousands(ax.yaxis)


def thousands(axis: Any) -> None:
    """Tick labels written as the package writes numbers, in both languages: 20,000."""
    axis.set_major_formatter(lambda v, _: f"{v:,.0f}")


def text_width(text: str, size: float) -> float:
    """How wide ``text`` is drawn at ``size`` points, in points (no figure needed)."""
    font = font_manager.FontProperties(size=size)
    return TextToPath().get_text_width_height_descent(text, font, ismath=False)[0]


def column_width(ax: Axes) -> float:
    """The Axes' share of the figure's width, in points (its column of the grid)."""
    spec = ax.get_subplotspec()
    return ax.figure.figure.get_figwidth() * 72 / (spec.get_gridspec().ncols if spec else 1)


def legend_below(ax: Axes, fontsize: float = RC["legend.fontsize"], **kwargs: Any) -> Legend:
    """The legend under the Axes' x label, centred, in as many columns as the figure's width holds."""
    handles = kwargs.pop("handles", None) or ax.get_legend_handles_labels()[0]
    widths = [text_width(h.get_label(), fontsize) + 5 * fontsize for h in handles]  # + its handle
    room = column_width(ax) - 2 * fontsize
    ncols = next((n for n in range(len(widths), 1, -1)        # columns split as a legend does
                  if sum(max(column) for column in np.array_split(widths, n)) <= room), 1)
    drop = (X_DECORATIONS if ax.get_xlabel() else 0) + LEGEND_GAP
    under = ax.transAxes + ScaledTranslation(0, -drop / 72, ax.figure.dpi_scale_trans)
    return ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0),
                     bbox_transform=under, ncols=ncols, fontsize=fontsize, **kwargs)


def wrapped(ax: Axes, title: str, size: float) -> str:
    """``title`` broken at spaces to the Axes' width, its y labels (and a right axis') left out:
    matplotlib's own wrap stops only at the figure's edge, over a right axis' tick labels."""
    room = column_width(ax) - Y_DECORATIONS * (1 + bool(ax.child_axes))
    lines = [""]
    for word in title.split(" "):
        line = f"{lines[-1]} {word}" if lines[-1] else word
        lines[-1:] = [line] if text_width(line, size) <= room or not lines[-1] else [lines[-1], word]
    return "\n".join(lines)


def finish(ax: Axes, title: str, legend_title: str | None = None) -> None:
    """Classroom fonts (also outside ``RC``), y labels from the top, the legend under, the title wrapped."""
    size = RC["axes.titlesize"]
    ax.set_title(wrapped(ax, title, size), loc="left", fontsize=size, wrap=True)
    for axes in (ax, *ax.child_axes):
        axes.xaxis.label.set_fontsize(RC["axes.labelsize"])
        axes.yaxis.label.set(fontsize=RC["axes.labelsize"], y=1, horizontalalignment="right")
        axes.tick_params(labelsize=RC["xtick.labelsize"])        # x and y alike
    legend_below(ax, framealpha=0.9, title=legend_title)


def _before_and_sent(ax: Axes, trace: Trace, sizes: tuple[list[int], list[int]], what: str,
                     zoomed: bool = False) -> None:
    """Hollow grey = before the pipeline, blue = sent, a red bar = what it cut (reactive_compact's:
    its colour, beside the marker); ``zoomed``: hollow markers on top, cuts wider."""
    (before, sent), turns = sizes, [t.turn for t in trace.turns]
    ax.plot(turns, before, linestyle="None", marker="o", markersize=9, markerfacecolor="white",
            color="#777777", label=say("plot.before", what=what), gid="size_before",
            **({"zorder": 4, "markeredgewidth": 2} if zoomed else {}))
    ax.plot(turns, sent, drawstyle="steps-post", color="#0072B2", linewidth=2, marker="o",
            markersize=7, label=say("plot.sent", what=what), gid="size_sent")
    rescued = {t.turn for t in trace.turns if "reactive_compact" in t.stages}
    cuts = [(t, s, b) for t, b, s in zip(turns, before, sent, strict=True) if b > s]
    for mine, offset, look in (
            ([c for c in cuts if c[0] not in rescued], 0.0,
             {"color": "#D55E00", "linewidth": 6 if zoomed else 2.5, "alpha": 0.8 if zoomed else 0.6,
              "label": say("plot.cut"), "gid": "cut", **({"zorder": 3} if zoomed else {})}),
            ([c for c in cuts if c[0] in rescued], -REACTIVE_OFFSET,
             {"color": STYLE["reactive_compact"][0], "linewidth": 5, "label": say("plot.cut_reactive"),
              "gid": "cut_reactive"})):
        if mine:   # the pipeline's cut just right of the blue step (in points), so both stay visible
            xs, lows, highs = zip(*mine, strict=True)
            points = 0 if offset else look["linewidth"] / 2 + 1.5
            beside = ScaledTranslation(points / 72, 0, ax.figure.dpi_scale_trans)
            ax.vlines([x + offset for x in xs], lows, highs, transform=ax.transData + beside, **look)


@contextmanager
def panel(ax: Axes | None, height: float, width: float = 11) -> Iterator[Axes]:
    """The classroom style, and ``ax`` to draw in, or a projector-wide Axes on a figure of its own."""
    with matplotlib.rc_context(RC):
        yield ax if ax is not None else Figure(figsize=(width, height), layout="constrained").subplots()


def _stage_markers(ax: Axes, trace: Trace, stages: Iterable[str], height: Callable[[Turn], float]) -> None:
    """A marker at ``height`` of its turn each time one of ``stages`` fired (smaller on a long run)."""
    size = 220 * min(1, 15 / max(len(trace.turns), 1))
    for name in stages:
        points = [(t.turn, height(t)) for t in trace.turns for fired in t.stages if fired == name]
        if points:
            xs, ys = zip(*points, strict=True)
            colour, marker = STYLE[name]
            ax.scatter(xs, ys, s=size, color=colour, marker=marker, edgecolor="black",
                       zorder=5, label=say(f"plot.stage.{name}"), gid=f"stage:{name}")


def _refusal(ax: Axes, last: tuple[int, float] | None, at: tuple[int, float], label: str) -> None:
    """A dotted step from the ``last`` accepted request to a black ✕ ``at`` the refused one."""
    if last is not None:
        ax.plot([last[0], at[0]], [last[1], at[1]], drawstyle="steps-post", color="black",
                linestyle=":", linewidth=1.5)
    ax.scatter([at[0]], [at[1]], s=260, marker="X", color="black", zorder=6, label=label,
               gid="refused")


def _ended(ax: Axes, trace: Trace, height: Callable[[Turn], float],
           refused: tuple[float, str] | None) -> int:
    """The last turn on x; one more for the (size, label) ``refused`` that ended the run, its ✕ there."""
    last_turn = max((t.turn for t in trace.turns), default=0)
    if refused:
        last = (trace.turns[-1].turn, height(trace.turns[-1])) if trace.turns else None
        _refusal(ax, last, (last_turn + 1, refused[0]), refused[1])
    return last_turn + bool(refused)


def rescued_refusals(trace: Trace) -> list[tuple[int, int, int]]:
    """(turn, tokens refused, window) of each prompt-too-long refusal a run survived (``Turn.refusals``)."""
    return [(t.turn, int(m[1]), int(m[2])) for t in trace.turns for message in t.refusals
            if (m := REFUSAL.search(message))]


def plot_context(run: Any, ax: Axes | None = None, title: str | None = None, *,
                 limit: bool = True, window: int | None = None) -> Axes:
    """Context chars per turn against ``context_limit``, a marker per stage that fired;
    ``limit=False``: scaled to the run, the limit only in the legend; the model's ``window`` (tokens,
    or the one a refusal names) dashed where the chars ÷ 4 axis reads it; ``window=0``: no line."""
    trace, limits, result = _parts(run)
    with panel(ax, 6) as ax:
        sizes = [t.size_before for t in trace.turns], [t.size_sent for t in trace.turns]
        _before_and_sent(ax, trace, sizes, say("plot.chars"), zoomed=not limit)
        if limit:
            ax.axhline(limits.context_limit, color="#D55E00", linestyle=":", linewidth=2,
                       label=say("plot.context_limit", limit=limits.context_limit), gid="limit")
        else:     # the limit far above: a legend note without a line sample, the y axis to just above the run
            ax.plot([], [], linestyle="none", label=say("plot.context_limit_off", limit=limits.context_limit),
                    gid="limit_off")
            ax.set_ylim(0, max([*sizes[0], *sizes[1], 1]) * 1.12)
        _stage_markers(ax, trace, STYLE, lambda t: t.size_sent)
        refused = getattr(result, "refused_tokens", None)      # (tokens, window) a refusal names
        if window is None and refused:
            window = refused[1]
        if window:
            ax.axhline(window * CHARS_PER_TOKEN, color="black", linestyle="--", linewidth=1.5,
                       label=say("plot.window_chars", window=window), gid="window")
        size = getattr(result, "refused_size", None)          # the window in its label, if named
        label = say("plot.refused_window", tokens=refused[0]) if refused else say("plot.refused")
        last_turn = _ended(ax, trace, lambda t: t.size_sent, size and (size, label))
        ax.set_ylabel(say("plot.context_axis"))
        tokens = ax.secondary_yaxis("right", functions=(lambda c: c / CHARS_PER_TOKEN,
                                                        lambda t: t * CHARS_PER_TOKEN))
        tokens.set_ylabel(say("plot.tokens_axis"))
        thousands(tokens.yaxis)
        _turn_axis(ax, last_turn)
        finish(ax, title or headline(run))
    return ax


def plot_tokens(run: Any, ax: Axes | None = None, title: str | None = None,
                window_tokens: int | None = None, rescued: list | None = None) -> Axes:
    """Tokens per request against the model's window; a ✕ for the refusal that ended a run (after
    its last turn) and each one ``rescued`` (at its turn)."""
    trace, _, result = _parts(run)
    refused = getattr(result, "refused_tokens", None) if result is not None else None
    window = window_tokens or (refused[1] if refused else None) or (rescued[0][2] if rescued else None)
    with panel(ax, 5) as ax:
        turns = [t.turn for t in trace.turns]
        ax.plot(turns, [t.size_sent / CHARS_PER_TOKEN for t in trace.turns], linestyle="None",
                marker="s", markersize=8, markerfacecolor="white", color="#777777",
                label=say("plot.message_tokens"), gid="message_tokens")
        ax.plot(turns, [t.input_tokens for t in trace.turns], drawstyle="steps-post",
                color="#0072B2", linewidth=2, marker="o", markersize=7,
                label=say("plot.tokens_sent"), gid="tokens_sent")
        last_turn = _ended(ax, trace, lambda t: t.input_tokens,
                           refused and (refused[0], say("plot.refused_tokens", tokens=refused[0])))
        for turn, tokens, _ in rescued or []:
            _refusal(ax, None, (turn, tokens), say("plot.refused_tokens", tokens=tokens))
        if window:
            ax.axhline(window, color="black", linestyle="--", linewidth=2,
                       label=say("plot.window", window=window), gid="window")
        ax.set_ylabel(say("plot.tokens_per_request"))
        _turn_axis(ax, last_turn)
        finish(ax, title or say("plot.tokens_title" if window else "plot.tokens_title_no_window"))
    return ax


def plot_messages(run: Any, ax: Axes | None = None, title: str | None = None) -> Axes:
    """snip_compact's own trigger: how many messages there are, against ``max_messages``."""
    trace, limits, _ = _parts(run)
    with panel(ax, 5) as ax:
        turns = [t.turn for t in trace.turns]
        before = [conversation_length(t.before) if t.before else t.messages_before for t in trace.turns]
        sent = [conversation_length(t.sent) for t in trace.turns]
        _before_and_sent(ax, trace, (before, sent), say("plot.messages"))
        ax.axhline(limits.max_messages, color="#56B4E9", linestyle=":", linewidth=2.5,
                   label=say("plot.max_messages", limit=limits.max_messages), gid="max_messages")
        _stage_markers(ax, trace, ["snip_compact"], lambda t: conversation_length(t.sent))
        for cut in (c for c in ax.collections if c.get_gid() == "cut"):   # a cut of one (51 → 50)
            cut.set_transform(ax.transData + ScaledTranslation(     # is not hidden by the diamond
                SNIP_CLEARANCE / 72, 0, ax.figure.dpi_scale_trans))
        ax.set_ylabel(say("plot.messages_axis"))
        _turn_axis(ax, max(turns, default=0))
        low, high = min(before + sent + [limits.max_messages]), max(before + sent + [limits.max_messages])
        pad = max(2.0, 0.25 * (high - low))       # a range around the counts, not from 0: a cut of
        ax.set_ylim(max(low - pad, -HEADROOM * high), high + pad)    # two (53 → 51) stays visible
        if high - low <= 12:                      # a few counts: a tick at every other one, through
            ax.set_yticks(range(low + (limits.max_messages - low) % 2, high + 1, 2))   # max_messages
        finish(ax, title or headline(run, "snip_compact"))
    return ax


def plot_composition(run: Any, ax: Axes | None = None) -> Axes:
    """A stacked bar per turn, a colour per kind; the number of placeholders written above it."""
    trace, _, result = _parts(run)
    with panel(ax, 5) as ax:
        turns = [t.turn for t in trace.turns]
        counts = [placeholders(t.sent) for t in trace.turns]
        bottom = [0] * len(turns)
        for kind in STACK:
            values = [t.composition.get(kind, 0) for t in trace.turns]
            if any(values):
                label = say("plot.kind.placeholders_counted" if kind == "placeholders" and any(counts)
                            else f"plot.kind.{kind}")
                ax.bar(turns, values, bottom=bottom, color=KIND_COLOURS[kind],
                       label=label, edgecolor="white", gid=f"kind:{kind}")
                bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        last_turn = max(turns, default=0)
        if getattr(result, "refused_size", None) is not None:     # the refused request: sent, never answered
            last_turn, size = last_turn + 1, sum(composition(result.messages).values())
            ax.bar(last_turn, size, fill=False, hatch="//", edgecolor="black", gid="refused")
            ax.text(last_turn, size / 2, say("plot.kind.refused"), ha="center", va="center", fontsize=11,
                    bbox={"facecolor": "white", "edgecolor": "none"})
        for turn, count, top in zip(turns, counts, bottom, strict=True):
            if count:
                ax.annotate(f"{count}", (turn, top), xytext=(0, 2), textcoords="offset points",
                            ha="center", va="bottom", fontsize=13 if len(turns) <= 20 else 9,
                            color=KIND_COLOURS["placeholders"], gid="placeholder_count")
        ax.set_ylabel(say("plot.composition_axis"))
        _turn_axis(ax, last_turn)
        if any(counts):               # room for the numbers, in the lab's short panel too
            ax.set_ylim(top=max(ax.get_ylim()[1], max(bottom) * (1 + 5 * HEADROOM)))
        finish(ax, say("plot.composition_title"))
    return ax


PANELS = {"context": plot_context, "tokens": plot_tokens, "messages": plot_messages,
          "composition": plot_composition}


def plot_run(run: Any, panels: tuple[str, ...] = ("context", "composition"), *,
             window: int | None = None, refusals: bool = False, limit: bool = True) -> Figure:
    """Panels of ``PANELS`` stacked on the turn axis. ``window``: the model's window on "tokens";
    ``refusals``: each refusal the run survived is a ✕ there; ``limit``: as in ``plot_context``."""
    unknown = [p for p in panels if p not in PANELS]
    if unknown or not panels:
        raise ValueError(f"unknown panel(s) {unknown}; choose from {list(PANELS)}")
    trace, limits, _ = _parts(run)
    rescued = rescued_refusals(trace) if refusals else []
    with matplotlib.rc_context(RC):
        heights = [3 if p == "context" else 2 for p in panels]
        fig = Figure(figsize=(11, 1.6 * sum(heights)), layout="constrained")   # two panels: 8 in
        axes = fig.subplots(len(panels), 1, height_ratios=heights, squeeze=False)[:, 0]
        title = rescued and say("plot.headline.rescued", turn=rescued[0][0], tokens=rescued[0][1],
                                limit=limits.context_limit)
        options = {"tokens": {"window_tokens": window, "rescued": rescued},
                   "context": {"title": title or None, "limit": limit or bool(rescued),
                               "window": 0 if "tokens" in panels else window}}   # its line: "tokens"
        for name, ax in zip(panels, axes, strict=True):
            PANELS[name](run, ax=ax, **options.get(name, {}))
        share_turns(axes)
        if window and {"context", "tokens"} <= set(panels):   # tokens counted: chars ÷ 4 is only the estimate
            for right in axes[panels.index("context")].child_axes:
                right.set_ylabel(say("plot.tokens_axis_estimate"))
    return fig
