"""Stage 1 with the lesson's numbers: 200,000-char batch budget, 30,000 threshold, 2,000 preview."""

import copy

from histories import session, user

from compact import Limits
from compact.pipeline.formats import persisted_path
from compact.pipeline.tool_result_budget import persisted_text, preview_of


def contents(messages):
    return [b["content"] for b in messages[-1]["content"]]


def test_largest_result_goes_to_disk_first_and_stops_under_budget(compactor, tmp_path):
    big, medium = "B" * 150_000 + "end", "M" * 60_000
    history = session([["x" * 500], [big, medium, "s" * 25_000, "t" * 10_000]])
    before = copy.deepcopy(history)

    result = compactor.tool_result_budget(history)

    assert history == before                       # the caller's list is untouched
    first, second, third, fourth = contents(result)
    path = persisted_path(first)
    assert path == ".task_outputs/tool-results/t1_0.txt"
    assert (tmp_path / path).read_text(encoding="utf-8") == big
    assert first == persisted_text(path, big, 2_000)
    assert "B" * 2_000 + "\n</persisted-output>" in first and "B" * 2_001 not in first
    assert second == medium                        # total now under 200,000: the rest stays
    assert (third, fourth) == ("s" * 25_000, "t" * 10_000)
    event = compactor.events[-1]
    assert event.fired and event.files_written == (path,) and event.placeholders == 1
    assert event.size_after < event.size_before - 140_000


def test_several_results_persisted_until_the_batch_fits(compactor, tmp_path):
    history = session([["A" * 90_000, "B" * 80_000, "C" * 70_000, "D" * 31_000, "E" * 29_000]])
    result = compactor.tool_result_budget(history)
    saved = [persisted_path(c) for c in contents(result)]
    # 300,000 total: A (→ 210,000+preview) and B (→ ~134,000) go; C, D, E stay.
    assert saved[:2] == [".task_outputs/tool-results/t0_0.txt", ".task_outputs/tool-results/t0_1.txt"]
    assert saved[2:] == [None, None, None]


def test_only_results_over_the_threshold_are_persisted(compactor, tmp_path):
    history = session([["q" * 29_999] * 8])               # 239,992 chars, none over 30,000
    assert compactor.tool_result_budget(history) == history
    assert not compactor.events[-1].fired
    assert not (tmp_path / ".task_outputs").exists()


def test_only_the_newest_batch_is_considered(compactor):
    history = session([["z" * 250_000]]) + [{"role": "assistant", "content": "seen"}, user("next")]
    assert compactor.tool_result_budget(history) == history


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
