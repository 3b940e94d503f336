"""The lab's widgets driven in-process: buttons redraw the plot and listings, sliders set limits."""

import pytest

from compact.classroom.lab import Lab


@pytest.fixture
def lab(tmp_path):
    return Lab(root=tmp_path)


def press(lab, label_start):
    button = next(b for b in lab.buttons if b.description.startswith(label_start))
    button.click()
    return lab.result


def test_each_button_updates_plot_events_and_files(lab):
    seen_plots = set()
    expected = {"Experiment 1": ("micro_compact", None),
                "Experiment 2": ("tool_result_budget", ".task_outputs/tool-results/"),
                "Experiment 3": ("compact_history", ".transcripts/transcript-0001.jsonl"),
                "Baseline": ("refused", None)}
    for label, (stage, landed) in expected.items():
        result = press(lab, label)
        assert lab.plot.value[:8] == b"\x89PNG\r\n\x1a\n"
        assert lab.plot.value not in seen_plots               # the picture changed
        seen_plots.add(lab.plot.value)
        assert f"data-stage='{stage}'" in lab.events.value
        if landed:
            assert f"<li class='landed-file'>{landed}" in lab.files.value
        else:
            assert "<li>none</li>" in lab.files.value
        assert lab.turn.max == len(result.trace.turns) and not lab.turn.disabled
        assert all(not b.disabled for b in lab.buttons) and lab.progress.description == "done"
    assert len(lab.runs) == 4 and len({r.workdir for r in lab.runs}) == 4


def test_sliders_change_the_next_runs_limits(lab):
    lab.sliders["keep_recent_results"].value = 1
    lab.sliders["context_limit"].value = 100_000
    result = press(lab, "Experiment 1")
    assert result.limits.keep_recent_results == 1 and result.limits.context_limit == 100_000
    assert "kept the 1 newest" in lab.events.value
    lab.sliders["persist_threshold"].value = 100_000              # docs.json ~271k > 100k
    lab.sliders["max_messages"].value = 20
    assert press(lab, "Experiment 2").limits.persist_threshold == 100_000


def test_experiment_3_with_a_higher_limit_needs_no_summary(lab):
    lab.sliders["context_limit"].value = 200_000
    result = press(lab, "Experiment 3")
    assert "compact_history" not in result.fired
    assert "none fired" in lab.events.value


def test_turn_slider_inspects_the_messages_sent_at_that_turn(lab):
    result = press(lab, "Experiment 3")
    lab.turn.value = 3
    assert "Turn 3: 1 messages" in lab.inspector.value and "[Compacted]" in lab.inspector.value
    lab.turn.value = 1
    assert "Turn 1: 1 messages" in lab.inspector.value
    assert result.prompt[:40] in lab.inspector.value


def test_banner_says_offline_without_a_key(lab):
    assert "[offline] model offline-compact-1" in lab.status.value
