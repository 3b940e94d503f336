"""The strategy comparison's pictures: what each strategy paid, turn by turn (lines differ by style
as well as colour; the cost axes are logarithmic unless asked otherwise), where the probe facts
ended up, and how long each summary grew. Texts are in the catalogs (``study.`` keys).
"""

from __future__ import annotations

import matplotlib
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..pipeline.summary import summary_cut_note
from ..study.retention import PLACES
from ..study.strategies import STRATEGIES, Strategy
from ..study.workload import PROBES
from ..texts import say, translated
from .plot import RC, finish, legend_below, panel, thousands

# strategy → (colour, line style, marker); unknown strategies cycle through FALLBACK
STYLES = {
    "none": ("#000000", "-", None),
    "pipeline": ("#0072B2", "-", "o"),
    "micro only": ("#E69F00", "--", None),
    "summary only": ("#CC79A7", "-.", None),
    "archiving": ("#56B4E9", ":", "s"),
    "cache-friendly": ("#D55E00", "-", "D"),
    # notebook 08's four: the lesson's pipeline as above, each API feature as its client-side twin
    "lesson pipeline": ("#0072B2", "-", "o"),
    "context editing": ("#E69F00", "--", None),
    "server compaction": ("#CC79A7", "-.", None),
    "both": ("#009E73", ":", "^"),          # dotted with markers: it can lie on context editing's line
}
# A line that can lie on another's is drawn thin and on top, so the wider line shows around it.
THIN = {"both": 1.2}
# Any other strategy (a notebook's own variant): styles notebook 08's four do not use, first black dashed.
FALLBACK = [("#000000", "--", "v"), ("#999999", ":", "v")]
PLACE_COLOURS = {"context": "#009E73", "archive": "#56B4E9", "workspace": "#E69F00",
                 "lost": "#D55E00"}
MEASURES = ("plain", "cache-aware")
CUT_OFF = summary_cut_note(0).partition("=")[0]   # "[summary cut off at max_tokens": how a cut summary ends


def _style(name: str, index: int) -> tuple[str, str, str | None]:
    return STYLES.get(name, FALLBACK[index % len(FALLBACK)])


def _same_as(reports: list, index: int) -> str:
    """A strategy's name, with the earlier one it matches number for number ("both = context editing")."""
    report = reports[index]
    twin = next((r.strategy for r in reports[:index] if r.cumulative_tokens == report.cumulative_tokens
                 and r.cumulative_cost == report.cumulative_cost), None)
    name, twin = (translated(s, "study.name.") if s else s for s in (report.strategy, twin))   # 08: catalogs
    return name if twin is None else say("study.plot.same", strategy=name, twin=twin)


def plot_strategies(reports: list, ax: Axes | None = None, measure: str = "plain",
                    scale: str = "log") -> Axes:
    """Cumulative cost per user turn, one line per strategy, "plain" or "cache-aware" (``measure``),
    on a "log" or "linear" axis (``scale``: linear ticks in millions); markers every 10 turns."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {sorted(MEASURES)}, got {measure!r}")
    with panel(ax, 6) as ax:
        for index, report in enumerate(reports):
            values = report.cumulative_tokens if measure == "plain" else report.cumulative_cost
            colour, style, marker = _style(report.strategy, index)
            turns = range(1, len(values) + 1)
            ax.plot(turns, values, color=colour, linestyle=style, linewidth=THIN.get(report.strategy, 2.5),
                    marker=marker, markersize=7, markevery=(index * 2 % 10, 10), alpha=0.95,
                    zorder=3 if report.strategy in THIN else 2,
                    label=say("study.plot.total", strategy=_same_as(reports, index),
                              millions=values[-1] / 1e6) if values else report.strategy,
                    gid=f"strategy:{report.strategy}")
        ax.set_yscale(scale)
        if scale == "linear":
            ax.yaxis.set_major_formatter(lambda v, _: f"{v / 1e6:g} M")
            ax.set_ylim(0, None)
        ax.set_xlabel(say("study.plot.turn"))
        ax.set_ylabel(say(f"study.plot.axis.{measure}"))
        finish(ax, say(f"study.plot.measure.{measure}"), say("study.plot.legend"))
    return ax


def plot_costs(reports: list, cost_scale: str = "log") -> Figure:
    """Plain and cache-aware cost side by side; ``cost_scale="linear"``: the cache-aware panel on a
    linear axis of its own (the plain one stays logarithmic)."""
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(16, 6.5), layout="constrained")
        plain, cached = figure.subplots(1, 2, sharey=cost_scale == "log")
        plot_strategies(reports, plain, "plain")
        plot_strategies(reports, cached, "cache-aware", cost_scale)
        cached.yaxis.set_tick_params(labelleft=True)
        base = next((r for r in reports if r.strategy == "none"), None)
        best = min(reports, key=lambda r: r.cost(), default=None)
        if best is not None:           # what the cheapest saves against "none", if it ran (wrapped)
            title = say("study.plot.costs", turns=len(reports[0].cumulative_tokens)) if base is None \
                else say("study.plot.cheapest", strategy=best.strategy, saving=1 - best.cost() / base.cost())
            figure.suptitle(title, fontsize=17, x=0.01, ha="left", wrap=base is not None)
    return figure


def lost_to_a_cut(report, probe: str) -> bool:
    """Whether ``probe`` was lost after the first summary, with a later summary cut off at its
    ``max_tokens``: the offline summariser's cut lost it, not the stages."""
    turn, turns = {p.name: p.turn for p in PROBES}.get(probe), report.summary_turns
    return (report.retention[probe] == "lost" and turn is not None and bool(turns) and turn >= turns[0]
            and any(CUT_OFF in text for at, text in zip(turns, report.summaries, strict=True) if at >= turn))


def trigger_chars(strategy: Strategy) -> int | None:
    """The context size (chars) at which one of ``STRATEGIES`` first compacts; None if it never does."""
    if not strategy.stages:
        return None
    micro = strategy.options.get("functions", {}).get("micro_compact")
    return micro.args[0] if micro else strategy.options.get("high_water_mark", strategy.limits.context_limit)


def _with_trigger(name: str) -> str:
    """A strategy's name and, for one of ``STRATEGIES``, the trigger it compacts at."""
    chars = next((trigger_chars(s) for s in STRATEGIES if s.name == name), None)
    return name if chars is None else say("study.plot.trigger", strategy=name, k=chars // 1000)


def plot_retention(reports: list, ax: Axes | None = None) -> Axes:
    """Where each probe fact ended up, per strategy (``retention.PLACES``); a column is labelled
    with its strategy's trigger, a loss to a cut-off summary says so."""
    probes = list(reports[0].retention) if reports else []
    grid = [[PLACES.index(r.retention[p]) for r in reports] for p in probes]
    with panel(ax, 6.5, 13) as ax:
        colours = ListedColormap([PLACE_COLOURS[p] for p in PLACES])
        ax.imshow(grid, cmap=colours, vmin=-0.5, vmax=len(PLACES) - 0.5, aspect="auto")
        for row, line in enumerate(grid):
            for column, place in enumerate(line):
                label, size = say(f"study.place.{PLACES[place]}"), 11
                if lost_to_a_cut(reports[column], probes[row]):
                    label, size = label + "\n" + say("study.plot.retention.cut"), 9.5
                ax.text(column, row, label, ha="center", va="center",
                        fontsize=size, color="white" if PLACES[place] in ("lost", "context") else "black")
        ax.set_xticks(range(len(reports)), [_with_trigger(r.strategy) for r in reports])
        ax.set_yticks(range(len(probes)), [translated(p, "study.probe.") for p in probes])
        ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False, length=0)
        ax.set_xticks([x - 0.5 for x in range(1, len(reports))], minor=True)
        ax.set_yticks([y - 0.5 for y in range(1, len(probes))], minor=True)
        ax.grid(which="minor", color="white", linewidth=3)
        legend_below(ax, handles=[Patch(color=PLACE_COLOURS[p], label=say(f"study.place.{p}"))
                                  for p in PLACES], frameon=False)
        ax.set_title(say("study.plot.retention", count=len(probes)), loc="left", pad=34)
    return ax


def plot_summaries(reports: list, cap: int | None = None, ax: Axes | None = None) -> Axes:
    """Each summary's length at the user turn it was written, a cross on one cut off at
    ``max_tokens``; ``cap``: the last report's cap."""
    with panel(ax, 5.5) as ax:
        for index, report in enumerate(reports):
            colour, _, marker = _style(report.strategy, index)
            sizes = [len(summary) for summary in report.summaries]
            ax.plot(report.summary_turns, sizes, color=colour, linewidth=2.5, marker=marker or "o",
                    markersize=8, gid=f"summaries:{report.strategy}",
                    label=say("study.plot.summary.line", strategy=report.strategy, count=len(sizes)))
            cut = [(turn, size) for turn, size, summary in zip(report.summary_turns, sizes, report.summaries,
                                                                strict=True) if CUT_OFF in summary]
            if cut:
                ax.plot(*zip(*cut, strict=True), linestyle="None", marker="x", markersize=14,
                        markeredgewidth=3, color="black", label=say("study.plot.summary.cut"),
                        gid=f"cut:{report.strategy}")
        if cap is not None and reports:
            colour = _style(reports[-1].strategy, len(reports) - 1)[0]
            ax.axhline(cap, color=colour, linestyle=":", linewidth=2,
                       label=say("study.plot.summary.cap", strategy=reports[-1].strategy, cap=cap), gid="cap")
        ax.set(xlabel=say("study.plot.turn"), ylabel=say("study.plot.summary.axis"), ylim=(0, None))
        thousands(ax.yaxis)
        finish(ax, say("study.plot.summary.title"))
    return ax
