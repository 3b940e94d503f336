"""Stage 2: more than 50 messages → first 3 + [snipped N messages] + last 47, pairs kept whole."""

import pytest
from histories import assistant, user

from compact.classroom.exercises import run_case
from compact.classroom.stage_cases import cases
from compact.pipeline.compactor import LESSON_STAGES
from compact.pipeline.validation import pairing_problems


def chat(n: int) -> list:
    """n messages alternating user/assistant text, numbered so we can see what was kept."""
    return [user(f"u{i}") if i % 2 == 0 else assistant(f"a{i}") for i in range(n)]


@pytest.mark.parametrize("case", cases("snip_compact"), ids=lambda c: c.name[:60])
def test_the_stages_own_cases(case, tmp_path):
    """The cases the notebook's exercise checks a learner's function against (stage_cases)."""
    outcome = run_case(case, LESSON_STAGES["snip_compact"], tmp_path)
    assert outcome.passed, outcome.message


def test_the_compactor_records_the_cut_and_leaves_the_input(compactor):
    history = chat(60)
    result = compactor.snip_compact(history)
    assert len(result) == 51 and len(history) == 60
    event = compactor.events[-1]
    assert event.fired and event.extra == {"head_end": 3, "tail_start": 13, "snipped": 10}
    assert pairing_problems(result) == []
    assert compactor.snip_compact(chat(50)) == chat(50) and not compactor.events[-1].fired
