"""06_lab in real JupyterLab + Chromium: click each experiment button, check what the page shows."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import ARTIFACTS, REPO_ROOT
from .jupyterlab import open_notebook, run_all_cells, save_screenshot

pytestmark = pytest.mark.browser

CASES = [  # button label, stage that must appear in the event list, file that must be listed
    ("Experiment 1 · micro_compact", "micro_compact", None),
    ("Experiment 2 · tool_result_budget", "tool_result_budget", ".task_outputs/tool-results/"),
    ("Experiment 3 · compact_history", "compact_history", ".transcripts/transcript-0001.jsonl"),
    ("Baseline · no compaction", "refused", None),
]


def test_lab_buttons_redraw_the_plot_and_list_stage_events(browser_page, lab_server):
    page = browser_page
    lab = lab_server(REPO_ROOT / "notebooks")
    open_notebook(page, lab, lab.copy_notebook("06_lab.ipynb"))
    counts = run_all_cells(page)
    assert counts and all(c > 0 for c in counts)

    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    banner = panel.locator(".widget-html", has_text="[offline] model offline-compact-1").first
    expect(banner).to_be_visible()
    plot = panel.locator("img.widget-image").first
    events = panel.locator(".widget-html", has_text="Stage events").first
    files = panel.locator(".widget-html", has_text="Files in .transcripts/").first
    # The "try it" cell already ran experiment 1 through lab.run(1): the plot exists.
    expect(plot).to_have_attribute("src", re.compile(r"^(blob:|data:image/png)"))

    for label, stage, landed in CASES:
        before = plot.get_attribute("src")
        button = panel.locator("button.jupyter-widgets.widget-button", has_text=label).first
        button.scroll_into_view_if_needed()
        button.click()
        expect(plot).not_to_have_attribute("src", before, timeout=30_000)
        expect(events.locator(f"li.stage-event[data-stage='{stage}']").first).to_be_visible()
        if landed:
            expect(files.locator("li.landed-file", has_text=landed).first).to_be_visible()
        else:
            expect(files.locator("li.landed-file")).to_have_count(0)
        expect(button).to_be_enabled()
        plot.scroll_into_view_if_needed()
        name = label.split(" · ")[0].lower().replace(" ", "")
        save_screenshot(page, ARTIFACTS / f"lab-{name}.png")
