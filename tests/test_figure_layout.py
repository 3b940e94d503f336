"""What the docs show is what `make figures` draws and computes now (docs/img/ and
docs/generated/facts.json; the experiments are deterministic). Every figure the notebooks, the lab
and the README show, drawn as shown (the lab's at its size and 2× dpi, the README's at ``make
figures``' dpi, a notebook's at 100), has nothing cut off and no legend over its data; planted
figures show that ``figure_problems`` finds each kind of problem."""

from pathlib import Path

import pytest
from matplotlib.figure import Figure
from PIL import Image, ImageChops

from compact.classroom import lab
from compact.classroom.experiments import run_experiment
from compact.classroom.plot import PANELS, headline, plot_context, plot_run
from compact.classroom.stage_picture import plot_stage
from compact.classroom.strategy_plot import plot_costs, plot_retention
from compact.offline import OfflineModel
from compact.pipeline import STAGES
from compact.study.api_session import API_STRATEGIES, run_api_session
from compact.study.strategies import compare
from compact.study.workload import session_turns
from tools.figure_check import figure_problems
from tools.figures import DPI, clean_runs, stage_examples, write_figures

DOCS = Path(__file__).resolve().parent.parent / "docs"
NOTEBOOK_DPI = 100                       # matplotlib's figure.dpi: what an inline plot uses
LAB_DPI = lab.CSS_DPI * lab.PIXEL_RATIO
RUNS = ["experiment1", "experiment2", "experiment3", "baseline"]


def test_the_docs_figures_and_facts_are_current(tmp_path):
    written = write_figures(tmp_path / "img", tmp_path / "facts.json")
    assert [p.name for p in written] == ["experiment1.png", "experiment2.png", "experiment3.png",
                                         "baseline.png", *[f"stage-{stage}.png" for stage in STAGES]]
    for fresh in written:
        committed = Image.open(DOCS / "img" / fresh.name).convert("RGB")
        drawn = Image.open(fresh).convert("RGB")
        assert committed.size == drawn.size and ImageChops.difference(committed, drawn).getbbox() is None, \
            f"docs/img/{fresh.name} is stale: run `make figures`"
    fresh = (tmp_path / "facts.json").read_text(encoding="utf-8")
    assert (DOCS / "generated" / "facts.json").read_text(encoding="utf-8") == fresh, \
        "docs/generated/facts.json is stale: run `make figures`"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return clean_runs(tmp_path_factory.mktemp("layout"))


@pytest.fixture(scope="module")
def stages(tmp_path_factory):
    return stage_examples(tmp_path_factory.mktemp("stages"))


@pytest.mark.parametrize("name", RUNS)
def test_the_readme_plot_every_panel_and_the_labs_figure_of_each_run(runs, name):
    assert figure_problems(plot_run(runs[name]), dpi=DPI) == []
    assert figure_problems(plot_run(runs[name], panels=tuple(PANELS)), dpi=NOTEBOOK_DPI) == []
    fig = lab.lab_figure(runs[name])
    assert tuple(fig.get_size_inches()) == lab.FIGSIZE
    assert fig.axes[0].get_xlim() == fig.axes[1].get_xlim()          # one turn axis, as plot_run's
    assert figure_problems(fig, dpi=LAB_DPI) == []
    title = " ".join(fig.axes[0].get_title(loc="left").split())
    assert title == headline(runs[name])                 # every word is there, wrapped
    whole = {"baseline": "19,165 tokens > 16,000 maximum", "experiment2": "(278,002 → 2,847 chars)"}
    assert whole.get(name, "") in title                  # what issue 20 saw cut off
    failed = lab.lab_figure(runs[name], title=f"{name} failed after 2 turns: SummaryError")
    assert figure_problems(failed, dpi=LAB_DPI) == []    # the title of a failed run fits too



def test_a_long_refusal_title_wraps_clear_of_the_right_axis(tmp_path):
    """The API's other refusal (input + max_tokens over the window) makes a long title: broken to
    the Axes' width, not at the figure's edge over the chars ÷ 4 axis' tick labels."""
    tiny = OfflineModel(window_tokens=5_000)
    run = run_experiment(1, compaction=False, client=tiny, workdir=tmp_path)
    assert "exceed context limit" in run.error and ", decrease" not in headline(run)
    assert figure_problems(plot_run(run), dpi=NOTEBOOK_DPI) == []
    assert figure_problems(plot_run(run, panels=tuple(PANELS)), dpi=NOTEBOOK_DPI) == []

@pytest.mark.parametrize("stage", STAGES)
def test_the_stage_picture_of_each_stage(stages, stage):
    before, after, event = stages[stage]
    assert event.stage == stage and event.fired
    fig = plot_stage(before, after, event)
    assert figure_problems(fig, dpi=DPI) == []
    assert figure_problems(fig, dpi=NOTEBOOK_DPI) == []


def test_a_figure_of_ones_own_with_two_context_panels(tmp_path, runs):
    forgetful = run_experiment(1, workdir=tmp_path / "f", client=OfflineModel(take_notes=False))
    fig = Figure(figsize=(11, 10), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True, sharey=True)
    plot_context(runs["experiment1"], ax=top, title="with notes: no re-reads")
    plot_context(forgetful, ax=bottom, title=f"without notes: {forgetful.trace.rereads} re-reads")
    assert figure_problems(fig, dpi=NOTEBOOK_DPI) == []


def test_the_strategy_comparisons_figures_and_notebook_08s_four_api_strategies(tmp_path):
    """08's four lines, "both" on context editing's: a style of its own each, nothing cut off or covered."""
    reports = compare(tmp_path, turns=session_turns()[:12])
    assert figure_problems(plot_costs(reports), dpi=NOTEBOOK_DPI) == []
    assert figure_problems(plot_retention(reports).figure, dpi=NOTEBOOK_DPI) == []
    api = [run_api_session(s, workdir=tmp_path / str(k), turns=session_turns()[:12])
           for k, s in enumerate(API_STRATEGIES)]
    figure = plot_costs(api)
    assert figure_problems(figure, dpi=NOTEBOOK_DPI) == []
    lines = [line for line in figure.axes[0].get_lines() if str(line.get_gid()).startswith("strategy:")]
    assert len({(line.get_color(), line.get_linestyle(), line.get_marker()) for line in lines}) == 4


def test_the_check_finds_a_cut_off_title_and_label_a_legend_over_the_data_and_overlapping_texts():
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.set_title("a title far too long for a figure only four inches wide, cut off", loc="left")
    ax.set_ylabel("a y label longer than the axes is tall, by a lot")
    problems = figure_problems(fig)
    assert any(p.startswith("'a title far too long") and "cut off" in p for p in problems), problems
    assert any(p.startswith("'a y label longer") and "cut off" in p for p in problems), problems
    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1, 2], [10, 1, 1], marker="o", label="line")
    ax.legend(loc="upper left")
    ax.text(1, 2, "one note here")
    ax.text(1.05, 2, "another note")
    problems = figure_problems(fig)
    assert "legend 'line'… is over axes 1" in problems, problems
    assert any("'one note here' overlaps 'another note'" in p for p in problems), problems


def test_two_stage_pictures_in_a_narrow_figure_of_ones_own(stages):
    fig = Figure(figsize=(7, 9), layout="constrained")
    top, bottom = fig.subplots(2, 1)
    plot_stage(*stages["micro_compact"], ax=top)
    plot_stage(*stages["compact_history"], ax=bottom)
    assert figure_problems(fig, dpi=NOTEBOOK_DPI) == []
