import atexit
import os
import shutil
import tempfile

import pytest

from compact import Compactor

os.environ.pop("ANTHROPIC_API_KEY", None)      # tests are offline unless a test says otherwise
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")   # litellm: no outside lookup
# Study sessions are remembered in a folder of this test run's own (compact/study/remembered.py):
# never the user's, so every number a test reads was replayed by this code in this run.
_STUDY_CACHE = tempfile.mkdtemp(prefix="compact-tests-study-")
os.environ["COMPACT_STUDY_CACHE"] = _STUDY_CACHE
atexit.register(shutil.rmtree, _STUDY_CACHE, ignore_errors=True)


def fake_summary(messages: list) -> str:
    return f"Goal: test. Findings: {len(messages)} messages were summarised."


@pytest.fixture
def compactor(tmp_path):
    return Compactor(tmp_path, summarize=fake_summary)
