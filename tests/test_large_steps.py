"""The cache-friendly configuration: compaction in large steps, and the bounded, merged summary."""

import pytest
from histories import assistant, tool_turn, user
from hypothesis import given, settings
from hypothesis import strategies as st

from compact import Compactor, Limits, estimate_size, parse_compacted
from compact.extensions import ArchivingCompactor, BoundedSummaryCompactor, CacheFriendlyCompactor
from compact.extensions.bounded_summary import (
    LEFT_OUT_PREFIX,
    SUMMARY_HEADINGS,
    merge_summaries,
    summary_sections,
)
from compact.extensions.large_steps import unseen_start
from compact.pipeline.messages import pairing_problems, validate_history
from compact.pipeline.summary import SUMMARY_SYSTEM

STEPS = {"high_water_mark": 20_000, "low_water_mark": 5_000, "summary_max_chars": 2_000}


class ArchivingInSteps(CacheFriendlyCompactor, ArchivingCompactor):
    """The study's cache-friendly strategy: archiving, in large steps."""


def stepped(workdir, summarize, kind=CacheFriendlyCompactor, **changes):
    return kind(workdir, summarize=summarize, **{**STEPS, **changes})


def summary_of(messages: list) -> str:
    """A summariser that says what it was shown, in the headings the prompt asks for."""
    reads = [b["input"]["path"] for m in messages if m["role"] == "assistant"
             for b in m["content"] if b["type"] == "tool_use"]
    shown = [m["content"][:60] for m in messages if isinstance(m["content"], str)]
    constraints = [t for t in shown if "never" in t]
    return "\n".join(["Goal: " + (shown[-1] if shown else "not stated"), "Findings:",
                      *(f"Note [{p}]: read" for p in reads), "Files:",
                      *(f"- read_file {p}" for p in reads), "Remaining work: more",
                      "User constraints: " + ("; ".join(constraints) or "none stated")])


def grow(history: list, k: int, chars: int = 3_000) -> None:
    history += [*tool_turn([f"{k} " + "x" * chars], prefix=f"g{k}_"), assistant(f"noted {k}"),
                user(f"step {k + 1}")]


def test_the_core_knows_nothing_of_the_extension():
    assert not {"high_water_mark", "low_water_mark", "summary_max_chars"} & set(vars(Limits()))
    assert type(Compactor().functions["compact_history"]).__name__ == "function"   # the lesson's
    for heading in SUMMARY_HEADINGS:
        assert heading in SUMMARY_SYSTEM


@pytest.mark.parametrize(("kind", "changes", "words"), [
    (CacheFriendlyCompactor, dict(high_water_mark=10_000, low_water_mark=10_000), "low_water_mark"),
    (CacheFriendlyCompactor, dict(high_water_mark=10_000, low_water_mark=20_000), "low_water_mark"),
    (BoundedSummaryCompactor, dict(summary_max_chars=500), "summary_max_chars")])
def test_settings_that_cannot_work_are_refused(kind, changes, words):
    with pytest.raises(ValueError, match=words):
        kind(**changes)


def test_below_the_high_water_mark_nothing_is_rewritten(tmp_path):
    history = [user("go")]
    for k in range(4):
        grow(history, k)
    assert estimate_size(history) < STEPS["high_water_mark"]
    compactor = stepped(tmp_path, summary_of)
    assert compactor.prepare(history, "go") == history
    lesson = Compactor(tmp_path, Limits(context_limit=20_000), summarize=summary_of)
    assert lesson.prepare(history, "go") != history          # micro_compact nibbles at once


def test_prompts_only_grow_between_compaction_points(tmp_path):
    """Everything before the last compaction point is sent byte-identical until the next."""
    compactor = stepped(tmp_path, summary_of, ArchivingInSteps)
    history, previous, points = [user("never touch vendor/")], None, 0
    for k in range(40):
        grow(history, k)
        fired_before = len([e for e in compactor.events if e.fired])
        history[:] = compactor.prepare(history, "go")
        fired = [e for e in compactor.events[fired_before:] if e.fired]
        if fired:
            points += 1
            assert estimate_size(history) <= STEPS["low_water_mark"] + 4_000 or \
                fired[-1].stage == "compact_history"
        elif previous is not None:
            assert history[:len(previous)] == previous       # an append-only prompt
        previous = list(history)
        assert pairing_problems(history) == [] and history[0]["role"] == "user"
    assert points >= 3


def test_a_compaction_point_keeps_the_batch_the_model_has_not_read(tmp_path):
    history = [user("go")]
    for k in range(6):
        grow(history, k)
    history += tool_turn(["unread " + "u" * 4_000], prefix="new_")
    compactor = stepped(tmp_path, summary_of, high_water_mark=10_000)
    out = compactor.prepare(history, "go")
    assert out[-2:] == history[-2:]                          # the unseen call and its result
    assert parse_compacted(out[0]["content"]) is not None and len(out) == 3
    validate_history(out)
    assert unseen_start(history) == len(history) - 2
    assert unseen_start(history[:-2]) == len(history) - 2


def test_each_summary_covers_only_the_new_span(tmp_path):
    seen = []
    compactor = stepped(tmp_path, lambda m: seen.append(m) or summary_of(m))
    history = [user("never touch vendor/")]
    for k in range(30):
        grow(history, k)
        history[:] = compactor.prepare(history, "go")
    assert len(seen) >= 2
    for shown in seen[1:]:
        assert not any(parse_compacted(m["content"]) for m in shown
                       if isinstance(m["content"], str))     # the old summary is not re-read
    summaries = [e.extra["summary"] for e in compactor.events if e.stage == "compact_history"]
    assert all(len(s) <= STEPS["summary_max_chars"] for s in summaries)
    assert all("never touch vendor/" in s for s in summaries)  # a constraint is never dropped


def test_the_lessons_summary_grows_and_the_bounded_one_does_not(tmp_path):
    def sizes(build):
        compactor = build(lambda m: summary_of(m) + "\n" + _carried(m))
        history = [user("go")]
        for k in range(60):
            grow(history, k)
            history[:] = compactor.prepare(history, "go")
        return [len(e.extra["summary"]) for e in compactor.events if e.stage == "compact_history"]

    lesson = sizes(lambda s: Compactor(tmp_path / "lesson", Limits(context_limit=10_000), summarize=s))
    bounded = sizes(lambda s: stepped(tmp_path / "bounded", s))
    assert lesson[-1] > lesson[0] + 2_000                    # re-summarised, growing
    assert bounded[-1] <= bounded[0] + STEPS["summary_max_chars"]


def _carried(messages: list) -> str:
    """What a summariser that re-reads the old summary carries forward: all of it."""
    return "\n".join(str(parse_compacted(m["content"])[1]) for m in messages
                     if isinstance(m["content"], str) and parse_compacted(m["content"]))


LINES = st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1,
                         max_size=80), max_size=30)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(LINES, LINES, st.lists(st.sampled_from(["never edit vendor/", "only use sqlite"]),
                              max_size=2), st.integers(1_000, 6_000))
def test_merge_respects_the_cap_and_keeps_constraints(old, new, constraints, cap):
    def summary(notes):
        return "\n".join(["Goal: g", "Findings:", *(f"Note [f]: {n}" for n in notes),
                          "Files:", "- read_file a.py", "Remaining work: r",
                          "User constraints: " + ("; ".join(constraints) or "none stated")])

    merged = merge_summaries(summary(old), summary(new), ".transcripts/transcript-0002.jsonl", cap)
    assert len(merged) <= cap
    _, sections = summary_sections(merged)
    assert sections["User constraints"] == list(dict.fromkeys(constraints))
    kept = sections["Findings"]
    everything = list(dict.fromkeys(f"Note [f]: {n}".rstrip() for n in [*old, *new]))
    assert kept == everything[len(everything) - len(kept):]     # only the oldest left out
    if len(kept) < len(everything):                         # and a line says where they are
        assert f"{LEFT_OUT_PREFIX}{cap:,} chars" in merged
        assert "reference state saved in .transcripts/transcript-0002.jsonl]" in merged


def test_summaries_without_headings_merge_as_findings_and_nothing_new_keeps_one(tmp_path):
    merged = merge_summaries("plain old summary", "plain new summary", "t.jsonl", 0)
    assert summary_sections(merged)[1]["Findings"] == ["plain old summary", "plain new summary"]
    assert "Full transcript: t.jsonl" in merged                # no headings: merged as findings
    calls = []
    compactor = stepped(tmp_path, lambda m: calls.append(m) or summary_of(m))
    history = [user("never touch vendor/"), *tool_turn(["x" * 100]), assistant("done")]
    once = compactor.compact_history(history, "go")
    twice = compactor.compact_history(once, "go")              # the compact tool, called again
    assert len(calls) == 1                                     # no summary of nothing
    first, second = (parse_compacted(m[0]["content"])[1] for m in (once, twice))
    assert summary_sections(first)[1] == summary_sections(second)[1]
    assert "Full transcript: .transcripts/transcript-0002.jsonl" in second
