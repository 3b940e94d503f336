"""The first code cell of every notebook: install the package when the kernel lacks it.

A notebook opened where ``compact`` does not import (Colab, a bare kernel, a JupyterHub image
without the package) installs it into the kernel's own environment: from the repository the
notebook sits in when there is one (an editable install, no address needed), else from the
repository's public address (``repository.py``); where everything imports, it does nothing.
It never installs JupyterLab or ipykernel: a hosted runtime keeps its own.

The cell is collapsed (``jupyter.source_hidden``; a Colab form, ``cellView``), so a reader sees
one line saying what it does. ``python -m tools.setup_cell notebooks/`` inserts or refreshes
it in every notebook (right after the title cell) and rewrites a file only when the cell
changed: run it again after setting the address.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .repository import repository_url

CELL_ID = "setup"
# The cell's first line, shown where the cell is collapsed (a Colab form shows it as a title).
MARKER = "#@title Set-up: installs the compact package"
OLD_MARKERS = (MARKER, "# Set-up: installs the compact package")      # found and replaced
IMPORTS = ("compact", "anthropic", "ipywidgets", "matplotlib", "filelock")
METADATA = {"cellView": "form", "jupyter": {"source_hidden": True}}


def cell_source(url: str | None) -> str:
    """The cell's code, with the repository's address (or none, while it is unset)."""
    return f'''{MARKER} if this kernel lacks it (Colab, a bare kernel); otherwise does nothing.
import importlib.util, os, site, subprocess, sys
from pathlib import Path

if not all(importlib.util.find_spec(m) for m in ({", ".join(json.dumps(m) for m in IMPORTS)})):
    here = Path.cwd().resolve()
    repo = next((p for p in (here, *here.parents) if (p / "compact" / "classroom").is_dir()), None)
    url = os.environ.get("COMPACT_REPO_URL", {json.dumps(url or "")})
    if repo is None and not url:
        raise RuntimeError("compact is not installed and this notebook is not in its repository: open "
                           "it from a clone of the repository, or set COMPACT_REPO_URL to its address")
    target = ["-e", f"{{repo}}[lab]"] if repo else [f"compact[lab] @ git+{{url}}"]
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *target], check=True)
    if repo:
        sys.path.insert(0, str(repo))  # this kernel sees the new install without a restart
    if os.path.isdir(site.getusersitepackages()):
        site.addsitedir(site.getusersitepackages())
    importlib.invalidate_caches()
    print(f"Installed compact from {{repo or url}}")
if "google.colab" in sys.modules:  # Colab shows ipywidgets 8 through its custom widget manager
    from google.colab import output
    output.enable_custom_widget_manager()'''


CELL = cell_source(repository_url())


def cell() -> dict:
    """The canonical cell as a notebook JSON object (fixed id, so a refresh changes nothing)."""
    return {"cell_type": "code", "execution_count": None, "id": CELL_ID, "metadata": METADATA,
            "outputs": [], "source": CELL.splitlines(keepends=True)}


def source(entry: dict) -> str:
    text = entry.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def with_setup_cell(nb: dict) -> dict:
    """The notebook with exactly one set-up cell, right after its first (title) cell."""
    cells = [c for c in nb["cells"]
             if not (c.get("cell_type") == "code" and source(c).startswith(OLD_MARKERS))]
    at = 1 if cells and cells[0].get("cell_type") == "markdown" else 0
    return {**nb, "cells": [*cells[:at], cell(), *cells[at:]]}


def refresh(path: str | Path) -> bool:
    """Insert or refresh the set-up cell in one notebook; True when the file changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    new = json.dumps(with_setup_cell(nb), sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "notebooks")
    notebooks = sorted(folder.glob("*.ipynb"))
    if not notebooks:
        print(f"no notebooks in {folder}", file=sys.stderr)
        return 1
    for path in notebooks:
        print(("refreshed " if refresh(path) else "unchanged ") + str(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
