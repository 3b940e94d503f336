"""Does a figure show everything it draws? ``figure_problems(fig)`` draws it and lists what a
viewer would miss: a text (title, axis label, tick label, note) or a legend cut off by the
figure's edge, a legend over a data point (line vertex, scatter marker, bar, box, image) or
across a drawn line (a curve, a step, a reference line), a bar or a marker cut by its axes, a
legend over a text, two texts drawn over each other.

Everything is compared in display coordinates (pixels) after the figure is drawn with Agg at
its own dpi, so the layout (constrained or not) is the one a saved PNG has; a PNG saved at
another dpi scales it. Where each piece is drawn is ``compact.classroom.figure_fit``'s geometry,
the one its layout places legends with. The tests run it on every figure the notebooks and the
lab show.
"""

from __future__ import annotations

from collections.abc import Iterator

from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from compact.classroom.figure_fit import (
    TOLERANCE,
    Drawn,
    Point,
    all_axes,
    all_figures,
    covers,
    crossed_lines,
    data_boxes,
    data_points,
    overlap,
)


def draw(fig: Figure) -> RendererBase:
    """Draw ``fig`` with Agg (a figure made without pyplot gets an Agg canvas) and return the
    renderer its extents are measured with."""
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _shown(text: Text) -> bool:
    return text.get_visible() and bool(text.get_text().strip())


def _quote(text: Text, width: int = 48) -> str:
    flat = " ".join(text.get_text().split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


def tick_labels(axis: Axis) -> Iterator[Text]:
    """The tick labels an axis draws: visible, non-empty, at a tick inside the view (the
    locator's ticks beyond the view keep old labels that are never drawn)."""
    if not axis.get_visible():
        return
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-9
    for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
        if tick.get_visible() and low - slack <= tick.get_loc() <= high + slack:
            yield from (label for label in (tick.label1, tick.label2) if _shown(label))


def _axes_texts(ax: Axes, name: str) -> Iterator[tuple[str, Text]]:
    for child in ax.get_children():
        if isinstance(child, Text) and _shown(child):
            yield (f"{'text' if child in ax.texts else 'title'} in {name}", child)
    for letter, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        if not axis.get_visible():
            continue
        for label, kind in ((axis.label, "label"), (axis.get_offset_text(), "offset text")):
            if _shown(label):
                yield (f"{letter} {kind} of {name}", label)
        yield from ((f"{letter} tick label of {name}", t) for t in tick_labels(axis))


def texts(fig: Figure, renderer: RendererBase) -> list[Drawn]:
    """Every text drawn outside a legend, with its box (a legend is checked as one box)."""
    found = [("figure text", t) for f in all_figures(fig) for t in f.texts if _shown(t)]
    for k, ax in enumerate(all_axes(fig), 1):
        found += _axes_texts(ax, f"axes {k}")
    return [Drawn(f"{what} {_quote(t)}", t.get_window_extent(renderer)) for what, t in found]


def legends(fig: Figure, renderer: RendererBase) -> list[tuple[Drawn, Legend]]:
    found = [lg for f in all_figures(fig) for lg in f.legends]
    found += [ax.get_legend() for ax in all_axes(fig) if ax.get_legend() is not None]
    return [(Drawn(f"legend ({', '.join(t.get_text() for t in lg.get_texts()[:2])}…)",
                   lg.get_window_extent(renderer)), lg) for lg in found if lg.get_visible()]


def _outside(box: Bbox, frame: Bbox) -> str | None:
    """Which edges of ``frame`` the box crosses, and by how many pixels; None if it is inside."""
    sides = {"left": frame.x0 - box.x0, "right": box.x1 - frame.x1,
             "bottom": frame.y0 - box.y0, "top": box.y1 - frame.y1}
    cut = [f"{side} by {amount:.0f} px" for side, amount in sides.items() if amount > TOLERANCE]
    return ", ".join(cut) or None


def _inside(point: Point, frame: Bbox) -> bool:
    return frame.x0 <= point.x <= frame.x1 and frame.y0 <= point.y <= frame.y1


def cut_by_the_figure(fig: Figure, renderer: RendererBase) -> list[str]:
    frame = fig.bbox
    drawn = texts(fig, renderer) + [d for d, _ in legends(fig, renderer)]
    return [f"{d.what} is cut off by the figure's edge ({side})" for d in drawn
            if (side := _outside(d.box, frame))]


def cut_by_the_axes(fig: Figure, renderer: RendererBase) -> list[str]:
    """Bars and markers an axes clips: the part beyond its edge is not drawn."""
    problems = []
    for k, ax in enumerate(all_axes(fig), 1):
        frame = ax.bbox
        for d in data_boxes(ax, renderer):
            if d.what.startswith(("bar ", "box ")) and (side := _outside(d.box, frame)):
                problems.append(f"{d.what} in axes {k} is clipped by the axes ({side})")
        for p in data_points(ax):
            box = Bbox.from_extents(p.x - p.radius, p.y - p.radius, p.x + p.radius, p.y + p.radius)
            side = _outside(box, frame if p.clipped else fig.bbox)
            if side and (not p.clipped or _inside(p, frame)):
                problems.append(f"marker of {p.what} in axes {k} is cut by the "
                                f"{'axes' if p.clipped else 'figure'} ({side})")
    return problems


def legends_over_data(fig: Figure, renderer: RendererBase) -> list[str]:
    problems = []
    for legend_drawn, _ in legends(fig, renderer):
        box = legend_drawn.box
        for k, ax in enumerate(all_axes(fig), 1):
            if overlap(box, ax.bbox) == 0:
                continue
            hidden = [p.what for p in data_points(ax)
                      if (not p.clipped or _inside(p, ax.bbox)) and covers(box, p)]
            hidden += [d.what for d in data_boxes(ax, renderer) if overlap(box, d.box)]
            hidden += [f"line {name}" for name in crossed_lines(box, ax)]
            problems += [f"{legend_drawn.what} covers {what} in axes {k}" for what in hidden]
    return problems


def texts_over_texts(fig: Figure, renderer: RendererBase) -> list[str]:
    """A legend over a text, or two texts drawn over each other."""
    drawn = texts(fig, renderer)
    found = legends(fig, renderer)
    problems = [f"{lg.what} covers {d.what}" for lg, _ in found for d in drawn if overlap(lg.box, d.box)]
    for i, a in enumerate(drawn):
        problems += [f"{a.what} overlaps {b.what}" for b in drawn[i + 1:] if overlap(a.box, b.box)]
    return problems


def figure_problems(fig: Figure, dpi: float | None = None) -> list[str]:
    """Draw ``fig`` (at ``dpi``, e.g. the dpi it is saved at; default its own) and say, in one
    sentence each, what a viewer of it would not see whole: [] when every text lies inside the
    figure, no legend covers data or text, no bar or marker is clipped and no two texts overlap."""
    saved = fig.dpi
    fig.set_dpi(dpi or saved)
    try:
        renderer = draw(fig)
        return (cut_by_the_figure(fig, renderer) + cut_by_the_axes(fig, renderer)
                + legends_over_data(fig, renderer) + texts_over_texts(fig, renderer))
    finally:
        fig.set_dpi(saved)
