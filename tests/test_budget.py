"""Stage 1 with the lesson's numbers: 200,000-char batch budget, 30,000 threshold, 2,000 preview."""

import copy

import pytest
from histories import session

from compact import Limits
from compact.classroom.exercises import run_case
from compact.classroom.stage_cases import cases
from compact.pipeline.compactor import LESSON_STAGES
from compact.pipeline.formats import persisted_path
from compact.pipeline.tool_result_budget import preview_of


def contents(messages):
    return [b["content"] for b in messages[-1]["content"]]


@pytest.mark.parametrize("case", cases("tool_result_budget"), ids=lambda c: c.name[:60])
def test_the_stages_own_cases(case, tmp_path):
    """The cases the notebook's exercise checks a learner's function against (stage_cases)."""
    outcome = run_case(case, LESSON_STAGES["tool_result_budget"], tmp_path)
    assert outcome.passed, outcome.message


def test_the_compactor_records_what_it_persisted(compactor, tmp_path):
    big = "B" * 150_000 + "end"
    history = session([["x" * 500], [big, "M" * 60_000]])
    before = copy.deepcopy(history)
    result = compactor.tool_result_budget(history)
    assert history == before                       # the caller's list is untouched
    path = persisted_path(contents(result)[0])
    assert "B" * 2_000 + "\n</persisted-output>" in contents(result)[0]
    assert "B" * 2_001 not in contents(result)[0]
    event = compactor.events[-1]
    assert event.fired and event.files_written == (path,) and event.placeholders == 1
    assert event.size_after < event.size_before - 140_000


def test_persisted_bytes_equal_the_original_unicode_text(compactor, tmp_path):
    text = "字😀e\u0301" * 70_000 + "\r\n"            # CJK, emoji, a combining accent, CRLF
    result = compactor.tool_result_budget(session([[text]]))
    path = persisted_path(contents(result)[0])
    assert (tmp_path / path).read_bytes() == text.encode("utf-8")


def test_preview_never_splits_a_combining_sequence():
    text = "a" * 1_999 + "e\u0301" + "z" * 10
    assert preview_of(text, 2_000) == "a" * 1_999      # not "…e" without its accent
    assert preview_of("abc", 2_000) == "abc"


def test_same_id_twice_never_overwrites(compactor, tmp_path):
    compactor.tool_result_budget(session([["1" * 250_000]]))
    second = compactor.tool_result_budget(session([["2" * 250_000]]))
    path = persisted_path(contents(second)[0])
    assert path == ".task_outputs/tool-results/t0_0.2.txt"
    assert (tmp_path / ".task_outputs/tool-results/t0_0.txt").read_text() == "1" * 250_000
    assert (tmp_path / path).read_text() == "2" * 250_000


def test_limits_are_the_lessons_numbers():
    limits = Limits()
    assert (limits.context_limit, limits.tool_result_budget, limits.persist_threshold,
            limits.preview_chars, limits.max_messages, limits.keep_head,
            limits.keep_recent_results, limits.min_compact_chars,
            limits.reactive_keep_messages, limits.max_reactive_retries) == (
        50_000, 200_000, 30_000, 2_000, 50, 3, 3, 120, 5, 1)


def test_preview_never_splits_emoji_sequences():
    family = "👩\u200d👩\u200d👧"                       # ZWJ sequence, 5 code points
    thumbs = "👍🏽"                                     # emoji + skin tone
    flag = "🇩🇪"                                       # two regional indicators
    heart = "❤\ufe0f"                                  # emoji + variation selector
    for unit in (family, thumbs, flag, heart):
        text = "a" * 10 + unit + "z"
        for chars in range(10, 10 + len(unit)):
            cut = preview_of(text, chars)
            assert cut == "a" * 10, (unit, chars, cut)   # the unit is kept whole or left out
        assert preview_of(text, 10 + len(unit)) == "a" * 10 + unit
    flags = "🇩🇪🇫🇷"
    assert preview_of(flags, 2) == "🇩🇪" and preview_of(flags, 3) == "🇩🇪"
