"""The extensions: the cache-friendly configuration (compaction in large steps, and the bounded,
merged summary), and the size cache (exact under in-place edits; a turn serialises only what is new)."""

import copy
import math

import pytest
from conftest import fake_summary, make_files
from histories import assistant, examples, histories, session, tool_turn, user
from hypothesis import given
from hypothesis import strategies as st

from compact import (
    Compactor,
    HistoryError,
    Limits,
    Workspace,
    agent_loop,
    estimate_size,
    parse_compacted,
    summarizer_for,
    validate_history,
)
from compact.extensions import ArchivingCompactor, BoundedSummaryCompactor, CacheFriendlyCompactor
from compact.extensions.bounded_summary import (
    LEFT_OUT_PREFIX,
    SUMMARY_HEADINGS,
    merge_summaries,
    summary_sections,
)
from compact.extensions.large_steps import unseen_start
from compact.extensions.size_cache import SizeCache, size_cached, snapshot
from compact.offline import OfflineModel
from compact.pipeline import messages as messages_module
from compact.pipeline.messages import pairing_problems
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


@pytest.mark.parametrize(("kind", "changes", "words"), [
    (CacheFriendlyCompactor, dict(high_water_mark=10_000, low_water_mark=10_000), "low_water_mark"),
    (CacheFriendlyCompactor, dict(high_water_mark=10_000, low_water_mark=20_000), "low_water_mark"),
    (BoundedSummaryCompactor, dict(summary_max_chars=500), "summary_max_chars")])
def test_settings_that_cannot_work_are_refused(kind, changes, words):
    with pytest.raises(ValueError, match=words):
        kind(**changes)


def test_below_the_high_water_mark_nothing_is_rewritten_and_the_core_knows_nothing_of_it(tmp_path):
    history = [user("go")]
    for k in range(4):
        grow(history, k)
    assert estimate_size(history) < STEPS["high_water_mark"]
    compactor = stepped(tmp_path, summary_of)
    assert compactor.prepare(history, "go") == history
    lesson = Compactor(tmp_path, Limits(context_limit=20_000), summarize=summary_of)
    assert lesson.prepare(history, "go") != history          # micro_compact nibbles at once
    # the core knows nothing of the extension
    assert not {"high_water_mark", "low_water_mark", "summary_max_chars"} & set(vars(Limits()))
    assert type(Compactor().functions["compact_history"]).__name__ == "function"   # the lesson's
    assert all(heading in SUMMARY_SYSTEM for heading in SUMMARY_HEADINGS)


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


def test_each_summary_covers_only_the_new_span_the_lessons_grows_and_the_bounded_one_does_not(tmp_path):
    def summaries(build, seen):
        compactor = build(lambda m: seen.append(m) or summary_of(m) + "\n" + _carried(m))
        history = [user("never touch vendor/")]
        for k in range(60):
            grow(history, k)
            history[:] = compactor.prepare(history, "go")
        return [e.extra["summary"] for e in compactor.events if e.stage == "compact_history"]

    seen = []
    bounded = summaries(lambda s: stepped(tmp_path / "bounded", s), seen)
    assert len(seen) >= 2
    for shown in seen[1:]:
        assert not any(parse_compacted(m["content"]) for m in shown
                       if isinstance(m["content"], str))     # the old summary is not re-read
    assert all(len(s) <= STEPS["summary_max_chars"] for s in bounded)        # it does not grow
    assert all("never touch vendor/" in s for s in bounded)    # a constraint is never dropped
    lesson = summaries(lambda s: Compactor(tmp_path / "lesson", Limits(context_limit=10_000),
                                           summarize=s), [])
    assert len(lesson[-1]) > len(lesson[0]) + 2_000               # re-summarised, growing


def _carried(messages: list) -> str:
    """What a summariser that re-reads the old summary carries forward: all of it."""
    return "\n".join(str(parse_compacted(m["content"])[1]) for m in messages
                     if isinstance(m["content"], str) and parse_compacted(m["content"]))


LINES = st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1,
                         max_size=80), max_size=30)


@examples(300)
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


EDITS = ["text", "append_block", "drop_block", "input_number", "input_nested", "insert",
         "delete", "swap", "reorder_keys", "equal_copy", "nan", "negative_zero", "bad_bytes",
         "orphan", "role", "image", "result_image", "image_data"]


def edit(history: list, kind: str, at: int, value) -> None:
    """One in-place edit of the kind a caller might make between two turns."""
    if not history:
        return
    i = at % len(history)
    message = history[i]
    blocks = [b for m in history if isinstance(m.get("content"), list) for b in m["content"]]
    block = blocks[at % len(blocks)] if blocks else None
    if kind == "text":
        if isinstance(message["content"], str):
            message["content"] = message["content"] + str(value)
        else:
            block = message["content"][0]
            key = "text" if "text" in block else "content" if "content" in block else "id"
            block[key] = str(value) if key != "content" else str(value) * 3
    elif kind == "append_block" and isinstance(message["content"], list):
        message["content"].append({"type": "text", "text": str(value)})
    elif kind == "drop_block" and isinstance(message["content"], list) and message["content"]:
        message["content"].pop()
    elif kind in ("input_number", "input_nested", "nan", "negative_zero") and blocks:
        target = block.setdefault("input", {}) if block.get("type") == "tool_use" else block
        if kind == "input_number":     # 1 → True → 1.0: equal in Python, not in JSON
            old = target.get("limit", 1)
            target["limit"] = {int: True, bool: 1.0, float: 1}.get(type(old), 1)
        elif kind == "input_nested":
            target.setdefault("meta", {"tags": ["a"]})["tags"].append(str(value))
        elif kind == "nan":
            target["score"] = math.nan
        else:
            target["score"] = -0.0 if target.get("score") == 0.0 and \
                math.copysign(1, target.get("score", 1.0)) > 0 else 0.0
    elif kind == "insert":
        history.insert(i, user(str(value)))
    elif kind == "delete":
        del history[i]
    elif kind == "swap" and len(history) > 1:
        j = (i + 1) % len(history)
        history[i], history[j] = history[j], history[i]
    elif kind == "reorder_keys":
        history[i] = dict(reversed(list(message.items())))
    elif kind == "equal_copy":
        history[i] = copy.deepcopy(message)
    elif kind == "bad_bytes" and blocks:
        block["extra"] = b"raw"
    elif kind == "orphan":
        history.insert(i, {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "nobody", "content": "x"}]})
    elif kind == "role":
        message["role"] = "system"
    elif kind == "image":                 # an image counts as IMAGE_CHARS, not its base64
        history.insert(i, {"role": "user", "content": [
            {"type": "text", "text": str(value)},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgo" * (at % 50)}}]})
    elif kind == "result_image" and blocks and block.get("type") == "tool_result":
        block["content"] = [{"type": "text", "text": str(value)},
                            {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}]
    elif kind == "image_data":            # the base64 grows in place: the size must not move
        for m in history:
            for b in m["content"] if isinstance(m["content"], list) else []:
                if b.get("type") == "image" and "data" in b.get("source", {}):
                    b["source"]["data"] += "QUJD" * (at % 7 + 1)


def outcome(call, history):
    try:
        return call(history)
    except HistoryError:
        return "HistoryError"


def reference(history):
    validate_history(history)
    return estimate_size(history)


@examples(300)
@given(histories(max_turns=12),
       st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 10_000),
                          st.text(max_size=12)), max_size=6))
def test_cached_size_equals_estimate_size_under_in_place_edits(history, edits):
    cache = SizeCache()
    assert outcome(cache.measure, history) == outcome(reference, history)
    for kind, at, value in edits:
        edit(history, kind, at, value)
        assert outcome(cache.measure, history) == outcome(reference, history), kind
        history.append({"role": "assistant", "content": [{"type": "text", "text": "more"}]})
        assert outcome(cache.measure, history) == outcome(reference, history), kind


def test_a_snapshot_tells_apart_what_json_does_and_copies_only_plain_data():
    for before, after in ((1, True), (True, 1), (1, 1.0), (0.0, -0.0), (math.nan, math.nan)):
        message = {"role": "user", "content": [{"type": "text", "text": "t", "n": before}]}
        kept = snapshot(message)
        message["content"][0]["n"] = after
        same_json = messages_module.wire_json(before) == messages_module.wire_json(after)
        assert (kept == message) == same_json

    class Model:                                      # SDK objects and odd keys: never cached
        def model_dump(self, **_):
            return {"type": "text", "text": "typed"}

    assert snapshot({"role": "assistant", "content": [Model()]}) is None
    assert snapshot({"role": "user", "content": "x", 1: "y"}) is None
    assert snapshot({"role": "user", "content": ["a", {1, 2}]}) is None


def test_a_turn_serialises_only_the_new_messages(tmp_path, monkeypatch):
    """A caller that keeps its whole history: each prepare() serialises the two new messages
    and nothing else (counted, not timed)."""
    calls = []
    real = messages_module.wire_json
    monkeypatch.setattr(messages_module, "wire_json", lambda v: calls.append(v) or real(v))
    history = session([[f"result {k}"] for k in range(200)], "go")
    sizes = SizeCache()
    compactor = size_cached(Compactor(tmp_path, summarize=fake_summary, stages=()), sizes)
    compactor.prepare(history, "go")
    assert len(calls) == len(history)                  # the first time: each message once
    for k in range(5):
        calls.clear()
        history += tool_turn([f"new {k}"], prefix=f"n{k}_")
        compactor.measure(history)                     # what agent_loop measures first
        assert sizes.validated_from == len(history) - 2     # checks only the new
        sent = compactor.prepare(history, "go")
        compactor.measure(sent)                        # ... and what it sent
        assert calls == [[m] for m in history[-2:]]    # the two new messages, once each
        assert compactor.measure(history) == estimate_size(history)
    history.append({"role": "user", "content": [                     # an orphan added after measuring
        {"type": "tool_result", "tool_use_id": "nobody", "content": "x"}]})
    with pytest.raises(HistoryError, match="no matching tool_use"):
        compactor.prepare(history, "go")                            # measured again, refused


def test_agent_loop_trace_sizes_match_estimate_size_and_its_own_compactor_caches(tmp_path):
    root = make_files(tmp_path / "ws", {f"f{k}.md": f"# F{k}\n" + "text " * 3_000 for k in range(4)})
    history = [user("Read f0.md")]
    client = OfflineModel().client()
    compactor = Compactor(root, summarize=summarizer_for(client))
    seen = []
    for k in range(4):
        request = f"Read f{k}.md"
        if k:
            history.append(user(request))
        trace = agent_loop(history, request, client=client, compactor=compactor,
                           workspace=Workspace(root), log=lambda _: None)
        seen += [(t.size_sent, estimate_size(t.sent)) for t in trace.turns]
    assert all(a == b for a, b in seen) and len(seen) >= 4
    # with a size cache, a turn on a long kept history checks only the new messages (counted, not timed)
    history = [*session([[f"result {k}"] for k in range(300)], "go"), user("Say hello")]
    sizes = SizeCache()
    compactor = size_cached(Compactor(root, summarize=fake_summary, stages=()), sizes)
    trace = agent_loop(history, "Say hello", client=OfflineModel(window_tokens=10**7).client(),
                       compactor=compactor, workspace=Workspace(root), log=lambda _: None)
    assert len(trace.turns) == 1 and trace.answer
    assert sizes.serialised == len(trace.turns[0].sent)     # each message sent once, however often measured
