"""Does a figure show everything it draws? ``figure_problems(fig)`` draws it with Agg (at
``dpi``, e.g. the one it is saved at) and lists, one sentence each, what a viewer would miss: a
text (title, axis label, tick label, note) or a legend cut off by the figure's edge, a legend
over an Axes' plotting area (where the data are), two texts drawn over each other. The tests
run it on every figure the notebooks and the lab show.
"""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

TOLERANCE = 1.0                   # pixels: anti-aliasing and rounding, not a cut


def _overlap(a: Bbox, b: Bbox) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > TOLERANCE
            and min(a.y1, b.y1) - max(a.y0, b.y0) > TOLERANCE)


def _texts(fig: Figure) -> list[Text]:
    """Every text drawn outside a legend: figure texts, titles, labels, tick labels and notes."""
    found = list(fig.texts)
    for ax in fig.axes + [child for parent in fig.axes for child in parent.child_axes]:
        found += [t for t in ax.get_children() if isinstance(t, Text)]
        for axis in (ax.xaxis, ax.yaxis) if ax.axison else ():
            low, high = sorted(axis.get_view_interval())        # ticks beyond it are not drawn
            found += [axis.label] + [label for tick in axis.get_major_ticks()
                                     if low <= tick.get_loc() <= high for label in (tick.label1, tick.label2)]
    return [t for t in found if t.get_visible() and t.get_text().strip()]


def figure_problems(fig: Figure, dpi: float | None = None) -> list[str]:
    """[] when every text and legend lies inside the figure, no legend is over an Axes and no
    two texts overlap; else what is wrong."""
    saved = fig.dpi
    fig.set_dpi(dpi or saved)
    try:
        FigureCanvasAgg(fig).draw()
        texts = [(repr(" ".join(t.get_text().split())), t.get_window_extent()) for t in _texts(fig)]
        legends = [(f"legend {lg.get_texts()[0].get_text()!r}…", lg.get_window_extent())
                   for lg in fig.legends + [ax.get_legend() for ax in fig.axes] if lg is not None]
        frame = fig.bbox.padded(TOLERANCE)
        problems = [f"{what} is cut off by the figure's edge" for what, box in texts + legends
                    if not (frame.containsx(box.x0) and frame.containsx(box.x1)
                            and frame.containsy(box.y0) and frame.containsy(box.y1))]
        problems += [f"{what} is over axes {k}" for what, box in legends
                     for k, ax in enumerate(fig.axes, 1) if _overlap(box, ax.bbox)]
        return problems + [f"{a} overlaps {b}" for i, (a, one) in enumerate(texts)
                           for b, other in texts[i + 1:] if _overlap(one, other)]
    finally:
        fig.set_dpi(saved)
