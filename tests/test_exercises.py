"""The "write it yourself" checker: right functions pass the stage's own cases, wrong ones are
reported failing, case by case, in words that say what was expected and what came back; and a
run with one of the three commonest mistakes (tests/planted.py) parts from the package's run."""

import copy
import dataclasses

import pytest
from planted import keeps_two, planted

from compact.classroom import as_written, run_experiment, solutions
from compact.classroom.exercises import MISTAKES, check, difference
from compact.classroom.stage_cases import CASES
from compact.offline.markers import PLACEHOLDER, V8_OMITTED
from compact.pipeline.compactor import LESSON_STAGES
from compact.pipeline.snip_compact import snip_compact
from compact.pipeline.tool_result_budget import persisted_text


@pytest.mark.parametrize("stage", list(CASES))
def test_worked_solutions_and_the_package_pass_every_case(stage):
    solution = getattr(solutions, stage)
    for fn in (solution, LESSON_STAGES[stage], lambda m, ctx: solution(m, ctx)):   # the last: "yours"
        report = check(stage, fn)
        assert report.passed, str(report)
        label = f"{stage}, the worked solution" if fn is solution else stage     # the headline says whose
        assert str(report).startswith(f"{label}: {len(CASES[stage])} of {len(CASES[stage])} cases pass")
        assert ("worked solution, not yours" in str(report)) == (fn is solution)


def test_every_stage_has_lesson_cases_and_a_signature():
    assert set(CASES) == set(LESSON_STAGES) == set(MISTAKES)
    for stage, stage_cases in CASES.items():
        assert sum(c.source == "lesson" for c in stage_cases) >= 3, stage
        assert all(c.source in ("lesson", "fix") for c in stage_cases)


def test_keeping_two_is_reported_failing_in_plain_words():
    """A wrong micro_compact's run parts from the package's: test_planted_notebooks.py[03]."""
    report = check("micro_compact", keeps_two)
    assert not report.passed
    assert report.failed[0] == ("all but the 3 newest results become the placeholder, if longer "
                                "than 120 chars")
    text = str(report)
    assert text.startswith("micro_compact: the lesson's 3 cases: 0 of 3 pass, 3 fail; ")   # clearly wrong
    assert "✗ [lesson] all but the 3 newest results" in text
    assert ("tool results changed (numbered oldest first): expected #1 → a placeholder, "
            "#3 → a placeholder; yours #1 → a placeholder, #3 → a placeholder, "
            "#4 → a placeholder") in text                     # the structure first
    assert "message 8, block 0: expected text of 500 chars, got a placeholder" in text
    assert "first difference at character 0:" in text
    assert text.count("all but the 3 newest results become") == 1    # each case once
    assert "✓ [fix] results the model has not seen yet" in text
    assert "✗" in report._repr_html_() and "expected" in report._repr_html_()


@pytest.mark.parametrize("stage, fn, fixes", [
    ("micro_compact", lambda m, ctx: as_written.micro_compact(copy.deepcopy(m)),
     ["has not seen yet", "keeps the path"]),
    ("snip_compact", lambda m, ctx: as_written.snip_compact(m, ctx.limits.max_messages),
     ["is not counted", "adds the old marker's count"])])
def test_the_lessons_snippets_fail_exactly_the_two_fixes(stage, fn, fixes):
    report = check(stage, fn)
    assert [c.source for c in CASES[stage] if c.name in report.failed] == ["fix", "fix"]
    assert all(any(words in name for name in report.failed) for words in fixes)
    if stage == "snip_compact":
        assert report.headline() == ("snip_compact: the lesson's 5 cases: all pass; "
                                     "the 2 fixes (beyond the lesson): 0 of 2")    # right on the lesson


def test_the_lessons_snip_counts_its_own_marker_as_a_message():
    chat = [{"role": "user" if k % 2 == 0 else "assistant", "content": f"m{k}"} for k in range(60)]
    once = as_written.snip_compact(chat)
    again = as_written.snip_compact(once + chat[:2])             # 12 messages gone by now
    assert once[3]["content"] == "[snipped 10 messages]" and once[4:] == chat[-47:]
    assert again[3]["content"] == "[snipped 3 messages]" and len(again) == 51   # the marker is one


def naive_snip(messages, ctx):                   # the cut without pair protection
    limits = ctx.limits
    if len(messages) <= limits.max_messages:
        return list(messages)
    gap = len(messages) - limits.max_messages
    return [*messages[:3], {"role": "user", "content": f"[snipped {gap} messages]"}, *messages[3 + gap:]]


def no_disk(messages, ctx):                      # the budget that forgets to write the file
    out = solutions.tool_result_budget(messages, ctx)
    for path in (ctx.workdir / ".task_outputs/tool-results").glob("*.txt"):
        path.unlink()
    return out


def stub(messages, ctx):
    raise NotImplementedError


def crashes(messages, ctx):
    return 1 / 0


@pytest.mark.parametrize("stage, fn, said", [
    ("micro_compact", lambda m, ctx: as_written.micro_compact(m), ["it changed the list it was given"]),
    ("snip_compact", lambda m, ctx: (snip_compact(m, ctx), None),
     ["it returned tuple", "not a list of messages"]),
    ("snip_compact", stub, ["not written yet (it raises NotImplementedError)"]),
    ("snip_compact", crashes, ["it raised ZeroDivisionError: division by zero (line", "of crashes)"]),
    ("snip_compact", lambda m, ctx: None, ["it returned NoneType, not a list of messages"]),
    ("tool_result_budget", no_disk,
     ["expected the full result saved at .task_outputs/tool-results/t1_0.txt; no such file"]),
    ("snip_compact", naive_snip, [
        "✗ [lesson] the head grows forward so a tool_use keeps its results",
        "kept from the input: the first 4 and the last 47 messages expected; yours kept the first 3 and the "
        "last 47 (message 3 holds tool results answering message 2",
        "message 3: expected blocks [tool_result], got a snip marker of 10 messages"]),
], ids=["changes-the-callers-list", "returns-a-pair", "not-written", "raises", "returns-none",
        "budget-writes-no-file", "snip-breaks-pairs"])
def test_a_wrong_function_is_reported_failing_not_raised(stage, fn, said):
    text = str(report := check(stage, fn))
    assert not report.passed
    for words in said:
        assert words in text, text


def test_bad_arguments_to_check_say_what_to_pass():
    with pytest.raises(ValueError, match="choose from"):
        check("mystery_stage", solutions.snip_compact)
    with pytest.raises(TypeError, match="snip_compact\\(messages, ctx\\)"):
        check("snip_compact", "not a function")
    with pytest.raises(TypeError, match=r"my_snip\(messages\) cannot be called as "
                                        r"snip_compact\(messages, ctx\) -> list"):
        check("snip_compact", my_snip)


def my_snip(messages):
    return messages


def test_difference_names_the_first_place_two_histories_differ():
    a = [{"role": "user", "content": "task"},
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                       "content": persisted_text("p.txt", "x" * 9, 3)}]}]
    b = copy.deepcopy(a)
    assert difference(a, b, a) is None
    b[1]["content"][0]["content"] = "short"
    found = difference(a, b, a)
    assert "expected none; yours #1 → text of 5 chars" in found
    assert "message 1, block 0: expected a persisted-output block" in found and "got text of 5 chars" in found
    assert "first difference at character 0:\n  expected …<persisted-output>" in found
    assert difference(a, a[:1], a).startswith("it returned 1 messages; 2 were expected")
    one = [{"role": "user", "content": PLACEHOLDER}]    # two placeholders that differ: one phrase for
    found = difference(one, [{"role": "user", "content": V8_OMITTED}], one)     # the kind, then where
    assert found.startswith("message 0: a placeholder in both, but they differ\n")
    assert "expected a placeholder, got a placeholder" not in found
    assert "first difference at character 21" in found


def test_the_lessons_known_pitfalls_are_named_first():
    """An unencoded summary, a cut between a tool pair, the wrong end kept (a changed input:
    test_a_wrong_function_is_reported_failing_not_raised)."""
    def unpaired(messages, ctx):
        limits = ctx.limits
        if len(messages) <= limits.max_messages:
            return list(messages)
        return [*messages[:3], {"role": "user", "content": "[snipped 1 messages]"},
                *messages[len(messages) - (limits.max_messages - 3):]]

    for stage, fn, named in [("compact_history", planted("04"), "json.dumps(summary"),
                             ("snip_compact", unpaired, "separates a tool_use from its tool_result"),
                             ("micro_compact", planted("03"), "keeps the oldest results whole")]:
        report = str(check(stage, fn, strict=False))
        assert "→ likely mistake: " in report, (stage, report)
        assert named in report, (stage, report)


def failing(stage, fn):
    report = check(stage, fn, strict=False)
    assert not report.passed
    return report, str(report)


def test_a_summary_not_json_encoded_is_named_and_changes_experiment_3(tmp_path):
    report, text = failing("compact_history", planted("04"))
    assert "the summary as a JSON string" in report.failed[0]
    assert "a summary that imitates a section header stays inside the JSON string" in report.failed
    assert not any("saved to .transcripts/" in name for name in report.failed)   # its transcript is right
    assert len(report.failed) == 2     # the request case judges the request section only, which is right
    assert "json.loads cannot read the Reference state" in text
    assert "first difference at character" in text
    mine = run_experiment(3, stages={"compact_history": planted("04")}, workdir=tmp_path / "mine")
    theirs = run_experiment(3, workdir=tmp_path / "theirs")
    found = mine.differences(theirs)      # turns 3 to 6 differ: three named, the fourth counted
    assert [line[:6] for line in found] == ["turn 3", "turn 4", "turn 5", "… and "], found
    assert found[3] == "… and 1 more turn(s) where the sizes differ"


def test_a_request_taken_from_the_history_fails_only_the_two_cases_that_judge_the_request():
    def last_user_text(messages, ctx):
        text = next(str(m["content"]) for m in reversed(messages) if m["role"] == "user")
        return solutions.compact_history(messages, dataclasses.replace(ctx, active_request=text))
    report, text = failing("compact_history", last_user_text)
    assert [name[:20] for name in report.failed] == ["the history becomes ", "the request comes fr"]
    assert "the Authoritative request section holds" in text


def test_a_reactive_tail_one_short_is_named():
    """Its run sends other messages: tests/test_planted_notebooks.py, notebook 05's check line."""
    report, text = failing("reactive_compact", planted("05"))
    assert report.failed[0].startswith("keeps the last 5 messages")
    assert "expected" in text
