"""What the summariser is sent, and what comes back when its max_tokens cuts the summary."""

from histories import assistant, tool_turn, user
from test_faults import reply, scripted

from compact.pipeline.summary import ClientSummarizer, SummaryInput, render_history, summary_cut_note


def test_a_result_the_model_never_read_keeps_more_of_itself():
    """A batch too big for the limit is summarised before the next call: the model never saw it,
    so the summary is the only place its facts can survive."""
    seen_text, unseen_text = "S" * 20_000, "U" * 20_000
    history = [user("Compare a.py and b.py"), *tool_turn([seen_text], "a"),
               assistant("Note [a.py]: read"), *tool_turn([unseen_text], "b")]
    caps = SummaryInput()
    rendered = render_history(history, caps)
    assert rendered.count("S") == caps.result_chars        # (no other S or U in it)
    assert rendered.count("U") == caps.unseen_chars
    assert len(rendered) <= caps.input_chars


def test_the_unseen_cap_never_goes_below_the_seen_one():
    history = [user("go"), *tool_turn(["X" * 9_000], "a")]
    rendered = render_history(history, SummaryInput(result_chars=6_000, unseen_chars=10))
    assert rendered.count("X") == 6_000


def test_a_summary_cut_off_by_max_tokens_says_so():
    client = scripted(reply({"type": "text", "text": "Goal: compare.\nFindings: a.py has"},
                            stop="max_tokens"))
    summary = ClientSummarizer(client, "scripted", max_tokens=50)([user("Compare a.py")])
    assert summary == "Goal: compare.\nFindings: a.py has\n" + summary_cut_note(50)
    whole = scripted(reply({"type": "text", "text": "Goal: compare."}))
    assert ClientSummarizer(whole, "scripted")([user("Compare a.py")]) == "Goal: compare."
