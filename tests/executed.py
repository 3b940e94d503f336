"""Each notebook executed once per test session, its result shared by every test that reads it
(tests/test_notebooks.py, the book in tests/test_book.py), across pytest-xdist's workers too: the
first test to ask runs it under a file lock and saves it; the others read what was saved.

One run is Run All in a fresh offline kernel (the notebook as a learner's first run leaves it),
then every code cell once more in the same kernel, last to first: each cell is re-run after all
the others have run, the order a learner scrolling back up re-runs them in.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from filelock import FileLock
from nbclient import NotebookClient

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"


@dataclass
class Executed:
    notebook: nbformat.NotebookNode     # after Run All
    rerun_errors: list[str]             # what re-running each cell, last to first, raised
    made_runs: bool                     # runs/ beside the notebook holds a run folder


def errors(cells: list) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for cell in cells if cell.cell_type == "code"
            for o in cell.outputs if o.output_type == "error"]


def run(path: Path, home: Path) -> dict:
    """Run the notebook offline, its Jupyter, IPython and matplotlib state in ``home`` (emptied
    first: a run stopped part-way, e.g. by pytest-timeout, leaves one behind)."""
    shutil.rmtree(home, ignore_errors=True)
    cwd = home / "cwd"
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True,
                            store_widget_state=False, resources={"metadata": {"path": str(cwd)}})
    with pytest.MonkeyPatch.context() as env:
        env.delenv("ANTHROPIC_API_KEY", raising=False)
        env.delenv("MPLBACKEND", raising=False)
        env.setenv("COMPACT_CHECK_CLAIMS", "1")          # reveal() and check() assert the claims
        for name in ("JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR", "TMPDIR"):
            (home / name.lower()).mkdir(parents=True)
            env.setenv(name, str(home / name.lower()))
        cwd.mkdir()
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
            first = nbformat.writes(nb)
            for index, cell in reversed(list(enumerate(nb.cells))):
                client.execute_cell(cell, index)
    runs = cwd / "runs"
    return {"notebook": first, "rerun_errors": errors(nb.cells),
            "made_runs": runs.is_dir() and any(runs.iterdir())}


def executed(path: Path, shared: Path) -> Executed:
    """``path`` as run once in this session; ``shared`` is the session's folder for them."""
    home = shared / path.relative_to(NOTEBOOK_DIR).as_posix().replace("/", "_")
    saved = home.with_suffix(".json")
    with FileLock(f"{saved}.lock"):
        if not saved.exists():
            saved.write_text(json.dumps(run(path, home)), encoding="utf-8")
    data = json.loads(saved.read_text(encoding="utf-8"))
    return Executed(nbformat.reads(data["notebook"], as_version=4), data["rerun_errors"], data["made_runs"])
