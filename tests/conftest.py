import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from executed import executed as executed_in

from compact import Compactor, Limits, Workspace, agent_loop

os.environ.pop("ANTHROPIC_API_KEY", None)      # tests are offline unless a test says otherwise
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")   # litellm: no outside lookup
# A folder of this test run's own, shared by pytest-xdist's workers (they inherit the variable
# from the process that made it, which removes it at the end). In it, the study sessions are
# remembered (compact/study/remembered.py), never in the user's folder, so every number a test
# reads was replayed by this code in this run; and the notebooks are executed (tests/executed.py).
if "COMPACT_TESTS_RUN" not in os.environ:
    os.environ["COMPACT_TESTS_RUN"] = tempfile.mkdtemp(prefix="compact-tests-")
    atexit.register(shutil.rmtree, os.environ["COMPACT_TESTS_RUN"], ignore_errors=True)
RUN = Path(os.environ["COMPACT_TESTS_RUN"])
os.environ["COMPACT_STUDY_CACHE"] = str(RUN / "study")


def fake_summary(messages: list) -> str:
    return f"Goal: test. Findings: {len(messages)} messages were summarised."


def run_agent(messages: list, client, workspace, summarize=fake_summary, limits: Limits = Limits(),
              **options):
    """agent_loop, quiet, on the last message's request, compacting in the workspace's folder."""
    root = workspace.root if isinstance(workspace, Workspace) else workspace
    return agent_loop(messages, options.pop("request", messages[-1]["content"]), client=client,
                      workspace=workspace, compactor=Compactor(root, limits, summarize=summarize),
                      log=lambda line: None, **options)


# pytest-xdist (`--dist loadgroup`) hands the tests to its workers in collection order, each worker
# taking the next when it is done. The longest go first so that no worker is left with a long one
# at the end; the book goes last, when the notebook tests have executed every notebook it reads.
LONGEST_FIRST = ("tests/browser/", "tests/test_fuzz.py::test_fuzz_at_scale", "tests/test_properties.py",
                 "tests/test_bare_kernel.py", "tests/test_make_lab.py", "tests/test_docs.py",
                 "tests/test_notebooks.py::test_notebook_runs", "tests/test_planted_notebooks.py",
                 "tests/test_lab.py")
LAST = ("tests/test_book.py::test_the_book_of_a_fresh_clone",)


def run_order(item: pytest.Item) -> int:
    if item.nodeid.startswith(LAST):
        return len(LONGEST_FIRST) + 1
    return next((rank for rank, start in enumerate(LONGEST_FIRST) if item.nodeid.startswith(start)),
                len(LONGEST_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=run_order)           # stable: the same order within each rank


@pytest.fixture
def compactor(tmp_path):
    return Compactor(tmp_path, summarize=fake_summary)


@pytest.fixture(scope="session")
def executed():
    """``executed(path)``: the notebook as run once in this test session (tests/executed.py)."""
    (RUN / "notebooks").mkdir(exist_ok=True)
    return functools.partial(executed_in, shared=RUN / "notebooks")
