"""A stage picture: the history as a strip of messages before and after one stage ran. A message
is a box split into its blocks, coloured by kind and as wide as its characters (at least
``MIN_SHARE`` of the strip); bands join what was kept, snipped or summarised to where it is after;
a new placeholder is hatched; an arrow leads from what went to disk to its file."""

from __future__ import annotations

import math
from copy import deepcopy
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Polygon, Rectangle

from ..pipeline import Compactor, StageEvent
from ..pipeline.compactor import SUMMARY_STAGES
from ..pipeline.formats import parse_compacted, snipped_count
from ..pipeline.messages import has_tool_use, is_tool_result_message, plain_text, to_plain
from ..pipeline.storage import TRANSCRIPT_DIR
from ..texts import say
from ..trace import composition
from .plot import KIND_COLOURS, MONOSPACE, RC, legend_below, panel, text_width
from .show import event_detail

MIN_SHARE = 0.008            # the narrowest box, as a share of the longer strip's characters
GAP_SHARE = 0.4              # the space between two messages, as a share of the narrowest box
ROWS = {"after": (0.0, 0.55), "before": (1.25, 0.55)}     # row → (bottom, height)
TOP = sum(ROWS["before"])    # the top of the before row
BAND = {"kept": ("#BBBBBB", 0.45), "snipped": (KIND_COLOURS["markers"], 0.35),
        "summarised": (KIND_COLOURS["summaries"], 0.3)}
DARK = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#999999"}     # white numbers on these
BOX_FONT = 11
PER_MESSAGE = 25             # a kept run this long or shorter gets a band per message


@dataclass(frozen=True)
class Box:               # one block of one message, as drawn: its place in the strip, in characters
    message: int
    block: int
    kind: str                  # a key of trace.KINDS
    chars: int
    x: float
    width: float
    placeholder: bool = False  # became a placeholder (before) or is a new one (after)
    to_disk: bool = False      # its full text went to disk


@dataclass(frozen=True)
class Band:              # messages before[b0:b1] became after[a0:a1]: kept, snipped or summarised
    how: str
    b0: int
    b1: int
    a0: int
    a1: int


def block_kinds(message: object) -> list[tuple[str, int]]:
    """(kind, chars) of each block of a message, as ``trace.composition`` counts them."""
    plain = to_plain(message)
    content = plain.get("content")
    found = []
    for block in content if isinstance(content, list) and content else [None]:
        counts = composition([plain if block is None else {**plain, "content": [block]}])
        kind = max(counts, key=counts.get) if any(counts.values()) else f"{plain.get('role', 'user')} text"
        found.append((kind, counts[kind]))
    return found


def bands(before: list, after: list, event: StageEvent | None = None) -> list[Band]:
    """How the messages before map to those after: from the event when it says (a summary, or
    snip_compact's gap), else read off the messages (a new summary or snip marker, or i is i)."""
    if not after:
        return []
    fired = event is not None and event.fired
    head = plain_text(after[0])
    if (fired and event.stage in SUMMARY_STAGES) or (
            event is None and parse_compacted(head) and (not before or plain_text(before[0]) != head)):
        return _summarised(len(before), len(after))
    if fired and {"head_end", "tail_start"} <= set(event.extra):
        return _snipped(len(before), len(after), event.extra["head_end"],
                        event.extra["tail_start"] - event.extra["head_end"])
    marker = next((i for i, m in enumerate(after) if snipped_count(m) is not None
                   and (i >= len(before) or before[i] != m)), None)
    if marker is None or len(after) >= len(before):
        return [Band("kept", 0, len(before), 0, len(after))]
    return _snipped(len(before), len(after), marker, len(before) - len(after) + 1)


def _summarised(before: int, after: int) -> list[Band]:
    cut = before - (after - 1)
    return [Band("summarised", 0, cut, 0, 1), *([Band("kept", cut, before, 1, after)] if after > 1 else [])]


def _snipped(before: int, after: int, start: int, gap: int) -> list[Band]:
    return [Band("kept", 0, start, 0, start), Band("snipped", start, start + gap, start, start + 1),
            Band("kept", start + gap, before, start + 1, after)]


def changes(before: list, after: list, found: list[Band]) -> tuple[set, set, set]:
    """(message, block) of the blocks that became placeholders (before, and after) and of those
    that went to disk (before), read off the kept messages."""
    old, new, disk = set(), set(), set()
    for band in (b for b in found if b.how == "kept" and b.b1 - b.b0 == b.a1 - b.a0):
        for offset in range(band.b1 - band.b0):
            i, k = band.b0 + offset, band.a0 + offset
            then, now = block_kinds(before[i]), block_kinds(after[k])
            for j, ((was, _), (became, _)) in enumerate(zip(then, now, strict=False)):
                if became == "placeholders" and was != "placeholders":
                    old.add((i, j))
                    new.add((k, j))
                if became == "persisted previews" and was != "persisted previews":
                    disk.add((i, j))
    return old, new, disk


def layout(messages: list, minimum: float, hatched: set, disk: set) -> tuple[list[Box], list]:
    """Each block's box along the strip, and each message's (start, end)."""
    boxes, extents, x = [], [], 0.0
    for i, message in enumerate(messages):
        start = x
        for j, (kind, chars) in enumerate(block_kinds(message)):
            width = max(float(chars), minimum)
            boxes.append(Box(i, j, kind, chars, x, width, (i, j) in hatched, (i, j) in disk))
            x += width
        extents.append((start, x))
        x += minimum * GAP_SHARE
    return boxes, extents


def _bracket(ax: Axes, span: tuple[float, float], rim: float, look: dict) -> None:
    """A bracket over ``span`` of the before row, its top at ``rim``."""
    ax.plot([span[0], span[0], span[1], span[1]], [TOP + 0.03, rim, rim, TOP + 0.03], **look)


def _draw_row(ax: Axes, row: str, boxes: list[Box], extents: list, points_per_char: float) -> bool:
    """The row's boxes; whether any box had room for its number of chars."""
    bottom, height, numbered = *ROWS[row], False
    for box in boxes:
        colour = KIND_COLOURS[box.kind]
        ax.add_patch(Rectangle((box.x, bottom), box.width, height, facecolor=colour,
                               edgecolor="white", linewidth=0.6, gid=f"{row}:{box.message}:{box.block}"))
        if box.placeholder:
            ax.add_patch(Rectangle((box.x, bottom), box.width, height, fill=False, hatch="///",
                                   edgecolor="#222222", linewidth=0, gid=f"{row}:placeholder"))
        label = f"{box.chars:,}"
        if box.width * points_per_char >= text_width(label, BOX_FONT) * 1.25 + 6:     # room to spare
            numbered = True
            behind = {"boxstyle": "round,pad=0.15", "facecolor": colour, "edgecolor": "none"}
            ax.text(box.x + box.width / 2, bottom + height / 2, label, ha="center", va="center",
                    fontsize=BOX_FONT, color="white" if colour in DARK else "black",
                    bbox=behind if box.placeholder else None)     # readable over the hatching
    for start, end in extents:
        ax.add_patch(Rectangle((start, bottom), end - start, height, fill=False,
                               edgecolor="black", linewidth=1.0, gid=f"{row}:message"))
    return numbered


def _pieces(band: Band) -> list[Band]:
    """A kept run of at most PER_MESSAGE messages as one band per message; any other as one band."""
    if band.how != "kept" or band.b1 - band.b0 > PER_MESSAGE:
        return [band]
    return [Band("kept", band.b0 + k, band.b0 + k + 1, band.a0 + k, band.a0 + k + 1)
            for k in range(band.b1 - band.b0)]


def _draw_bands(ax: Axes, found: list[Band], old: list, new: list, width: float) -> None:
    top = ROWS["after"][0] + ROWS["after"][1]
    low = ROWS["before"][0]
    changed = any(b.how != "kept" for b in found)
    for band in found:
        if band.b1 <= band.b0:
            continue
        colour, alpha = BAND[band.how]
        for piece in _pieces(band):
            b0, b1 = old[piece.b0][0], old[piece.b1 - 1][1]
            a0, a1 = new[piece.a0][0], new[piece.a1 - 1][1]
            ax.add_patch(Polygon([(b0, low), (b1, low), (a1, top), (a0, top)], closed=True,
                                 facecolor=colour, alpha=alpha, edgecolor="white", linewidth=0.8,
                                 gid=f"band:{band.how}"))
        b0, b1 = old[band.b0][0], old[band.b1 - 1][1]
        a0, a1 = new[band.a0][0], new[band.a1 - 1][1]
        if changed and (band.how != "kept" or b1 - b0 > 0.25 * width):
            middle = min(max((b0 + b1 + a0 + a1) / 4, 0.12 * width), 0.88 * width)
            ax.text(middle, (top + low) / 2, say(f"picture.{band.how}", count=band.b1 - band.b0),
                    ha="center", va="center", fontsize=12,
                    bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none"})


def _sources(event: StageEvent, boxes: list[Box], extents: list) -> list[tuple[float, float]]:
    """Where arrows to disk start, (from, to) along the strip: each persisted block, or the whole
    history for a transcript."""
    if any(path.startswith(TRANSCRIPT_DIR) for path in event.files_written) and extents:
        return [(extents[0][0], extents[-1][1])]
    return [(box.x, box.x + box.width) for box in boxes if box.to_disk]


def _draw_disk(ax: Axes, event: StageEvent, sources: list[tuple[float, float]], width: float) -> float:
    """The files written, above the strip, an arrow from a bracket over each source; the top used."""
    if not event.files_written or not sources:
        return TOP
    paths = list(event.files_written[:3])
    if len(event.files_written) > 3:
        paths.append(say("picture.more_files", count=len(event.files_written) - 3))
    middle = sum(a + b for a, b in sources) / (2 * len(sources))
    left = middle < width / 2
    x = max(middle - 0.03 * width, 0) if left else min(middle + 0.03 * width, width)
    y, rim = TOP + 0.5, TOP + 0.1
    ax.text(x, y, "\n".join([say("picture.disk"), *paths]), ha="left" if left else "right", va="bottom",
            multialignment="left", fontsize=12, family=MONOSPACE, gid="disk",
            bbox={"boxstyle": "round,pad=0.3", "facecolor": "#F5F5F5", "edgecolor": "#555555"})
    for start, end in sources:
        _bracket(ax, (start, end), rim, {"color": "#333333", "linewidth": 1.2, "gid": "disk bracket"})
        ax.annotate("", xy=((start + end) / 2, rim), xytext=(x, y), gid="to disk",
                    arrowprops={"arrowstyle": "<|-", "color": "#333333", "linewidth": 1.5})
    return y + 0.28 * (len(paths) + 1) + 0.1


def cut_pairs(before: list, event: StageEvent) -> list[tuple[int, int]]:
    """snip_compact's tool_use → tool_result pairs kept whole at its cuts, as indexes in ``before``."""
    if event.stage != "snip_compact" or not event.fired or "head_end" not in event.extra:
        return []
    head, tail = event.extra["head_end"], event.extra["tail_start"]
    found = [(i, i + 1) for i in (head - 2, tail) if 0 <= i < len(before) - 1
             and has_tool_use(before[i]) and is_tool_result_message(before[i + 1])]
    return [pair for pair in found if pair[1] < head or pair[0] >= tail]


def _draw_pairs(ax: Axes, pairs: list[tuple[int, int]], extents: list, width: float) -> float:
    """A bracket over each pair kept whole at a cut, one label above them; the top used."""
    rim = TOP + 0.12
    for use, result in pairs:
        _bracket(ax, (extents[use][0], extents[result][1]), rim,
                 {"color": "#CC79A7", "linewidth": 2.5, "gid": "pair"})
    if not pairs:
        return TOP
    middle = sum(extents[use][0] + extents[result][1] for use, result in pairs) / (2 * len(pairs))
    ax.text(min(max(middle, 0.25 * width), 0.75 * width), rim + 0.05, say("picture.pair"), ha="center",
            va="bottom", fontsize=11, color="#8E3D74", gid="pair label")
    return TOP + 0.45


def _scale_bar(ax: Axes, width: float, numbered: bool) -> None:
    target = 0.15 * width
    power = 10 ** math.floor(math.log10(max(target, 1)))
    chars = max(step * power for step in (1, 2, 5) if step * power <= max(target, 1))
    y = -0.3
    ax.plot([0, chars], [y, y], color="black", linewidth=4, solid_capstyle="butt", gid="scale")
    note = say("picture.scale" if numbered else "picture.scale_unnumbered",     # "numbers" only if drawn
               chars=int(chars))
    ax.text(chars + 0.01 * width, y, note, va="center", ha="left", fontsize=11, wrap=True)


def _title(event: StageEvent) -> str:
    key = "picture.title" if event.fired else "picture.not_fired"
    text = say(key, stage=event.stage, before=event.size_before, after=event.size_after,
                              count_before=event.messages_before, count_after=event.messages_after)
    detail = event_detail(event)
    return f"{text}\n{detail}" if detail else text


def _legend(ax: Axes, boxes: list[Box]) -> None:
    kinds = [k for k in KIND_COLOURS if any(b.kind == k for b in boxes)]
    handles = [Patch(facecolor=KIND_COLOURS[k], edgecolor="white", label=say(f"picture.kind.{k}"))
               for k in kinds]
    if any(b.placeholder for b in boxes):
        handles.append(Patch(facecolor="white", edgecolor="#222222", hatch="///",
                             label=say("picture.placeholder")))
    legend_below(ax, RC["legend.fontsize"] + 1, handles=handles, frameon=False)


def plot_stage(before: list, after: list, event: StageEvent, ax: Axes | None = None) -> Figure:
    """The picture of one stage, titled with its size change (``ax``: drawn into it)."""
    with panel(ax, 5.6) as ax:
        found = bands(before, after, event)
        old_marks, new_marks, disk = changes(before, after, found)
        total = max(sum(c for m in before for _, c in block_kinds(m)),
                    sum(c for m in after for _, c in block_kinds(m)), 1)
        minimum = MIN_SHARE * total
        old, old_extents = layout(before, minimum, old_marks, disk)
        new, new_extents = layout(after, minimum, new_marks, set())
        width = max(old_extents[-1][1] if old_extents else 1, new_extents[-1][1] if new_extents else 1)
        fig = ax.figure.figure                       # the root Figure (an Axes in a subfigure too)
        points_per_char = (ax.get_position().width * fig.get_figwidth() - 0.9) * 72 / width
        _draw_bands(ax, found, old_extents, new_extents, width)
        numbered = _draw_row(ax, "before", old, old_extents, points_per_char)
        numbered = _draw_row(ax, "after", new, new_extents, points_per_char) or numbered
        top = max(_draw_disk(ax, event, _sources(event, old, old_extents), width),
                  _draw_pairs(ax, cut_pairs(before, event), old_extents, width))
        _scale_bar(ax, width, numbered)
        ax.set_xlim(-0.01 * width, 1.01 * width)
        ax.set_ylim(-0.45, max(top, 2.0))
        ax.set_xticks([])
        ax.set_yticks([ROWS[r][0] + ROWS[r][1] / 2 for r in ("after", "before")],
                      [say(f"picture.{r}_one") if n == 1 else say(f"picture.{r}_many", count=n)
                       for r, n in (("after", len(after)), ("before", len(before)))])
        ax.tick_params(axis="y", length=0, labelsize=RC["ytick.labelsize"] + 1)
        ax.spines[:].set_visible(False)
        _legend(ax, old + new)
        ax.set_title(_title(event), loc="left", fontsize=RC["axes.titlesize"], wrap=True)
    return fig


def run_stage(compactor: Compactor, stage: str, messages: list, active_request: str = ""
              ) -> tuple[list, list, StageEvent]:
    """Run one stage of ``compactor``: (a copy of the messages before, the messages after, its event)."""
    before = deepcopy(messages)
    run = getattr(compactor, stage)
    after = run(messages, active_request) if stage in SUMMARY_STAGES else run(messages)
    return before, after, compactor.events[-1]


def run_picture(run: object, stage: str) -> Figure:
    """The stage picture of the (first) turn of ``run`` where ``stage`` saved the most characters."""
    fired = [(turn, event) for turn in run.trace.turns for event in turn.events
             if event.stage == stage and event.fired]
    if not fired:
        raise ValueError(f"{stage} did not fire in this run (it fired: {sorted(set(run.fired))})")
    turn, event = max(fired, key=lambda pair: pair[1].size_before - pair[1].size_after)
    return plot_stage(turn.before, turn.sent, event)
