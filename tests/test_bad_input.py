"""Bad input: a clear HistoryError/StorageError naming the problem, and the list unchanged."""

import copy

import pytest
from histories import assistant, session, tool_turn, user

from compact import Compactor, HistoryError, StorageError


def with_result(content, prefix: str = "b") -> list:
    """A request, then a tool turn whose result holds ``content``."""
    turn = tool_turn(["x"], prefix)
    turn[1]["content"][0]["content"] = content
    return [user(), *turn]


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
@pytest.mark.parametrize("method", ["prepare", "tool_result_budget", "snip_compact",
                                    "micro_compact", "compact_history", "reactive_compact"])
def test_malformed_history_is_refused_unchanged(compactor, history, words, method):
    before = copy.deepcopy(history)
    call = getattr(compactor, method)
    args = (history, "task") if method in ("prepare", "compact_history", "reactive_compact") \
        else (history,)
    with pytest.raises(HistoryError, match=words):
        call(*args)
    assert history == before


def test_a_list_of_text_blocks_is_valid_tool_result_content(compactor):
    turns = [with_result([{"type": "text", "text": "y" * 500}], f"k{k}_")[1:] for k in range(5)]
    out = compactor.micro_compact([user(), *[m for turn in turns for m in turn], assistant()])
    assert out[2]["content"][0]["content"].startswith("[Earlier tool result compacted")


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
