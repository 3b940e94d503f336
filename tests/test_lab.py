"""The lab's widgets driven in-process: buttons redraw the plot and listings, sliders set limits,
a failed run shows its error, a click during a run is ignored, each run has its own folder."""

import io

import pytest
from PIL import Image as PILImage

from compact import TurnLimitError
from compact.classroom.lab import CSS_WIDTH, PIXEL_RATIO, SLIDERS, Lab, run_folders

DOCS_JSON_CHARS = 271_391          # experiment 2's single tool result


@pytest.fixture
def lab(tmp_path):
    return Lab(root=tmp_path / "runs")


def press(lab, label_start):
    button = next(b for b in lab.buttons if b.description.startswith(label_start))
    button.click()
    lab.wait()
    return lab.result


def test_each_button_runs_its_experiment_shown_alone_in_a_folder_of_its_own(lab):
    """Its plot, stage events and landed files redrawn: browser/test_lab_notebook.py
    ::test_each_button_changes_the_plot_and_the_events."""
    assert not any(b.button_style for b in lab.buttons)       # nothing shown: none looks selected
    for label in ("Experiment 1", "Experiment 2", "Experiment 3", "Baseline"):
        result = press(lab, label)
        assert lab.turn.max == len(result.trace.turns) and not lab.turn.disabled
        assert all(not b.disabled for b in lab.buttons) and lab.progress.description == "done"
        assert label.lower().replace(" ", "") in result.workdir.name
        highlighted = [b.description for b in lab.buttons if b.button_style]
        assert len(highlighted) == 1 and highlighted[0].startswith(label)   # the run shown, only
    assert len(lab.runs) == 4 and len({r.workdir for r in lab.runs}) == 4
    assert run_folders(lab.root) == sorted(r.workdir for r in lab.runs)
    assert "4 run folder(s) kept" in lab.runs_kept.value


def test_the_plot_is_drawn_at_twice_its_css_size_and_the_turn_slider_inspects_each_turn(lab):
    result = press(lab, "Experiment 3")
    png = PILImage.open(io.BytesIO(lab.plot.value))
    width, height = png.size
    assert png.format == "PNG" and width == CSS_WIDTH * PIXEL_RATIO and height > width // 2
    corner = png.convert("RGB").getpixel((2, 2))
    assert corner == (255, 255, 255)       # dark in a dark theme: browser test_dark_theme_plot_is_not...
    lab.turn.value = 3
    assert "Turn 3: 1 messages" in lab.inspector.value and "[Compacted]" in lab.inspector.value
    lab.turn.value = 1
    assert "Turn 1: 1 messages" in lab.inspector.value
    assert result.prompt[:40] in lab.inspector.value


def test_sliders_change_the_next_runs_limits_and_the_texts_and_a_moved_one_is_noted(lab):
    press(lab, "Experiment 1")
    assert "changed" not in lab.state.value
    lab.sliders["keep_recent_results"].value = 5        # the plot is from other numbers now
    assert "The sliders have changed since (keep_recent_results)" in lab.state.value
    lab.sliders["keep_recent_results"].value = 3
    assert "changed" not in lab.state.value
    lab.sliders["keep_recent_results"].value = 1
    lab.sliders["context_limit"].value = 100_000
    result = press(lab, "Experiment 1")
    assert result.limits.keep_recent_results == 1 and result.limits.context_limit == 100_000
    assert "kept the 1 newest" in lab.events.value
    assert "the 1 newest results stay whole" in lab.state.value
    result = press(lab, "Experiment 3")
    assert "past 100,000 chars" in lab.events.value and "50,000" not in lab.events.value
    assert "compact_history" not in result.fired            # 74,458 chars stay under 100,000


def test_every_experiment_has_a_slider_that_changes_its_outcome(lab):
    assert SLIDERS["persist_threshold"][1] > DOCS_JSON_CHARS
    assert SLIDERS["tool_result_budget"][1] > DOCS_JSON_CHARS
    default = press(lab, "Experiment 2")
    assert default.fired == ["tool_result_budget"]
    lab.sliders["preview_chars"].value = 600
    small = press(lab, "Experiment 2")
    assert small.trace.turns[-1].size_sent < default.trace.turns[-1].size_sent - 1_000
    lab.sliders["tool_result_budget"].value = 300_000      # the whole file fits the budget
    over = press(lab, "Experiment 2")
    assert "tool_result_budget" not in over.fired and "compact_history" in over.fired
    assert "passes 300,000 chars" in lab.events.value
    lab.sliders["context_limit"].value = 200_000          # above the model's own window
    late = press(lab, "Experiment 3")
    assert "compact_history" not in late.fired and late.error.startswith("prompt is too long")


def test_a_failed_run_shows_its_error_and_the_next_run_works(lab):
    before = press(lab, "Experiment 1")
    lab.sliders["max_messages"].value = 8
    with pytest.raises(TurnLimitError):
        lab.run(1)
    assert "failed: TurnLimitError: the agent did not finish within 40 turns" in lab.state.value
    assert "data-stage='error'" in lab.events.value and lab.progress.bar_style == "danger"
    assert lab.result.trace.turns and lab.plot.value                  # the partial run is drawn
    still = lab.figure()                                              # and a cell can show it
    assert " ".join(still.axes[0].get_title(loc="left").split()) == lab.title     # wrapped to its width
    assert "TurnLimitError" in lab.title
    failed_folder = lab.result.workdir
    press(lab, "Experiment 1")                      # a button: shown, never raised
    assert "TurnLimitError" in lab.state.value and lab.result.workdir != failed_folder
    lab.sliders["max_messages"].value = 50
    again = press(lab, "Experiment 1")             # no FileExistsError after a failure
    assert lab.failure is None and again.answer == before.answer
    assert lab.progress.bar_style == "info" and "failed" not in lab.state.value
    assert len(run_folders(lab.root)) == 4


def test_a_click_during_a_run_is_ignored_and_says_so(lab):
    first, second = lab.buttons[2], lab.buttons[0]
    first.click()
    second.click()                                  # the first run is still going
    assert "the click on experiment 1 was ignored" in lab.state.value
    lab.wait()
    assert [r.n for r in lab.runs] == [3] and len(run_folders(lab.root)) == 1
    assert "1 click(s) during the run were ignored" in lab.state.value


def test_a_fresh_lab_without_a_kernel_shows_a_sentence_not_a_repr(lab):
    """It says offline: browser/test_lab_notebook.py::test_projector_shows_the_buttons..."""
    bundle = lab._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"].startswith("The lab's dashboard appears here when this cell runs")
    for slider in lab.sliders.values():
        slider.value = slider.max
    lab.reset.click()                               # the lesson's numbers button puts every slider back
    assert lab.limits == type(lab.limits)()
