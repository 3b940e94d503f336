"""Stage 2: more than 50 messages → first 3 + [snipped N messages] + last 47, pairs kept whole."""

from histories import assistant, tool_turn, user

from compact.pipeline.formats import snipped_count
from compact.pipeline.messages import pairing_problems


def chat(n: int) -> list:
    """n messages alternating user/assistant text, numbered so we can see what was kept."""
    return [user(f"u{i}") if i % 2 == 0 else assistant(f"a{i}") for i in range(n)]


def test_keeps_three_marker_and_forty_seven(compactor):
    history = chat(60)
    result = compactor.snip_compact(history)
    assert len(result) == 51
    assert result[:3] == history[:3]
    assert result[3] == {"role": "user", "content": "[snipped 10 messages]"}
    assert result[4:] == history[-47:]
    assert len(history) == 60


def test_fifty_messages_are_left_alone(compactor):
    assert compactor.snip_compact(chat(50)) == chat(50)
    assert not compactor.events[-1].fired


def test_head_grows_forward_over_the_results_of_its_tool_use(compactor):
    # message 2 is an assistant tool_use, message 3 holds its results: the head keeps both.
    history = [user("task"), assistant("plan"), *tool_turn(["r"], "h"), *chat(60)[4:]]
    result = compactor.snip_compact(history)
    assert result[:4] == history[:4]
    assert snipped_count(result[4]) is not None
    assert pairing_problems(result) == []


def test_tail_start_moves_back_to_keep_the_pair(compactor):
    # Build 61 messages so that the 47th from the end is a tool_result message.
    body = chat(13) + tool_turn(["r1"], "x") + chat(46)
    history = body
    tail_start = len(history) - 47
    assert history[tail_start]["content"][0]["type"] == "tool_result"
    result = compactor.snip_compact(history)
    assert result[-48:] == history[-48:]          # moved back by one: the tool_use stays
    assert pairing_problems(result) == []


def test_snipping_again_adds_up_and_a_snipped_list_is_stable(compactor):
    once = compactor.snip_compact(chat(60))
    assert compactor.snip_compact(once) == once      # 50 real messages + a marker: nothing to do
    grown = once + chat(20)[:10]
    twice = compactor.snip_compact(grown)
    assert twice[3] == {"role": "user", "content": "[snipped 20 messages]"}
