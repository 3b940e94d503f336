import atexit
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from filelock import FileLock
from nbclient import NotebookClient

from compact import Compactor, Limits, Workspace, agent_loop

os.environ.pop("ANTHROPIC_API_KEY", None)      # tests are offline unless a test says otherwise
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")   # litellm: no outside lookup
os.environ.pop("COMPACT_LANG", None)          # English unless a test chooses (texts.language)
# This run's own folder, shared by pytest-xdist's workers (they inherit the variable): the study
# sessions are remembered there (compact/study/remembered.py) and the notebooks executed there.
if "COMPACT_TESTS_RUN" not in os.environ:
    os.environ["COMPACT_TESTS_RUN"] = tempfile.mkdtemp(prefix="compact-tests-")
    atexit.register(shutil.rmtree, os.environ["COMPACT_TESTS_RUN"], ignore_errors=True)
RUN = Path(os.environ["COMPACT_TESTS_RUN"])
os.environ["COMPACT_STUDY_CACHE"] = str(RUN / "study")
NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"


def fake_summary(messages: list) -> str:
    return f"Goal: test. Findings: {len(messages)} messages were summarised."


def run_agent(messages: list, client, workspace, summarize=fake_summary, limits: Limits = Limits(),
              **options):
    """agent_loop, quiet, on the last message's request, compacting in the workspace's folder."""
    root = workspace.root if isinstance(workspace, Workspace) else workspace
    return agent_loop(messages, options.pop("request", messages[-1]["content"]), client=client,
                      workspace=workspace, compactor=Compactor(root, limits, summarize=summarize),
                      log=lambda line: None, **options)


# xdist (`--dist loadgroup`) hands out tests in collection order: the longest first, so no worker
# is left with a long one at the end; the book last, once the notebooks it reads were executed.
LONGEST_FIRST = ("tests/browser/", "tests/test_fuzz.py::test_fuzz_at_scale", "tests/test_properties.py",
                 "tests/test_bare_kernel.py", "tests/test_make_lab.py", "tests/test_docs.py",
                 "tests/test_notebooks.py::test_notebook_runs", "tests/test_planted_notebooks.py",
                 "tests/test_lab.py", "",          # "": every other test
                 "tests/test_book.py::test_the_book_of_a_fresh_clone")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    last = len(LONGEST_FIRST) - 1                 # stable: the same order within each rank
    items.sort(key=lambda item: last if item.nodeid.startswith(LONGEST_FIRST[last]) else next(
        rank for rank, start in enumerate(LONGEST_FIRST) if item.nodeid.startswith(start)))


@pytest.fixture
def compactor(tmp_path):
    return Compactor(tmp_path, summarize=fake_summary)


@dataclass
class Executed:
    notebook: nbformat.NotebookNode     # after Run All
    rerun_errors: list[str]             # what re-running each cell, last to first, raised
    made_runs: bool                     # runs/ beside the notebook holds a run folder


def errors(cells: list) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for cell in cells if cell.cell_type == "code"
            for o in cell.outputs if o.output_type == "error"]


def run(path: Path, home: Path) -> dict:
    """Run All in a fresh offline kernel, then every code cell again, last to first (a learner
    scrolling back up); its Jupyter, IPython and matplotlib state in ``home``, emptied first."""
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


@pytest.fixture(scope="session")
def executed():
    """``executed(path)``: the notebook as run once in this test session, shared by every test
    that reads it across xdist's workers: the first to ask runs it under a file lock."""
    (RUN / "notebooks").mkdir(exist_ok=True)

    def notebook(path: Path) -> Executed:
        home = RUN / "notebooks" / path.relative_to(NOTEBOOK_DIR).as_posix().replace("/", "_")
        saved = home.with_suffix(".json")
        with FileLock(f"{saved}.lock"):
            if not saved.exists():
                saved.write_text(json.dumps(run(path, home)), encoding="utf-8")
        data = json.loads(saved.read_text(encoding="utf-8"))
        return Executed(nbformat.reads(data["notebook"], 4), data["rerun_errors"], data["made_runs"])

    return notebook


@pytest.fixture(autouse=True)
def _language_of_started_programs_restored():
    """``language(code)`` also sets COMPACT_LANG for the programs it starts: undone after each test."""
    before = os.environ.get("COMPACT_LANG")
    yield
    os.environ.pop("COMPACT_LANG", None)
    if before is not None:
        os.environ["COMPACT_LANG"] = before


def make_files(root: Path, texts: dict[str, str]) -> Path:
    """``root`` (made if missing) holding each relative path's text, its folders made as needed."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root
