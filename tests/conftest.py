import os

import pytest

from compact import Compactor

os.environ.pop("ANTHROPIC_API_KEY", None)      # tests are offline unless a test says otherwise
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")   # litellm: no outside lookup


def fake_summary(messages: list) -> str:
    return f"Goal: test. Findings: {len(messages)} messages were summarised."


@pytest.fixture
def compactor(tmp_path):
    return Compactor(tmp_path, summarize=fake_summary)
