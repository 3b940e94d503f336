"""Figures that fit: a title wrapped to the width it has, a legend where it covers no data.

Both are decided when the figure is drawn, after constrained layout has sized every Axes, so
they hold at any figure size (the lab's narrow column, a projector-wide notebook figure):
``FittingLayout`` is constrained layout that then (1) wraps every title, figure text and axis
label that would cross the figure's edge and (2) moves each legend made with ``fitted_legend``
to the first corner of its Axes where it covers no data point, bar or note; when none is free,
it raises the top of a linear y axis until an upper corner is free (the data keep at least
``MIN_DATA`` of the height), and failing that puts the legend below the Axes, under its tick
labels. The layout runs again after each change that moves an Axes. Its geometry (where each
point, line, bar and legend is drawn, in pixels) is the one ``tools/figure_check.py`` checks
figures with, so ``figure_problems`` finds nothing it left.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.cbook import STEP_LOOKUP_MAP
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure, FigureBase
from matplotlib.image import AxesImage
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.path import Path
from matplotlib.text import Text
from matplotlib.transforms import Bbox, offset_copy

FITTED = "fitted legend"          # the gid of a legend this layout may move
BELOW = "below"                   # a fitted legend's place under its Axes
WRAP = "wrap"                     # the start of the gid of a note in an Axes that may be wrapped
INSIDE = "inside"                 # ... of a note kept inside its Axes (the y range grows for it)
CORNERS = ("upper left", "upper right", "lower right", "lower left", "upper center",
           "lower center", "center left", "center right")
EDGE = 4.0                        # pixels kept free at the figure's edge
GAP_POINTS = 6.0                  # between the tick labels and a legend moved below
PAD = 4.0                         # pixels between a legend and the data under it
MIN_DATA = 0.4                    # the share of an Axes' height the data keep when it makes room
TOLERANCE = 1.0                   # pixels: anti-aliasing and rounding, not a cut
NO_MARKER = (None, "None", "none", "", " ")   # a line drawn without markers or without a line


# Where the figure's pieces are drawn, in pixels (tools/figure_check.py checks with the same)

def all_figures(fig: FigureBase) -> Iterator[FigureBase]:
    """The figure and its subfigures, at any depth."""
    yield fig
    for sub in fig.subfigs:
        yield from all_figures(sub)


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


def all_axes(fig: Figure) -> list[Axes]:
    """Every Axes drawn, secondary and inset axes included (they are children of an Axes)."""
    found, todo = [], [ax for ax in fig.axes if ax.get_visible()]
    while todo:
        ax = todo.pop(0)
        found.append(ax)
        todo += [child for child in ax.child_axes if child.get_visible()]
    return found


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


def covers(box: Bbox, point: Point) -> bool:     # the legend hides the point or part of its marker
    near_x = min(max(point.x, box.x0), box.x1)
    near_y = min(max(point.y, box.y0), box.y1)
    return math.hypot(point.x - near_x, point.y - near_y) < max(point.radius, TOLERANCE)


# The layout



def fitted_legend(ax: Axes, loc: str = "upper left", **kwargs) -> Legend:
    """``ax.legend(loc=loc, **kwargs)`` that the figure's ``FittingLayout`` may move off the
    data (``loc`` is the corner tried first; ``"below"``: under the Axes, in as many columns
    as fit)."""
    legend = ax.legend(loc="upper center" if loc == BELOW else loc, **kwargs)
    legend.set_gid(f"{FITTED}:{loc}")
    return legend


def _length(text: Text) -> float:          # along its reading direction, in pixels
    box = text.get_window_extent()
    return box.height if text.get_rotation() % 180 else box.width


# A piece a line may break before: one CJK character (Chinese has no spaces between words) or
# one run of other non-space characters, each with the spaces in front of it.
_CJK = "\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
_PIECE = re.compile(f"\\s*(?:[{_CJK}]|[^\\s{_CJK}]+)")


def _pieces(paragraph: str) -> list[str]:
    """The paragraph's pieces, any run of spaces before one as a single space."""
    return [(" " if piece[0].isspace() else "") + piece.lstrip() for piece in _PIECE.findall(paragraph)]


def _fill(text: Text, pieces: list[str], length: float) -> list[str]:
    """Greedy lines of ``pieces``, each at most ``length`` pixels long when drawn as ``text``."""
    lines: list[str] = []
    for piece in pieces:
        text.set_text(lines[-1] + piece if lines else piece.lstrip())
        if not lines or _length(text) > length:
            lines.append(piece.lstrip())
        else:
            lines[-1] += piece
    return lines or [""]


def wrapped(text: Text, length: float) -> str:
    """The text in lines no longer than ``length`` pixels (as measured drawn), broken between
    words, or between two CJK characters. A line break stays where the line before it fits;
    after a line that had to be wrapped, its last piece flows on into the next line (a text
    already filled at too wide a width reflows)."""
    original, lines, carry = text.get_text(), [], []
    for paragraph in original.split("\n"):
        pieces = _pieces(paragraph)
        if carry and pieces and not re.match(f"[{_CJK}]", pieces[0]):
            pieces[0] = " " + pieces[0]
        filled = _fill(text, carry + pieces, length)
        lines += filled[:-1]
        carry = _pieces(filled[-1]) if len(filled) > 1 else []
        if not carry:
            lines.append(filled[-1])
    text.set_text(original)
    return "\n".join(lines + (["".join(carry).lstrip()] if carry else []))


def _room(text: Text, frame) -> float:
    """How long the text may be from where it is anchored, inside the figure."""
    box = text.get_window_extent()
    if text.get_rotation() % 180:           # a y label: centred on its Axes
        middle = (box.y0 + box.y1) / 2
        return 2 * min(middle - frame.y0, frame.y1 - middle) - 2 * EDGE
    align = text.get_horizontalalignment()
    x = {"left": box.x0, "right": box.x1}.get(align, (box.x0 + box.x1) / 2)
    return {"left": frame.x1 - EDGE - x, "right": x - frame.x0 - EDGE}.get(
        align, 2 * min(x - frame.x0, frame.x1 - x) - 2 * EDGE)


def _wrappable(fig: Figure) -> list[Text]:
    """Figure texts, titles, axis labels and notes marked ``WRAP`` (tick labels and other notes
    keep their lines)."""
    found = [t for f in all_figures(fig) for t in f.texts]
    for ax in all_axes(fig):
        found += [t for t in ax.get_children() if isinstance(t, Text) and t not in ax.texts]
        found += [t for t in ax.texts if (t.get_gid() or "").startswith(WRAP)]
        found += [ax.xaxis.label, ax.yaxis.label]
    return [t for t in found if t.get_visible() and t.get_text().strip()]


def wrap_texts(fig: Figure) -> bool:
    """Wrap each title, figure text and axis label that crosses the figure's edge to the length
    it has from where it is anchored. True if one changed (the layout must run again)."""
    frame, changed = fig.bbox, False
    for text in _wrappable(fig):
        box = text.get_window_extent()
        inside = (box.x0 >= frame.x0 + EDGE - TOLERANCE and box.x1 <= frame.x1 - EDGE + TOLERANCE
                  and box.y0 >= frame.y0 + EDGE - TOLERANCE and box.y1 <= frame.y1 - EDGE + TOLERANCE)
        if inside or text.get_rotation() % 90:
            continue
        new = wrapped(text, max(_room(text, frame), 1.0))
        if new != text.get_text():
            text.set_text(new)
            changed = True
    return changed


def _blocked(legend: Legend, ax: Axes) -> bool:
    """Does the legend, where it is now, cover a data point, a line, a bar or a note of its Axes?"""
    box = legend.get_window_extent()
    if crossed_lines(box, ax):
        return True
    if any(covers(box, p) for p in data_points(ax) if not p.clipped or ax.bbox.contains(p.x, p.y)):
        return True
    if any(overlap(box, d.box) for d in data_boxes(ax, None)):
        return True
    return any(overlap(box, t.get_window_extent()) for t in ax.texts if t.get_visible())


def _tops(ax: Axes, x0: float, x1: float) -> list[tuple[float, float]]:
    """(pixel height above the Axes' bottom that scales with the y range, pixels that do not)
    of every data point, bar and note between x0 and x1: a marker's radius and a note's offset
    stay the same when the y range grows."""
    bottom = ax.bbox.y0
    tops = [(p.y - bottom, p.radius) for p in data_points(ax)
            if x0 - p.radius <= p.x <= x1 + p.radius and ax.bbox.contains(p.x, p.y)]
    tops += [(d.box.y1 - bottom, 0.0) for d in data_boxes(ax, None) if d.box.x1 > x0 and d.box.x0 < x1]
    tops += [(y - bottom, 0.0) for y in line_heights(ax, x0, x1) if ax.bbox.y0 <= y <= ax.bbox.y1]
    for text in ax.texts:
        box = text.get_window_extent()
        if text.get_visible() and box.x1 > x0 and box.x0 < x1:
            anchor = text.get_transform().transform(text.get_position())[1] - bottom
            tops.append((anchor, box.y1 - bottom - anchor))
    return tops


def _raise_top(legend: Legend, ax: Axes) -> bool:
    """Room above the data: the y range grows (about 0, which keeps its place) until the
    legend, in an upper corner, is above every point, bar and note under it; linear y only, and
    the data keep at least MIN_DATA of the height. True if the range changed."""
    low, high = ax.get_ylim()
    if ax.get_yscale() != "linear" or high <= low:
        return False
    zero = 0.0 if low < 0 < high else low
    height, base = ax.bbox.height, (zero - low) / (high - low)
    best = None
    for corner in ("upper left", "upper right"):
        legend.set_loc(corner)
        box = legend.get_window_extent()
        limit = (box.y0 - ax.bbox.y0 - PAD) / height - base      # above `zero`, as a share
        needs = [(y / height - base) / (limit - r / height) if limit > r / height else math.inf
                 for y, r in _tops(ax, box.x0, box.x1)]
        scale = max([1.0, *needs])
        if scale <= 1 / MIN_DATA and (best is None or scale < best[1]):
            best = (corner, scale)
    if best is None or best[1] <= 1.0:
        return False
    legend.set_loc(best[0])
    ax.set_ylim(zero + (low - zero) * best[1], zero + (high - zero) * best[1])
    return True


def _rebuilt(legend: Legend, ax: Axes, ncols: int, anchor) -> Legend:
    """The same legend (handles, labels, title, frame, font) in ``ncols`` columns, under the
    anchor (a legend's columns are fixed when it is made: ``set_ncols`` does not re-lay it)."""
    texts = legend.get_texts()
    title = legend.get_title().get_text()
    return ax.legend(handles=legend.legend_handles, labels=[t.get_text() for t in texts],
                     loc="upper center", bbox_to_anchor=anchor, ncols=ncols,
                     fontsize=texts[0].get_fontsize() if texts else None,
                     frameon=legend.get_frame_on(), framealpha=legend.get_frame().get_alpha(),
                     title=title or None)


def _below(legend: Legend, ax: Axes) -> bool:
    """Under the Axes' tick labels and x label, centred, in as many columns as the figure's
    width holds there. True if that moved it (its place is kept in its gid)."""
    fig = ax.figure.figure               # the root Figure (an Axes in a subfigure too)
    decorations = ax.xaxis.get_tightbbox()
    drop = ax.bbox.y0 - (decorations.y0 if decorations is not None else ax.bbox.y0)
    drop_points = round(drop * 72 / fig.dpi + GAP_POINTS, 1)
    anchor = (0.5, 0)
    transform = offset_copy(ax.transAxes, fig=fig, y=-drop_points, units="points")
    centre = (ax.bbox.x0 + ax.bbox.x1) / 2
    room = 2 * min(centre - fig.bbox.x0, fig.bbox.x1 - centre) - 2 * EDGE   # centred under the Axes
    place, most = legend.get_gid(), max(len(legend.get_texts()), 1)
    for columns in range(most, 0, -1):
        candidate = _rebuilt(legend, ax, columns, anchor)
        candidate.set_bbox_to_anchor(anchor, transform=transform)
        if candidate.get_window_extent().width <= room:
            break
    candidate.set_gid(f"{FITTED}:{BELOW}|{columns}|{drop_points}")
    return candidate.get_gid() != place


def place_legends(fig: Figure) -> bool:
    """Each fitted legend in the first free corner; else in an upper corner with the y range
    raised to make room; else below its Axes. True if the layout must run again."""
    relayout = False
    for ax in all_axes(fig):
        legend = ax.get_legend()
        if legend is None or not (legend.get_gid() or "").startswith(f"{FITTED}:"):
            continue
        first = legend.get_gid().split(":", 1)[1].split("|")[0]
        if first == BELOW:
            relayout = _below(legend, ax) or relayout
            continue
        for corner in dict.fromkeys([first, *CORNERS]):
            legend.set_loc(corner)
            if not _blocked(legend, ax):
                break
        else:
            if not _raise_top(legend, ax):
                legend.set_gid(f"{FITTED}:{BELOW}")
                _below(legend, ax)
            relayout = True
    return relayout


def keep_notes_inside(fig: Figure) -> bool:
    """Raise the top of a linear y range until each note marked ``INSIDE`` (anchored at its
    data position, growing upwards) ends below the Axes' top. True if a range changed."""
    changed = False
    for ax in all_axes(fig):
        low, high = ax.get_ylim()
        if ax.get_yscale() != "linear" or high <= low:
            continue
        top = high
        for text in (t for t in ax.texts if (t.get_gid() or "").startswith(INSIDE) and t.get_visible()):
            box, frame = text.get_window_extent(), ax.bbox
            anchor = text.get_transform().transform(text.get_position())[1]
            room = frame.height - (box.y1 - anchor) - PAD      # pixels the anchor may rise to
            if box.y1 > frame.y1 - PAD + TOLERANCE and room > 0:
                value = text.get_position()[1]
                top = max(top, low + (value - low) * frame.height / room)
        if top > high:
            ax.set_ylim(low, top)
            changed = True
    return changed


class FittingLayout(ConstrainedLayoutEngine):
    """Constrained layout, then titles wrapped, notes kept inside and legends moved off the
    data (see above), the layout run again after each change."""

    def execute(self, fig: Figure):
        result = super().execute(fig)
        for _ in range(4):                  # each round only changes what still needs it
            changed = False
            if wrap_texts(fig) | keep_notes_inside(fig):
                result, changed = super().execute(fig), True
            if place_legends(fig):
                result, changed = super().execute(fig), True
            if not changed:
                break
        return result


def fitting(fig: Figure) -> Figure:
    """Give ``fig`` a FittingLayout if it uses plain constrained layout (its pads kept)."""
    engine = fig.get_layout_engine()
    if type(engine) is ConstrainedLayoutEngine:
        fig.set_layout_engine(FittingLayout(**engine.get()))
    return fig
