"""The plots draw what they claim: one marker per stage that fired, the limit line, the refusal."""

import pytest

from compact.classroom.experiments import run_experiment
from compact.classroom.figures import write_figures
from compact.classroom.plot import headline, plot_composition, plot_context, plot_run, stage_markers


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("plots")
    runs = {n: run_experiment(n, workdir=root / f"e{n}") for n in (1, 2, 3)}
    runs["baseline"] = run_experiment(3, compaction=False, workdir=root / "b")
    return runs


def limit_lines(ax):
    return [line for line in ax.get_lines() if line.get_gid() == "limit"]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_one_marker_per_fired_stage_and_the_limit_line(runs, n):
    result = runs[n]
    ax = plot_context(result)
    expected = {}
    for event in result.events:
        if event.fired:
            expected[event.stage] = expected.get(event.stage, 0) + 1
    assert stage_markers(ax) == expected
    [limit] = limit_lines(ax)
    assert list(limit.get_ydata()) == [50_000, 50_000]
    labels = ax.get_legend_handles_labels()[1]
    assert "context_limit = 50,000 chars" in labels


def test_titles_say_what_happened(runs):
    assert headline(runs[1]) == "micro_compact: 3 old results are placeholders by turn 7"
    assert headline(runs[2]).startswith("tool_result_budget persisted 1 result(s) at turn 2")
    assert headline(runs[3]).startswith("compact_history at turn 3: ")
    assert headline(runs["baseline"]).startswith("No compaction: refused at turn 3 — prompt is too long")


def test_baseline_shows_the_refusal(runs):
    ax = plot_context(runs["baseline"])
    assert any(c.get_gid() == "refused" for c in ax.collections)
    assert stage_markers(ax) == {}


def test_composition_stacks_every_kind_present(runs):
    ax = plot_composition(runs[2])
    gids = {p.get_gid() for p in ax.patches}
    assert "kind:persisted previews" in gids and "kind:tool calls" in gids
    heights = {}
    for patch in ax.patches:
        x = round(patch.get_x() + patch.get_width() / 2)
        heights[x] = heights.get(x, 0) + patch.get_height()
    assert heights[2] == sum(runs[2].trace.turns[1].composition.values())


def test_plot_run_has_two_panels(runs):
    fig = plot_run(runs[3])
    assert len(fig.axes) >= 2


def test_figures_command_writes_pngs(tmp_path):
    paths = write_figures(tmp_path)
    assert [p.name for p in paths] == ["experiment1.png", "experiment2.png", "experiment3.png",
                                       "baseline.png"]
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000
