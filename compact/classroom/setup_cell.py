"""The first code cell of every notebook: install the package when the kernel lacks it.

A notebook opened alone (Colab, a bare kernel, a JupyterHub image without the package) has
no ``compact`` to import. The cell finds the repository the notebook sits in, or clones it
from ``REPO_URL`` next to the notebook when there is none, and installs it with its ``lab``
extra into the kernel's own environment; where everything imports it does nothing. It never
installs JupyterLab or ipykernel: a hosted runtime keeps its own.

``python -m compact.classroom.setup_cell notebooks/`` inserts or refreshes the cell in every
notebook (right after the title cell) and rewrites a file only when the cell changed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# The public repository, the one place it is written (the notebooks carry a copy: re-run this
# module after changing it). Not published yet: until then a notebook opened alone needs
# COMPACT_REPO_URL set, which overrides it here and inside the cell.
REPO_URL = os.environ.get("COMPACT_REPO_URL", "https://github.com/YOUR-ORG/compact.git")
CELL_ID = "setup"
MARKER = "# Set-up: installs the compact package"

CELL = f'''{MARKER} when this kernel lacks it (Colab, a bare kernel); otherwise does nothing.
import importlib, importlib.util, os, site, subprocess, sys
from pathlib import Path

if not all(importlib.util.find_spec(m) for m in ("compact", "anthropic", "ipywidgets", "matplotlib")):
    here = Path.cwd()
    repo = next((p for p in (here, *here.parents) if (p / "compact" / "classroom").is_dir()), None)
    if repo is None:  # opened alone: clone the repository beside the notebook
        repo = here / "compact-course"
        if not repo.exists():
            url = os.environ.get("COMPACT_REPO_URL", "{REPO_URL}")
            if subprocess.run(["git", "clone", "--depth", "1", url, str(repo)],
                              env={{**os.environ, "GIT_TERMINAL_PROMPT": "0"}}).returncode:
                raise RuntimeError(f"could not clone {{url}}: set COMPACT_REPO_URL to the repository")
        os.chdir(repo / "notebooks")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", f"{{repo}}[lab]"], check=True)
    sys.path.insert(0, str(repo))  # this kernel sees the new install without a restart
    if os.path.isdir(site.getusersitepackages()):
        site.addsitedir(site.getusersitepackages())
    importlib.invalidate_caches()
    print(f"Installed compact from {{repo}}")
if "google.colab" in sys.modules:  # Colab shows ipywidgets 8 through its custom widget manager
    from google.colab import output
    output.enable_custom_widget_manager()'''


def cell() -> dict:
    """The canonical cell as a notebook JSON object (fixed id, so a refresh changes nothing)."""
    return {"cell_type": "code", "execution_count": None, "id": CELL_ID, "metadata": {},
            "outputs": [], "source": CELL.splitlines(keepends=True)}


def source(entry: dict) -> str:
    text = entry.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def with_setup_cell(nb: dict) -> dict:
    """The notebook with exactly one set-up cell, right after its first (title) cell."""
    cells = [c for c in nb["cells"]
             if not (c.get("cell_type") == "code" and source(c).startswith(MARKER))]
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
