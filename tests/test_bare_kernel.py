"""In a kernel with ipykernel alone, the lab notebook of a copy of the repository installs the
package from it through its first cell and runs to the end (slow: pip installs, from its cache)."""

import json
import subprocess
import venv
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from repo_copy import snapshot


def execute(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="bare",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def text_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


@pytest.mark.slow
def test_the_lab_notebook_installs_what_it_needs_in_a_bare_kernel(tmp_path, monkeypatch):
    clone = snapshot(tmp_path / "clone")
    env_dir = tmp_path / "bare"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", "-c", clone / "constraints.txt", "ipykernel"],
                   check=True, timeout=600)
    kernels = tmp_path / "jupyter" / "kernels" / "bare"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "bare", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    for name in ("IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_RUNTIME_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))

    def installed() -> set[str]:
        listed = subprocess.run([python, "-m", "pip", "list", "--format=json"], check=True,
                                capture_output=True, text=True).stdout
        return {p["name"].lower() for p in json.loads(listed)}

    assert not {"compact", "matplotlib", "ipywidgets", "jupyterlab"} & installed()

    notebook = clone / "notebooks" / "06_lab.ipynb"
    nb = execute(notebook)
    assert f"Installed compact from {clone}" in text_of(nb.cells[1])
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    assert any("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    have = installed()
    assert {"compact", "matplotlib", "ipywidgets", "anthropic"} <= have
    assert "jupyterlab" not in have                 # the cell never installs a frontend

    again = execute(notebook)                       # now installed: the cell does nothing
    assert again.cells[1].outputs == []
