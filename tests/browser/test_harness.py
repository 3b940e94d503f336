"""Prove the JupyterLab/Chromium harness on a throwaway widget notebook."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect

from .conftest import ARTIFACTS
from .jupyterlab import open_notebook, run_all_cells, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]   # one worker: one Chromium

WIDGET_CELL = """\
import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

out, button, label = widgets.Output(), widgets.Button(description="Draw"), widgets.HTML(value="clicks: 0")
clicks = [0]


def on_click(_):
    clicks[0] += 1
    with out:
        out.clear_output(wait=True)
        plt.figure(figsize=(4, 2.5))
        plt.plot(range(20), [x ** (1 + clicks[0] / 4) for x in range(20)], marker="o")
        plt.title(f"click {clicks[0]}")
        plt.show()
    label.value = f"clicks: {clicks[0]}"


button.on_click(on_click)
display(widgets.VBox([button, label, out]))
"""


def test_button_redraws_plot_in_output(lab_server, new_page, tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Harness demo\nA button that redraws a plot."),
                nbformat.v4.new_code_cell(WIDGET_CELL), nbformat.v4.new_code_cell('print("ready")'),
                nbformat.v4.new_code_cell("")]               # empty cells never get an execution count
    (tmp_path / "notebooks").mkdir()
    nbformat.write(nb, tmp_path / "notebooks" / "harness_demo.ipynb")
    lab = lab_server(tmp_path / "notebooks")        # start_lab checks it sees python3 and the widgets

    page = new_page()
    open_notebook(page, lab, lab.copy_notebook("harness_demo.ipynb"))
    assert run_all_cells(page) == [1, 2]
    expect(page.locator(".jp-OutputArea-output", has_text="ready")).to_be_visible()

    button = page.locator("button.jupyter-widgets.widget-button", has_text="Draw")
    label = page.locator(".widget-html", has_text="clicks:")
    image = page.locator(".widget-output img")
    expect(button).to_be_visible(timeout=30_000)
    expect(label).to_contain_text("clicks: 0")
    expect(image).to_have_count(0)

    button.click()
    expect(label).to_contain_text("clicks: 1", timeout=30_000)
    expect(image).to_have_count(1, timeout=30_000)
    first_src = image.get_attribute("src")
    assert first_src and first_src.startswith("data:image/png")

    button.click()
    expect(label).to_contain_text("clicks: 2", timeout=30_000)
    expect(image).to_have_count(1, timeout=30_000)  # clear_output: replaced, not appended
    expect(image).not_to_have_attribute("src", first_src, timeout=30_000)
    assert image.evaluate("img => img.complete && img.naturalWidth > 0")

    page.locator(".widget-output").first.scroll_into_view_if_needed()
    shot = save_screenshot(page, ARTIFACTS / "harness_demo.png")
    assert shot.stat().st_size > 10_000
