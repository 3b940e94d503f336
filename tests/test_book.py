"""`make book` builds the static site from a fresh clone: every notebook, executed, with its plots."""

import html
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from repo_copy import git, snapshot

from compact.classroom.book import title_of

VENV = Path(sys.executable).parent.parent
PLOT_CALL = re.compile(r"\bplot_(?:run|context|composition|strategies|cumulative)\w*\(|gallery\(")


@pytest.mark.slow
def test_make_book_from_a_fresh_clone(tmp_path):
    clone = snapshot(tmp_path / "clone")
    done = subprocess.run(["make", "--no-print-directory", f"VENV={VENV}", "-o", f"{VENV}/.suite",
                           "book"], cwd=clone, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    site = clone / "build" / "book"
    index = (site / "index.html").read_text(encoding="utf-8")
    notebooks = sorted((clone / "notebooks").glob("*.ipynb"))
    for path in notebooks:
        page = (site / f"{path.stem}.html").read_text(encoding="utf-8")
        nb = nbformat.read(path, as_version=4)
        assert f"href='{path.stem}.html'" in index and html.escape(title_of(nb, "")) in index
        assert page.count("class=\"jp-OutputArea-child") >= 1, f"{path.name} shows no outputs"
        crash = "Traceback (most recent call last)"      # (pygments CSS names Generic.Traceback)
        assert crash not in page, page[page.index(crash) - 1500:][:3000]
        images = page.count('src="data:image/png;base64,')
        source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        if PLOT_CALL.search(source):
            assert images >= 1, f"{path.name} draws plots but its page shows none"
    lab = (site / "06_lab.html").read_text(encoding="utf-8")
    assert lab.count('src="data:image/png;base64,') >= 4          # the gallery: every experiment
    assert "The lab's dashboard: run this cell" in lab             # not a VBox(...) repr
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""
