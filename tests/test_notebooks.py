"""The notebooks run top to bottom offline, are committed without outputs, and open with a title.

Every ``notebooks/*.ipynb`` is picked up automatically (sorted), so a new notebook is tested
as soon as it is added.
"""

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
PLOT_CALL = re.compile(r"\bplot_(?:run|context|composition)\(")


def code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


@pytest.fixture
def kernel_home(tmp_path, monkeypatch):
    """An offline environment whose Jupyter, IPython and matplotlib state lives in tmp_path."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    for name in ("JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR", "TMPDIR"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(name, str(folder))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    return cwd


def test_notebooks_are_found():
    assert len(NOTEBOOKS) >= 6, f"expected the notebook suite in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_offline(path, kernel_home):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(kernel_home)}})
    client.execute()        # raises CellExecutionError on the first failing cell
    outputs = [output for cell in code_cells(nb) for output in cell.outputs]
    assert [o for o in outputs if o.output_type == "error"] == []
    source = "\n".join(cell.source for cell in code_cells(nb))
    if PLOT_CALL.search(source):
        images = [o for o in outputs if "image/png" in o.get("data", {})]
        assert images, f"{path.name} draws a plot but showed no image"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for index, cell in enumerate(code_cells(nb)):
        assert cell.outputs == [], f"{path.name}: code cell {index} has outputs; clear them"
        assert cell.execution_count is None, f"{path.name}: code cell {index} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_with_a_title(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), \
        f"{path.name}: the first cell must be a markdown title starting with '# '"
