"""Property: whatever mix of real-API replies the model sends (tool calls, a call cut off by
max_tokens, pause_turn, refusal, blank text), every request agent_loop sends is one the Messages
API accepts (by compact.offline.api and by test_strict_api's independent reference), and the
history stays valid turn after turn."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

from conftest import fake_summary
from histories import examples, user
from hypothesis import given
from hypothesis import strategies as st
from replies import Script, call, reply, text
from test_strict_api import reference_problem

from compact import Compactor, Limits, LoopOptions, Workspace, agent_loop
from compact.offline.api import messages_problem
from compact.pipeline.messages import validate_history

STOPS = ["tool_use", "end_turn", "max_tokens", "pause_turn", "refusal", "stop_sequence"]
BLOCKS = ["text", "empty text", "blank text", "read", "read missing", "glob", "bash", "write",
          "compact"]
SESSIONS = st.lists(st.tuples(st.sampled_from(STOPS),
                              st.lists(st.sampled_from(BLOCKS), max_size=4),
                              st.sampled_from([None, "no input", "partial input"])),
                    min_size=1, max_size=8)
SMALL = Limits(context_limit=3_000, max_messages=12, keep_head=3, keep_recent_results=2,
               min_compact_chars=40, tool_result_budget=2_000, persist_threshold=500,
               preview_chars=100)


def build(spec: tuple, ids: itertools.count) -> dict:
    """One scripted reply from (stop_reason, block kinds, how a max_tokens call is cut)."""
    stop, kinds, cut = spec
    blocks = []
    for kind in kinds:
        tool_id = f"toolu_{next(ids)}"
        blocks.append({
            "text": text("Working on it."), "empty text": text(""), "blank text": text(" \n"),
            "read": call("read_file", {"path": "a.txt"}, tool_id),
            "read missing": call("read_file", {"path": "missing.txt"}, tool_id),
            "glob": call("glob", {"pattern": "*.txt"}, tool_id),
            "bash": call("bash", {"command": "echo hi"}, tool_id),
            "write": call("write_file", {"path": f"{stop}.txt", "content": "x"}, tool_id),
            "compact": call("compact", {}, tool_id)}[kind])
    if stop == "max_tokens" and cut:                  # the reply ends inside a tool call
        blocks.append(call("write_file", None if cut == "no input" else {"path": "cut.txt"},
                           f"toolu_{next(ids)}"))
    return reply(*blocks, stop=stop)


@examples(60)
@given(SESSIONS)
def test_every_request_sent_is_valid_whatever_the_replies(session):
    ids = itertools.count(1)
    script = Script(*[build(spec, ids) for spec in session], then=reply(text("done")))
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "a.txt").write_text("alpha\n" * 100)
        workspace = Workspace(root, bash_timeout=10)
        compactor = Compactor(root, SMALL, summarize=fake_summary)
        messages = [user("task 0")]
        for turn in range(len(session) + 1):
            if not script.queue:
                break
            agent_loop(messages, f"task {turn}", client=script.client, workspace=workspace,
                       compactor=compactor, log=lambda line: None,
                       options=LoopOptions(max_turns=len(session) + 2))
            validate_history(messages)
            assert messages_problem([*messages, user("next")]) is None
            messages.append(user(f"task {turn + 1}"))
        assert not (root / "cut.txt").exists() and not (root / "refusal.txt").exists()
    assert script.problems == []
    for request in script.requests:
        assert reference_problem(request["messages"]) is None
