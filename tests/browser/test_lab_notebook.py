"""06_lab in real JupyterLab + Chromium, on a 1280×720 projector, a 900 px window and in the dark
theme. One page for the module (Run All is most of the time): the tests run in order on it, and
each leaves the sliders at the lesson's numbers."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from itertools import combinations
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import expect

from compact.classroom.lab import SLIDERS

from .conftest import ARTIFACTS, failed
from .jupyterlab import open_notebook, painted, run_all_cells, run_once, save_screenshot, until

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]   # one worker: one Chromium

PROJECTOR = {"width": 1280, "height": 720}
LAPTOP = {"width": 900, "height": 700}
CASES = [  # button label, stage that must appear in the event list, file that must be listed
    # (after Run All the dashboard shows experiment 1: start elsewhere, so every click redraws)
    ("Experiment 2 · tool_result_budget", "tool_result_budget", ".task_outputs/tool-results/"),
    ("Experiment 3 · compact_history", "compact_history", ".transcripts/transcript-0001.jsonl"),
    ("Baseline · no compaction", "refused", None),
    ("Experiment 1 · micro_compact", "micro_compact", None),
]
EXPERIMENT_BUTTONS = [label for label, _stage, _file in CASES]
AXES = (("x", "width"), ("y", "height"))


def button(dashboard: Any, label: str) -> Any:
    return dashboard.locator("button.jupyter-widgets.widget-button", has_text=label).first


def box(locator: Any) -> dict[str, float]:
    found = locator.bounding_box()
    assert found, f"{locator} is not rendered"
    return found


def inside(a: dict[str, float], b: dict[str, float]) -> bool:
    return all(a[x] >= b[x] - 0.5 and a[x] + a[w] <= b[x] + b[w] + 0.5 for x, w in AXES)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return all(a[x] < b[x] + b[w] - 0.5 and b[x] < a[x] + a[w] - 0.5 for x, w in AXES)


def set_slider(dashboard: Any, name: str, value: int) -> None:
    """Type a value into a slider's readout, as a user can (ipywidgets 8 readouts are editable)."""
    slider = dashboard.locator(".widget-slider", has_text=name).first
    readout = slider.locator(".widget-readout")
    readout.click()
    readout.press("Control+a")
    readout.type(str(value))
    readout.press("Enter")
    expect(readout).to_have_text(f"{value:,}", timeout=10_000)


def click_and_wait(dashboard: Any, label: str) -> None:
    run_once(dashboard, label)
    expect(button(dashboard, label)).to_be_enabled(timeout=30_000)


def events(dashboard: Any, stage: str | None = None) -> Any:
    listed = dashboard.locator(".widget-html", has_text="Stage events").first
    return listed.locator(f"li[data-stage='{stage}']") if stage else listed


def choose_theme(page: Any, theme: str) -> None:
    """Settings → Theme → <theme>, as a user switches it (applies at once, no reload)."""
    page.locator("#jp-MainMenu .lm-MenuBar-item", has_text=re.compile(r"^\s*Settings\s*$")).click()
    page.locator(".lm-Menu-item", has_text=re.compile(r"^Theme$")).first.hover()
    page.locator(".lm-Menu-item", has_text=re.compile(rf"^{re.escape(theme)}$")).first.click()
    expected = "false" if "Dark" in theme else "true"
    page.wait_for_function(f"document.body.dataset.jpThemeLight === '{expected}'", timeout=10_000)


@pytest.fixture(scope="module")
def lab_page(chromium: Any, lab_server: Any) -> Iterator[tuple[Any, Any]]:
    context = chromium.new_context(viewport=PROJECTOR)
    page = context.new_page()
    try:
        open_notebook(page, lab_server, "06_lab.ipynb")      # a copy (conftest's lab_server)
        counts = run_all_cells(page)                          # every cell that runs ran, in order
        assert counts and counts[0] > 0 and counts == sorted(set(counts)), counts
        dashboard = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .compact-lab").first
        expect(dashboard.locator("img.compact-plot")).to_have_attribute(
            "src", re.compile(r"^(blob:|data:image/png)"), timeout=30_000)
        yield page, dashboard
    finally:
        context.close()


@pytest.fixture
def lab(lab_page: tuple[Any, Any], lab_server: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    page, dashboard = lab_page
    page.set_viewport_size(PROJECTOR)
    dashboard.evaluate("element => element.scrollIntoView({block: 'start'})")
    painted(page)
    yield dashboard
    if failed(request):
        save_screenshot(page, ARTIFACTS / f"{request.node.name}-failure.png")
        print(f"--- {lab_server.log_path} (tail)\n{lab_server.log_tail(40)}")
    if button(dashboard, "Lesson's numbers").is_enabled():
        button(dashboard, "Lesson's numbers").click()


def test_projector_shows_the_buttons_and_the_whole_plot_at_once(lab):
    page = lab.page
    expect(lab.locator(".widget-html", has_text="[offline] model offline-compact-1")).to_be_visible()
    # After Run All the plot is from a run with the numbers the sliders show (the lesson's).
    state = lab.locator(".lab-state").first
    expect(state).to_contain_text("experiment 1")
    expect(state).to_contain_text("the 3 newest results stay whole")
    expect(state).not_to_contain_text("changed")
    expect(lab.locator(".widget-slider", has_text="keep_recent_results").locator(".widget-readout")
           ).to_have_text("3")

    screen = {"x": 0, "y": 0, **PROJECTOR}
    notebook = box(page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer"))
    plot = lab.locator("img.compact-plot")
    for thing in [*(button(lab, label) for label in EXPERIMENT_BUTTONS), plot]:
        assert inside(box(thing), screen) and inside(box(thing), notebook), box(thing)
    save_screenshot(page, ARTIFACTS / "lab-1280x720.png")
    # Drawn at twice its CSS size: sharp on a high-DPI screen.
    natural, shown = plot.evaluate("img => [img.naturalWidth, img.clientWidth]")
    assert natural >= 2 * shown


def test_each_button_changes_the_plot_and_the_events(lab):
    plot = lab.locator("img.compact-plot")
    for label, stage, landed in CASES:
        before = plot.get_attribute("src")
        click_and_wait(lab, label)
        expect(plot).not_to_have_attribute("src", before, timeout=10_000)
        expect(plot).to_have_count(1)                         # redrawn in place, not appended
        expect(events(lab).locator(f"li.stage-event[data-stage='{stage}']").first).to_be_visible()
        lab.locator(".lm-TabBar-tab", has_text="Files").click()
        files = lab.locator(".widget-html", has_text="Files in .transcripts/").first
        if landed:
            expect(files.locator("li.landed-file", has_text=landed).first).to_be_visible()
        else:
            expect(files.locator("li.landed-file")).to_have_count(0)
        lab.locator(".lm-TabBar-tab", has_text="Stage events").click()
        name = label.split(" · ")[0].lower().replace(" ", "")
        save_screenshot(lab.page, ARTIFACTS / f"lab-{name}.png")


def test_a_failed_run_shows_its_error(lab):
    """A slider typed into reaches the next run (each slider's effect: tests/test_lab.py)."""
    set_slider(lab, "max_messages", 8)
    click_and_wait(lab, "Experiment 1")
    error = lab.locator(".lab-error", has_text="TurnLimitError").first
    expect(error).to_be_visible()
    expect(error).to_contain_text("did not finish within 40 turns")
    expect(events(lab, "error")).to_have_count(1)


def test_a_double_click_runs_once(lab):
    """The second click reaches the kernel during the run (ignored, and said: tests/test_lab.py) or
    never leaves the page, whose button the run has already disabled: one run, not two."""
    kept = lab.locator(".runs-kept").first
    count = int(re.search(r"(\d+) run folder", kept.inner_text()).group(1))
    button(lab, "Experiment 3").dblclick()
    state = lab.locator(".lab-state").first
    expect(state).to_contain_text("experiment 3 in", timeout=30_000)
    expect(kept).to_contain_text(f"{count + 1} run folder(s) kept")
    ignored = re.search(r"(\d+) click\(s\) during the run were ignored", state.inner_text())
    assert ignored is None or ignored.group(1) == "1"


def test_no_two_controls_overlap_at_900px(lab):
    lab.page.set_viewport_size(LAPTOP)
    painted(lab.page)
    controls = {f"button {i}": button(lab, label) for i, label in enumerate(EXPERIMENT_BUTTONS)}
    controls |= {name: lab.locator(".widget-slider", has_text=name).first for name in SLIDERS}
    controls |= {"progress": lab.locator(".widget-hprogress").first, "plot": lab.locator("img.compact-plot"),
                 "lesson's numbers": button(lab, "Lesson's numbers"), "tabs": lab.locator(".lm-TabBar").first}
    controls = {name: box(control) for name, control in controls.items()}
    overlapping = [(a, b) for (a, ba), (b, bb) in combinations(controls.items(), 2) if overlap(ba, bb)]
    assert overlapping == [], overlapping
    whole = box(lab)
    assert all(inside(b, whole) for b in controls.values())
    cut = lab.locator(".widget-slider .widget-readout, .widget-slider .widget-label").evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)")
    assert cut == []
    save_screenshot(lab.page, ARTIFACTS / "lab-900px.png")


def light_parts(shot: Image.Image) -> float:
    return sum(shot.histogram()[200:]) / (shot.width * shot.height)


def test_dark_theme_plot_is_not_a_white_rectangle(lab):
    choose_theme(lab.page, "JupyterLab Dark")
    try:
        plot = lab.locator("img.compact-plot")
        shot = until(lambda: light_parts(s := Image.open(io.BytesIO(plot.screenshot())).convert("L")) > 0.005
                     and s, 10, lambda: "the plot was not redrawn with light text on the dark theme")
        save_screenshot(lab.page, ARTIFACTS / "lab-dark.png")
    finally:
        choose_theme(lab.page, "JupyterLab Light")
    width, height = shot.size
    corners = [shot.getpixel((x, y)) for x in (3, width - 4) for y in (3, height - 4)]
    assert max(corners) < 80, corners                        # the background is dark
    assert sum(shot.histogram()[:80]) > 0.6 * width * height     # mostly dark, not a white box
    assert light_parts(shot) > 0.005                         # with light text and lines on it
