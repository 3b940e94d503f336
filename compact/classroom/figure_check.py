"""Does a figure show everything it draws? ``figure_problems(fig)`` draws it and lists what a
viewer would miss: a text (title, axis label, tick label, note) or a legend cut off by the
figure's edge, a legend over a data point (line vertex, scatter marker, bar, box, image) or
across a drawn line (a curve, a step, a reference line), a bar or a marker cut by its axes, a
legend over a text, two texts drawn over each other.

Everything is compared in display coordinates (pixels) after the figure is drawn with Agg at
its own dpi, so the layout (constrained or not) is the one a saved PNG has; a PNG saved at
another dpi scales it. The tests run it on every figure the notebooks and the lab show.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cbook import STEP_LOOKUP_MAP
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure, FigureBase
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.path import Path
from matplotlib.text import Text
from matplotlib.transforms import Bbox

TOLERANCE = 1.0          # pixels: anti-aliasing and rounding, not a cut
NO_MARKER = (None, "None", "none", "", " ")


@dataclass(frozen=True)
class Drawn:
    """A piece of the drawn figure: what a problem report calls it, and its box in pixels."""

    what: str
    box: Bbox


@dataclass(frozen=True)
class Point:
    """A data point as drawn: its name, centre and marker radius (pixels), clipped or not."""

    what: str
    x: float
    y: float
    radius: float
    clipped: bool                # drawn only inside its axes


def draw(fig: Figure) -> RendererBase:
    """Draw ``fig`` with Agg (a figure made without pyplot gets an Agg canvas) and return the
    renderer its extents are measured with."""
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _figures(fig: FigureBase) -> Iterator[FigureBase]:
    yield fig
    for sub in fig.subfigs:
        yield from _figures(sub)


def all_axes(fig: Figure) -> list[Axes]:
    """Every Axes drawn, secondary and inset axes included (they are children of an Axes)."""
    found, todo = [], [ax for ax in fig.axes if ax.get_visible()]
    while todo:
        ax = todo.pop(0)
        found.append(ax)
        todo += [child for child in ax.child_axes if child.get_visible()]
    return found


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
    found = [("figure text", t) for f in _figures(fig) for t in f.texts if _shown(t)]
    for k, ax in enumerate(all_axes(fig), 1):
        found += _axes_texts(ax, f"axes {k}")
    return [Drawn(f"{what} {_quote(t)}", t.get_window_extent(renderer)) for what, t in found]


def legends(fig: Figure, renderer: RendererBase) -> list[tuple[Drawn, Legend]]:
    found = [lg for f in _figures(fig) for lg in f.legends]
    found += [ax.get_legend() for ax in all_axes(fig) if ax.get_legend() is not None]
    return [(Drawn(f"legend ({', '.join(t.get_text() for t in lg.get_texts()[:2])}…)",
                   lg.get_window_extent(renderer)), lg) for lg in found if lg.get_visible()]


def _label(artist, fallback: str) -> str:
    label = artist.get_label() or ""
    return repr(label) if label and not label.startswith("_") else (artist.get_gid() or fallback)


def _line_points(line: Line2D, scale: float) -> Iterator[Point]:
    shown = line.get_marker() not in NO_MARKER or line.get_linestyle() not in NO_MARKER
    if not line.get_visible() or not shown:
        return
    radius = line.get_markersize() / 2 * scale if line.get_marker() not in NO_MARKER else 0
    data = np.asarray(line.get_xydata(), dtype=float)
    for (x, y), (px, py) in zip(data, line.get_transform().transform(data), strict=True):
        if np.isfinite([px, py]).all():
            yield Point(f"{_label(line, 'line')} point ({x:g}, {y:g})", px, py, radius,
                        line.get_clip_on())


def _collection_points(collection, scale: float) -> Iterator[Point]:
    if not collection.get_visible():
        return
    if isinstance(collection, LineCollection):
        for segment in collection.get_segments():
            for px, py in collection.get_transform().transform(segment):
                yield Point(f"{_label(collection, 'segment')} end", px, py, 0, collection.get_clip_on())
    elif isinstance(collection, PathCollection):
        offsets = np.asarray(collection.get_offsets(), dtype=float)
        sizes = collection.get_sizes()
        for k, ((x, y), (px, py)) in enumerate(zip(
                offsets, collection.get_offset_transform().transform(offsets), strict=True)):
            radius = math.sqrt(sizes[k % len(sizes)]) / 2 * scale if len(sizes) else 0
            yield Point(f"{_label(collection, 'marker')} at ({x:g}, {y:g})", px, py, radius,
                        collection.get_clip_on())


def data_points(ax: Axes) -> list[Point]:
    """Line vertices and markers, scatter markers, segment ends, in pixels."""
    scale = ax.figure.dpi / 72           # points → pixels
    points = [p for line in ax.get_lines() for p in _line_points(line, scale)]
    return points + [p for c in ax.collections for p in _collection_points(c, scale)]


def _drawn_paths(ax: Axes) -> Iterator[tuple[str, np.ndarray]]:
    """Every drawn line of the Axes as pixel vertices, steps as drawn: curves, reference lines
    (``axhline``) and segments (``vlines``)."""
    for line in ax.get_lines():
        if line.get_visible() and line.get_linestyle() not in NO_MARKER:
            xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
            xy = np.column_stack(STEP_LOOKUP_MAP[line.get_drawstyle() or "default"](*xy.T))
            yield _label(line, "line"), xy[np.isfinite(xy).all(axis=1)]
    for collection in ax.collections:
        if isinstance(collection, LineCollection) and collection.get_visible():
            for segment in collection.get_segments():
                yield _label(collection, "segment"), collection.get_transform().transform(segment)


def line_heights(ax: Axes, x0: float, x1: float) -> list[float]:
    """The pixel heights each drawn line reaches between x0 and x1 (where it enters, turns and
    leaves that stretch)."""
    heights = []
    for _, xy in _drawn_paths(ax):
        for (xa, ya), (xb, yb) in zip(xy[:-1], xy[1:], strict=True):
            lo, hi = max(min(xa, xb), x0), min(max(xa, xb), x1)
            if lo <= hi:
                heights += [ya if xa == xb else ya + (yb - ya) * (x - xa) / (xb - xa)
                            for x in (lo, hi)] + ([max(ya, yb)] if xa == xb else [])
    return heights


def crossed_lines(box: Bbox, ax: Axes) -> list[str]:
    """The lines of ``ax`` that run through ``box`` (a legend's), by name."""
    inner = Bbox.from_extents(box.x0 + TOLERANCE, box.y0 + TOLERANCE, box.x1 - TOLERANCE,
                              box.y1 - TOLERANCE)
    return list(dict.fromkeys(name for name, xy in _drawn_paths(ax)
                              if len(xy) > 1 and Path(xy).intersects_bbox(inner, filled=False)))


def _patch_name(patch, owners: dict) -> str:
    if id(patch) in owners:                       # a bar: its container has the label
        return f"bar {owners[id(patch)]!r}"
    return f"{'box' if isinstance(patch, Rectangle) else 'shape'} {_label(patch, 'patch')}"


def data_boxes(ax: Axes, renderer: RendererBase | None = None) -> list[Drawn]:
    """Bars (named by their container's label), boxes and other shapes, and images, in pixels."""
    owners = {id(p): c.get_label() for c in ax.containers for p in getattr(c, "patches", ())}
    found = [Drawn(_patch_name(p, owners), p.get_window_extent(renderer))
             for p in ax.patches if p.get_visible()]
    found += [Drawn(f"image {_label(i, 'image')}", i.get_window_extent(renderer))
              for i in ax.get_images() if isinstance(i, AxesImage) and i.get_visible()]
    return [d for d in found if d.box.width > 0 and d.box.height > 0]


def overlap(a: Bbox, b: Bbox) -> float:   # the pixels two boxes share (0 when apart)
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return width * height if width > TOLERANCE and height > TOLERANCE else 0.0


def _outside(box: Bbox, frame: Bbox) -> str | None:
    """Which edges of ``frame`` the box crosses, and by how many pixels; None if it is inside."""
    sides = {"left": frame.x0 - box.x0, "right": box.x1 - frame.x1,
             "bottom": frame.y0 - box.y0, "top": box.y1 - frame.y1}
    cut = [f"{side} by {amount:.0f} px" for side, amount in sides.items() if amount > TOLERANCE]
    return ", ".join(cut) or None


def _inside(point: Point, frame: Bbox) -> bool:
    return frame.x0 <= point.x <= frame.x1 and frame.y0 <= point.y <= frame.y1


def covers(box: Bbox, point: Point) -> bool:     # the legend hides the point or part of its marker
    near_x = min(max(point.x, box.x0), box.x1)
    near_y = min(max(point.y, box.y0), box.y1)
    return math.hypot(point.x - near_x, point.y - near_y) < max(point.radius, TOLERANCE)


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
