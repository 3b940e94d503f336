"""Each write-it-yourself notebook run with a wrong stage (tests/planted.py) for the worked solution:
every cell still runs, no reveal explains a result the run did not give, and the check line on the
learner's own run says it differs from the package's (and nothing says it matched); a stage that
raises (the stub, not yet written) stops its run with a line that says so."""

import re

import nbformat
import pytest
from conftest import errors
from nbclient import NotebookClient
from planted import PLANTED
from test_notebooks import NOTEBOOK_DIR

MARKED = re.compile(r"^from compact\.classroom\.solutions import .*← .*$", re.M)
OUTCOME = re.compile(r"data-outcome='(\w+)'")
CHECKED = re.compile(r"data-check='(\w+)'")
CASES = [*sorted(PLANTED), "zh/03"]


@pytest.fixture
def kernel_home(tmp_path, monkeypatch):
    """An offline kernel whose Jupyter, IPython and matplotlib state lives in tmp_path."""
    monkeypatch.delenv("COMPACT_CHECK_CLAIMS", raising=False)       # a learner's run, not the suite's
    for name in ("JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR", "TMPDIR"):
        (tmp_path / name.lower()).mkdir()
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    (tmp_path / "cwd").mkdir()
    return tmp_path / "cwd"


def planted_notebook(case: str) -> nbformat.NotebookNode:
    folder, key = (NOTEBOOK_DIR / "zh", case[3:]) if case.startswith("zh/") else (NOTEBOOK_DIR, case)
    [path] = folder.glob(f"{key[:2]}_*.ipynb")
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and MARKED.search(c.source)]
    assert len(cells) == 1, f"{path.name}: one marked import line expected"
    cells[0].source = MARKED.sub(lambda _: PLANTED[key][1].strip(), cells[0].source)
    return nb


@pytest.mark.parametrize("case", CASES)
def test_a_wrong_stage_runs_to_the_end_and_every_reveal_follows_its_result(case, kernel_home):
    nb = planted_notebook(case)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(kernel_home)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert errors(nb.cells) == [], errors(nb.cells)
    shown = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "unexpected" not in OUTCOME.findall(shown), "a reveal does not explain what the wrong stage did"
    if case.endswith("-stub"):          # a stage that raises: a stopped run, said in words
        streams = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
        assert "[stopped] NotImplementedError" in streams and "same" not in CHECKED.findall(shown)
    else:
        assert CHECKED.findall(shown) == ["differs"], "the check line on your run should say it differs"
