"""The plots draw what they claim: one marker per stage that fired, the limit line, the refusal."""

from dataclasses import replace

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from compact import Compactor, Limits, Trace, agent_loop, summarizer_for
from compact.classroom.experiments import PROMPTS, run_experiment
from compact.classroom.plot import (
    RC,
    headline,
    plot_composition,
    plot_context,
    plot_messages,
    plot_run,
    plot_tokens,
    rescued_refusals,
)
from compact.demo import make_workspace
from compact.offline import OfflineModel


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("plots")
    runs = {n: run_experiment(n, workdir=root / f"e{n}") for n in (1, 2, 3)}
    runs["baseline"] = run_experiment(3, compaction=False, workdir=root / "b")
    return runs


def stage_markers(ax):
    """How many markers of each stage an Axes shows."""
    return {c.get_gid().split(":", 1)[1]: len(c.get_offsets()) for c in ax.collections
            if (c.get_gid() or "").startswith("stage:")}


def drawn(ax, gid):
    """The lines and collections of ``ax`` drawn with this gid."""
    return [a for a in [*ax.get_lines(), *ax.collections] if a.get_gid() == gid]


@pytest.mark.parametrize("n", [1, 2, 3, "baseline"])
def test_one_marker_per_fired_stage_the_limit_line_and_a_title_saying_what_happened(runs, n):
    result = runs[n]
    ax = plot_context(result)
    expected = {}
    for event in result.events:
        if event.fired:
            expected[event.stage] = expected.get(event.stage, 0) + 1
    assert stage_markers(ax) == expected
    [limit] = drawn(ax, "limit")
    assert list(limit.get_ydata()) == [50_000, 50_000]
    labels = ax.get_legend_handles_labels()[1]
    assert "context_limit = 50,000 chars" in labels
    title = {1: "micro_compact: 3 old results are placeholders by turn 7",
             2: "tool_result_budget persisted 1 result at turn 2", 3: "compact_history at turn 3: ",
             "baseline": "No compaction: refused at turn 3 — prompt is too long"}[n]
    assert headline(result).startswith(title)
    assert " ".join(ax.get_title(loc="left").split()) == headline(result)      # wrapped to the Axes
    assert n != 1 or headline(result) == title


def test_a_run_far_under_the_limit_can_be_drawn_at_its_own_scale(runs):
    """limit=False (experiment 1 in 03 and the lab): no line at 50,000, the limit in the legend,
    the y axis just above the largest size, so the cuts fill the panel; the default is unchanged."""
    result = runs[1]
    ax = plot_run(result, limit=False).axes[0]
    assert drawn(ax, "limit") == []
    assert "context_limit = 50,000 chars (far above: not drawn)" in ax.get_legend_handles_labels()[1]
    largest = max(t.size_before for t in result.trace.turns)
    assert largest < ax.get_ylim()[1] < 1.2 * largest < 50_000
    assert drawn(ax, "cut")
    default = plot_run(result).axes                 # context and composition
    assert len(default) >= 2 and len(drawn(default[0], "limit")) == 1
    with pytest.raises(ValueError, match="choose from"):
        plot_run(result, panels=("nonsense",))
    assert drawn(result.plot(limit=False).axes[0], "limit") == []       # the run's own plot, as in 03


def test_composition_stacks_every_kind_and_writes_the_number_of_placeholders_above_a_bar(runs):
    ax = plot_composition(runs[2])
    gids = {p.get_gid() for p in ax.patches}
    assert "kind:persisted previews" in gids and "kind:tool calls" in gids
    heights = {}
    for patch in ax.patches:
        x = round(patch.get_x() + patch.get_width() / 2)
        heights[x] = heights.get(x, 0) + patch.get_height()
    assert heights[2] == sum(runs[2].trace.turns[1].composition.values())
    assert not [t for t in ax.texts if t.get_gid() == "placeholder_count"]
    summaries = [p for p in plot_composition(runs[3]).patches if p.get_gid() == "kind:summaries"]
    assert summaries and all(p.get_y() == 0 for p in summaries)      # message 0: the bottom of its bar
    ax = plot_composition(runs[1])
    numbers = {round(t.xy[0]): int(t.get_text()) for t in ax.texts if t.get_gid() == "placeholder_count"}
    assert numbers == {t.turn: n for t in runs[1].trace.turns if (n := sum(
        1 for m in t.sent if isinstance(m["content"], list) for b in m["content"]
        if str(b.get("content", "")).startswith("[Earlier tool result compacted"))) > 0}
    assert numbers[len(runs[1].trace.turns)] == 3
    labels = ax.get_legend_handles_labels()[1]
    assert "placeholders (too thin to see: their number is above the bar)" in labels


def test_an_axes_made_outside_the_classroom_style_gets_its_fonts(runs):
    """The lab makes its own Figure (plain constrained layout, default fonts): the plot still
    uses the classroom sizes, and its legend lies under the Axes, off the data."""
    fig = Figure(figsize=(7.5, 6.2), layout="constrained")
    top, bottom = fig.subplots(2, 1)
    plot_context(runs[3], ax=top)
    plot_composition(runs[3], ax=bottom)
    fig.draw_without_rendering()
    for ax in (top, bottom):
        [title] = [t for t in ax.get_children() if isinstance(t, Text) and t not in ax.texts
                   and t.get_text() == ax.get_title(loc="left")]
        assert title.get_fontsize() == RC["axes.titlesize"]
        assert ax.yaxis.label.get_fontsize() == RC["axes.labelsize"]
        assert {t.get_fontsize() for t in ax.get_xticklabels()} == {RC["xtick.labelsize"]}
        assert ax.get_ylim()[0] < 0 < ax.get_ylim()[1]        # room under 0: no marker cut in half
        assert ax.get_legend().get_window_extent().y1 < ax.bbox.y0


def test_sizes_are_points_and_steps_not_slopes(runs):
    ax = plot_context(runs[3])
    lines = {line.get_gid(): line for line in ax.get_lines()}
    assert lines["size_sent"].get_drawstyle() == "steps-post"
    assert lines["size_before"].get_linestyle() == "None"          # markers only
    [cut] = drawn(ax, "cut")       # where the pipeline cut
    turn = next(t for t in runs[3].trace.turns if "compact_history" in t.stages)
    [(low, high)] = [sorted(seg[:, 1]) for seg in cut.get_segments()]
    assert (low, high) == (turn.size_sent, turn.size_before)


def test_the_baseline_shows_the_window_that_refused_it_not_the_char_limit(runs):
    baseline = runs["baseline"]
    sent, window = baseline.refused_tokens
    assert window == 16_000 and sent > window
    ax = plot_tokens(baseline)
    [line] = drawn(ax, "window")
    assert list(line.get_ydata()) == [window, window]
    [refused] = drawn(ax, "refused")
    assert refused.get_offsets().tolist() == [[len(baseline.trace.turns) + 1, sent]]
    [tokens] = drawn(ax, "tokens_sent")
    assert list(tokens.get_ydata()) == [t.input_tokens for t in baseline.trace.turns]
    assert ax.get_title(loc="left") == "What the model measures: tokens, against its window"
    no_window = plot_tokens(runs[3])         # compacted: no refusal, so no window line to title
    assert not drawn(no_window, "window")
    assert no_window.get_title(loc="left") == "What the model measures: tokens per request"
    ax = plot_context(baseline)
    assert drawn(ax, "refused") and stage_markers(ax) == {}
    [line] = drawn(ax, "window")
    assert list(line.get_ydata()) == [4 * window, 4 * window]      # where the right axis reads it
    labels = ax.get_legend_handles_labels()[1]
    assert f"refused: {sent:,} tokens > the model's window (not the char limit)" in labels
    assert f"the model's window = {window:,} tokens (right axis)" in labels
    top, tokens = plot_run(baseline, ("context", "tokens")).axes[:2]     # with a tokens panel: once, there
    assert not drawn(top, "window") and drawn(tokens, "window")
    top, bars = plot_run(baseline).axes[:2]           # one turn axis: the refused turn 3 under both panels
    assert top.get_xlim() == bars.get_xlim() == (0.5, len(baseline.trace.turns) + 1.5)
    [refused_bar] = [p for p in bars.patches if p.get_gid() == "refused"]     # drawn, not a gap at turn 3
    assert round(refused_bar.get_x() + refused_bar.get_width() / 2) == len(baseline.trace.turns) + 1
    assert refused_bar.get_height() > sum(baseline.trace.turns[-1].composition.values()) + 33_311  # + s09
    assert plot_composition(baseline).get_xlim() == bars.get_xlim()                  # alone too: not cut off
    assert not [p for p in plot_composition(runs[3]).patches if p.get_gid() == "refused"]



def test_a_trace_keeps_its_compactors_limits_and_its_plot_draws_those(runs):
    assert runs[3].trace.limits == runs[3].limits              # agent_loop records the compactor's
    trace = Trace(turns=runs[3].trace.turns, limits=Limits(context_limit=30_000))   # a bare trace
    [line] = drawn(plot_context(trace), "limit")
    assert list(line.get_ydata()) == [30_000, 30_000]

def session(folder, n: int, earlier: list[str], **model) -> Trace:
    """Experiment ``n``'s request after ``earlier`` texts (user and assistant in turn), offline."""
    ws, client = make_workspace(folder), OfflineModel(**model).client()
    messages = [{"role": "user" if k % 2 == 0 else "assistant", "content": text}
                for k, text in enumerate(earlier)] + [{"role": "user", "content": PROMPTS[n]}]
    return agent_loop(messages, PROMPTS[n], client=client, workspace=ws,
                      compactor=Compactor(ws, summarize=summarizer_for(client)), log=lambda _: None)


def test_a_refusal_the_run_survived_is_drawn_from_the_turns_record(tmp_path):
    chinese = ["上下文窗口有限。" * 150] * 8                  # notebook 05's Chinese session
    trace = session(tmp_path / "ws", 3, chinese, window_tokens=16_000)
    rescued = rescued_refusals(trace)
    [turn] = [t.turn for t in trace.turns if t.refused]
    assert [(t, w) for t, _, w in rescued] == [(turn, 16_000)] and rescued[0][1] > 16_000
    fig = plot_run(trace, ("context", "tokens"), window=16_000, refusals=True)
    top, tokens = fig.axes[0], fig.axes[-1]
    assert top.get_title(loc="left").startswith(f"turn {turn}: the request (")
    assert " ".join(top.get_title(loc="left").split()).endswith("was refused; reactive_compact rescued it")
    [refused] = drawn(tokens, "refused")
    assert refused.get_offsets().tolist() == [[turn, rescued[0][1]]]
    [line] = drawn(tokens, "window")
    assert list(line.get_ydata()) == [16_000, 16_000]
    assert plot_run(trace, ("context",)).axes[0].get_title(loc="left").startswith("compact_history")
    # the drop at the refused turn is reactive_compact's, not the pipeline's, and labelled so
    [reactive_cut] = drawn(top, "cut_reactive")
    refused_turn = trace.turns[turn - 1]
    [segment] = reactive_cut.get_segments()
    assert sorted(segment[:, 1]) == [refused_turn.size_sent, refused_turn.size_before]
    assert segment[0, 0] < turn                                  # beside its marker, not under it
    assert "cut by reactive_compact (after the refusal)" in top.get_legend_handles_labels()[1]
    [cut] = drawn(top, "cut")
    assert turn not in {round(seg[0, 0]) for seg in cut.get_segments()}


def test_the_messages_panel_is_about_snip_compact(tmp_path):
    trace = session(tmp_path / "ws", 1, [f"step {k}" for k in range(44)])
    ax = plot_messages(trace)
    assert ax.get_title(loc="left").startswith("snip_compact at turn(s) ")
    [limit] = drawn(ax, "max_messages")
    assert list(limit.get_ydata()) == [50, 50]
    fired = sum("snip_compact" in t.stages for t in trace.turns)
    assert fired > 0 and stage_markers(ax) == {"snip_compact": fired}
    [few] = drawn(ax, "stage:snip_compact")
    forty = Trace(turns=[replace(trace.turns[-1], turn=k) for k in range(1, 41)])
    [many] = drawn(plot_messages(forty), "stage:snip_compact")
    assert many.get_sizes()[0] < few.get_sizes()[0] / 2       # a 40-turn run: markers that do not pile up
    assert headline(trace, "tool_result_budget") == "tool_result_budget: did not fire in this run"


def test_an_empty_run_still_draws(recwarn):
    for draw in (plot_context, plot_tokens, plot_messages, plot_composition):
        ax = draw(Trace())
        assert ax.get_xlim() == (0.5, 1.5)
    assert [w for w in recwarn if "identical" in str(w.message)] == []
