"""Stage 3: all but the 3 newest results, if over 120 chars, become the placeholder."""

from histories import assistant, session

from compact import PLACEHOLDER


def results(messages):
    return [b["content"] for m in messages if isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"]


def test_keeps_the_three_newest_and_replaces_older_long_ones(compactor):
    texts = ["1" * 500, "2" * 120, "3" * 121, "4" * 500, "5" * 500, "6" * 500]
    history = session([[t] for t in texts]) + [assistant("seen them")]
    out = results(compactor.micro_compact(history))
    assert out == [PLACEHOLDER, "2" * 120, PLACEHOLDER, "4" * 500, "5" * 500, "6" * 500]
    assert compactor.events[-1].placeholders == 2
    assert results(history) == texts               # the caller's list is untouched


def test_three_or_fewer_results_are_left_alone(compactor):
    history = session([["a" * 900]] * 3) + [assistant()]
    assert compactor.micro_compact(history) == history


def test_placeholder_is_stable(compactor):
    history = session([["x" * 300]] * 6) + [assistant()]
    once = compactor.micro_compact(history)
    assert compactor.micro_compact(once) == once
