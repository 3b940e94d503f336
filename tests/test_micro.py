"""Stage 3: all but the 3 newest results, if over 120 chars, become the placeholder."""

import pytest
from histories import assistant, session

from compact import PLACEHOLDER
from compact.classroom.exercises import run_case
from compact.classroom.stage_cases import cases
from compact.pipeline.compactor import LESSON_STAGES


def results(messages):
    return [b["content"] for m in messages if isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"]


@pytest.mark.parametrize("case", cases("micro_compact"), ids=lambda c: c.name[:60])
def test_the_stages_own_cases(case, tmp_path):
    """The cases the notebook's exercise checks a learner's function against (stage_cases)."""
    outcome = run_case(case, LESSON_STAGES["micro_compact"], tmp_path)
    assert outcome.passed, outcome.message


def test_the_compactor_counts_placeholders_and_leaves_the_input(compactor):
    texts = ["1" * 500, "2" * 120, "3" * 121, "4" * 500, "5" * 500, "6" * 500]
    history = session([[t] for t in texts]) + [assistant("seen them")]
    out = results(compactor.micro_compact(history))
    assert out == [PLACEHOLDER, "2" * 120, PLACEHOLDER, "4" * 500, "5" * 500, "6" * 500]
    assert compactor.events[-1].placeholders == 2
    assert results(history) == texts               # the caller's list is untouched
