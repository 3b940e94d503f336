"""Bad input through every Compactor entry point: a malformed history is refused with a
HistoryError naming the problem, an unwritable folder with a StorageError; and, fuzzed with
generated histories (malformed ones included), only the documented ``CompactError`` subclasses
come out. The caller's list is never modified, whether the call fails or succeeds."""

from __future__ import annotations

import copy

import pytest
from conftest import fake_summary
from histories import SMALL, examples, histories, scratch, session, tool_turn, user
from hypothesis import given
from hypothesis import strategies as st

from compact import CompactError, Compactor, HistoryError, Limits, StorageError
from compact.extensions import ArchivingCompactor

JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                      st.text(max_size=20), st.binary(max_size=8))
JUNK = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8)
IDS = st.one_of(st.sampled_from(["t0_0", "../../x", "", "a\x00b", "CON", "字😀", "x" * 10_000]),
                st.text(max_size=12), JUNK)
ROLES = st.sampled_from(["user", "assistant", "system", "tool", "", None, 3])
TYPES = st.sampled_from(["text", "tool_use", "tool_result", "image", "", None, 7])


@st.composite
def junk_block(draw) -> object:
    if draw(st.integers(0, 5)) == 0:
        return draw(JUNK)
    block = {"type": draw(TYPES)}
    for key, value in (("text", st.one_of(st.text(max_size=200), JUNK)),
                       ("id", IDS), ("name", st.one_of(st.just("read_file"), JUNK)),
                       ("input", st.one_of(st.just({}), JUNK)), ("tool_use_id", IDS),
                       ("content", st.one_of(st.text(max_size=300), st.just("y" * 5_000),
                                             st.lists(st.fixed_dictionaries(
                                                 {"type": st.just("text"),
                                                  "text": st.text(max_size=50)}), max_size=2),
                                             JUNK))):
        if draw(st.booleans()):
            block[key] = draw(value)
    return block


@st.composite
def junk_message(draw) -> object:
    if draw(st.integers(0, 6)) == 0:
        return draw(JUNK)
    message = {"role": draw(ROLES)}
    if draw(st.integers(0, 6)):
        message["content"] = draw(st.one_of(st.text(max_size=100), st.lists(junk_block(), max_size=4),
                                            JUNK))
    return message


@st.composite
def mutated(draw) -> object:
    """A valid history with a few messages replaced, inserted, dropped or reshaped."""
    history = draw(histories(max_turns=12))
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["replace", "insert", "drop", "block", "top"]))
        at = draw(st.integers(0, max(len(history) - 1, 0)))
        if action == "replace" and history:
            history[at] = draw(junk_message())
        elif action == "insert":
            history.insert(at, draw(junk_message()))
        elif action == "drop" and history:
            del history[at]
        elif action == "block" and history and isinstance(history[at], dict) \
                and isinstance(history[at].get("content"), list):
            history[at]["content"].append(draw(junk_block()))
        elif action == "top":
            return draw(st.one_of(JUNK, st.just(tuple(history))))
    return history


HISTORIES = st.one_of(histories(max_turns=12), mutated(),
                      st.lists(junk_message(), max_size=6), JUNK)


def _raises(messages: list) -> str:
    raise RuntimeError("summariser down")


SUMMARIZERS = st.sampled_from([fake_summary, lambda m: "", _raises, lambda m: None])
METHODS = ["prepare", "tool_result_budget", "snip_compact", "micro_compact", "compact_history",
           "reactive_compact"]


def call(compactor: Compactor, method: str, history: object):
    args = (history, "task") if method in ("prepare", "compact_history", "reactive_compact") else (history,)
    return getattr(compactor, method)(*args)


def check(history: object, limits: Limits, summarize, method: str, archive: bool) -> None:
    before = copy.deepcopy(history)
    with scratch() as workdir:
        compactor = (ArchivingCompactor if archive else Compactor)(workdir, limits, summarize=summarize)
        try:
            call(compactor, method, history)
        except CompactError:
            pass                                # documented; anything else fails the test
    # never modified, failed or not (repr, not ==: a generated NaN is never equal to itself)
    assert repr(history) == repr(before)


def with_result(content) -> list:
    return [user(), *tool_turn([content], "b")]


@pytest.mark.parametrize(("history", "words"), [
    ("not a list", "must be a list"),
    ({"role": "user", "content": "hi"}, "must be a list"),
    ([user(), "hello"], "message 1 is a str"),
    ([{"role": "system", "content": "x"}], "role 'system'"),
    ([{"role": "tool", "content": "x"}], "role 'tool'"),
    ([{"role": "user", "content": 42}], "content of type int"),
    ([user(), {"role": "assistant", "content": [{"text": "no type"}]}], "has no 'type'"),
    (with_result(b"raw bytes"), "content of type bytes"),
    (with_result(None), "content of type NoneType"),
    (with_result([{"type": "image", "source": {}}]), "an image block needs a .source."),
    (with_result([{"type": "audio", "data": "x"}]), "content block 0 is a .audio."),
    ([user(), *tool_turn(["x"], "o")[1:]], "no matching tool_use"),
    ([user(), tool_turn(["x"], "o")[0], user("forgot the result")], "not answered"),
])
@pytest.mark.parametrize("method", METHODS)
def test_malformed_history_is_refused_unchanged(compactor, history, words, method):
    before = copy.deepcopy(history)
    with pytest.raises(HistoryError, match=words):
        call(compactor, method, history)
    assert history == before


def test_unwritable_workdir_is_a_storage_error_and_loses_nothing(tmp_path):
    # A regular file where the folder should be: unwritable even for root.
    (tmp_path / ".transcripts").write_text("not a folder")
    (tmp_path / ".task_outputs").write_text("not a folder")
    compactor = Compactor(tmp_path, summarize=lambda m: "s")
    history = session([["z" * 250_000]])
    before = copy.deepcopy(history)
    with pytest.raises(StorageError, match="cannot create the tool-results folder"):
        compactor.tool_result_budget(history)
    with pytest.raises(StorageError, match="cannot create the transcript folder"):
        compactor.compact_history(history, "task")
    assert history == before
    assert (tmp_path / ".transcripts").read_text() == "not a folder"


CASES = given(HISTORIES, st.sampled_from([SMALL, Limits()]), SUMMARIZERS, st.sampled_from(METHODS),
              st.booleans())


@examples(300)
@CASES
def test_fuzz_only_documented_errors_and_input_untouched(history, limits, summarize, method,
                                                         archive):
    check(history, limits, summarize, method, archive)


@pytest.mark.slow
@examples(3_000)
@CASES
def test_fuzz_at_scale(history, limits, summarize, method, archive):
    check(history, limits, summarize, method, archive)
