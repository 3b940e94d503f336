"""Invariants of prepare() over generated histories (hypothesis, 2,000 examples each in CI)."""

import pytest
from conftest import fake_summary
from histories import SMALL, examples, histories, scratch
from hypothesis import given
from hypothesis import strategies as st

from compact import Compactor, Limits, estimate_size
from compact.pipeline.messages import pairing_problems, validate_history

CASES = given(histories(), st.sampled_from([SMALL, Limits()]))


def invariants(history: list, limits: Limits) -> None:
    """prepare() keeps pairs whole, starts with a user message, and a second run changes nothing;
    stages 1 to 3, one after the other, never grow the context and record the size they leave."""
    with scratch() as workdir:
        compactor = Compactor(workdir, limits, summarize=fake_summary)
        once = compactor.prepare(history, "task")
        written = len(compactor.events)
        assert pairing_problems(once) == [] and once[0]["role"] == "user"
        validate_history(once)
        assert compactor.prepare(once, "task") == once
        assert not any(e.fired for e in compactor.events[written:])
    with scratch() as workdir:
        messages, compactor = history, Compactor(workdir, limits)
        for stage in (compactor.tool_result_budget, compactor.snip_compact, compactor.micro_compact):
            out = stage(messages)
            assert estimate_size(out) <= estimate_size(messages)
            assert compactor.events[-1].size_after == estimate_size(out)
            messages = out


@examples(2_000)
@CASES
def test_prepare_and_stages_one_to_three_keep_their_invariants(history, limits):
    invariants(history, limits)


@pytest.mark.slow
@examples(3_000)
@CASES
def test_all_invariants_at_scale(history, limits):
    invariants(history, limits)
