"""``make screenshots``: the READMEs' pictures of the lab (English and Chinese), from a clean run in
real JupyterLab.

A fresh server on a temporary copy of the notebooks (the tab reads ``06_lab.ipynb``), a
1280×720 window with the file browser closed, Run All, then experiment 3; the dashboard is
scrolled so its banner and first button are at the top. The stage events the page lists go to
``docs/generated/screenshot.json``: a test compares them with what the code gives now, so a
picture that no longer shows today's numbers fails (tests/test_docs.py). Notebook 06 holds the same
picture as a cell attachment (for a page without a kernel), palette-reduced: it is replaced too.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from PIL import Image
from playwright.sync_api import sync_playwright

from .jupyterlab import launch_chromium, open_notebook, painted, run_all_cells, run_once, start_lab

REPO = Path(__file__).resolve().parents[2]


LABELS = {"en": ("notebooks", "Experiment 3"), "zh": ("notebooks/zh", "实验三")}


def lab_screenshot(out: Path, shown: Path | None = None, lang: str = "en") -> Path:
    folder, button = LABELS[lang]
    with tempfile.TemporaryDirectory(prefix="compact-shots-") as tmp:
        root = Path(tmp) / "notebooks"
        shutil.copytree(REPO / folder, root, ignore=shutil.ignore_patterns("runs", ".ipynb*", "zh"))
        lab = start_lab(root, Path(tmp) / "state")
        try:
            with sync_playwright() as pw:
                browser = launch_chromium(pw, home=Path(tmp) / "chromium")
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                open_notebook(page, lab, "06_lab.ipynb")
                page.keyboard.press("Control+b")                  # close the file browser
                run_all_cells(page)
                dashboard = page.locator(".compact-lab").first
                run_once(dashboard, button)
                events = dashboard.locator("li.stage-event").all_text_contents()
                dashboard.evaluate("element => element.scrollIntoView({block: 'start'})")
                page.mouse.move(0, 0)                            # no hover highlight
                painted(page)
                out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(out))
                browser.close()
            if shown is not None:
                shown.parent.mkdir(parents=True, exist_ok=True)
                facts = {"image": out.name, "experiment": 3, "language": lang, "stage_events": events}
                shown.write_text(json.dumps(facts, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        finally:
            lab.stop()
    return out


def palette_png(png: Path) -> bytes:
    """``png`` reduced to 128 colours: notebook 06's copy of it (a test compares the two)."""
    buffer = io.BytesIO()
    Image.open(png).convert("RGB").quantize(colors=128).save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


def attach(png: Path, notebook: Path) -> None:
    """Replace notebook 06's attachment ``lab.png`` with ``png``'s palette copy."""
    nb = nbformat.read(notebook, as_version=4)
    cell = next(c for c in nb.cells if "lab.png" in c.get("attachments", {}))
    cell.attachments["lab.png"]["image/png"] = base64.b64encode(palette_png(png)).decode()
    nbformat.write(nb, notebook)


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
    for lang, suffix in (("en", ""), ("zh", ".zh")):
        shown = folder.parent / "generated" / f"screenshot{suffix}.json"
        print(lab_screenshot(folder / f"lab{suffix}.png", shown, lang))
        attach(folder / f"lab{suffix}.png", REPO / LABELS[lang][0] / "06_lab.ipynb")
