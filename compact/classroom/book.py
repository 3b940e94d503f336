"""``make book``: a static site of the executed notebooks, plots included, for readers who do
not run them (publish the folder as it is, e.g. on GitHub Pages).

Each notebook is executed offline with nbclient in a scratch folder (its run folders land
there, not beside the notebooks) and exported with nbconvert's HTML exporter, images
embedded; ``index.html`` lists them by title. Widgets are live only with a kernel, so the
lab's page shows its static gallery: the same figures, drawn by the same functions.
nbconvert works offline with what the suite already installs; Jupyter Book 2 / mystmd would add
Node and a site theme (a template archive) to the set-up.
"""

from __future__ import annotations

import html
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter


def title_of(nb: nbformat.NotebookNode, fallback: str) -> str:
    first = nb.cells[0].source if nb.cells and nb.cells[0].cell_type == "markdown" else ""
    line = first.splitlines()[0] if first else ""
    return line.lstrip("# ").strip() or fallback


def execute(path: Path, scratch: Path, timeout: int = 600) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(scratch)}}).execute()
    return nb


def build(source: str | Path, out: str | Path) -> list[Path]:
    """Execute and export every notebook of ``source`` into ``out``; the pages written."""
    source, out = Path(source), Path(out)
    notebooks = sorted(source.glob("*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"no notebooks in {source}")
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab")
    os.environ.pop("ANTHROPIC_API_KEY", None)       # the book shows the offline runs
    pages, entries = [], []
    with tempfile.TemporaryDirectory(prefix="compact-book-") as scratch:
        for path in notebooks:
            started = time.perf_counter()
            work = Path(scratch) / path.stem
            work.mkdir()
            nb = execute(path, work)
            title = title_of(nb, path.stem)
            body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
            page = out / f"{path.stem}.html"
            page.write_text(body, encoding="utf-8")
            pages.append(page)
            entries.append((page.name, title))
            print(f"{page} ({time.perf_counter() - started:.1f} s)", flush=True)
    items = "".join(f"<li><a href='{html.escape(name)}'>{html.escape(title)}</a></li>"
                    for name, title in entries)
    index = out / "index.html"
    index.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>compact: the notebooks</title>"
        "</head><body style='font-family:sans-serif;max-width:50em;margin:2em auto'>"
        "<h1>compact — how a coding agent keeps its context window from overflowing</h1>"
        "<p>The notebooks of the suite, executed offline (the embedded offline model, not Claude), "
        f"with their outputs and plots.</p><ol>{items}</ol></body></html>\n", encoding="utf-8")
    return [index, *pages]


if __name__ == "__main__":
    args = sys.argv[1:]
    build(args[0] if args else "notebooks", args[1] if len(args) > 1 else "build/book")
