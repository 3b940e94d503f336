"""The embedded model speaks the Messages API through the real SDK, and decides from context."""

import json

import pytest
from conftest import run_agent
from histories import tool_turn, user
from served import calls_of

from compact import PLACEHOLDER, summarizer_for
from compact.offline import MODEL_NAME, OfflineModel
from compact.tools import TOOLS


def send(model: OfflineModel, messages: list, tools: list = TOOLS) -> dict:
    status, reply = model.respond("POST", "/v1/messages", json.dumps(
        {"model": MODEL_NAME, "max_tokens": 100, "messages": messages, "tools": tools}).encode())
    assert status == 200, reply
    return reply


def read_turn(result: str, path: str = "notes.txt", note: str | None = None) -> list[dict]:
    """``Read <path>`` answered with ``result``; ``note``: the model's own note before the call."""
    messages = [user(f"Read {path}"), *tool_turn([result], path[0])]
    messages[1]["content"][0]["input"] = {"path": path}
    if note:
        messages[1]["content"].insert(0, {"type": "text", "text": note})
    return messages


def test_it_answers_from_a_visible_result_or_a_note_and_rereads_what_was_compacted():
    model = OfflineModel(take_notes=False)
    reply = send(model, read_turn("the port is 8473"))
    assert reply["stop_reason"] == "end_turn" and "notes.txt" in reply["content"][0]["text"]
    assert calls_of(send(model, read_turn(PLACEHOLDER))) == [("read_file", {"path": "notes.txt"})]
    noted = send(OfflineModel(), read_turn(PLACEHOLDER, note="Note [notes.txt]: port 8473"))
    assert noted["stop_reason"] == "end_turn" and "port 8473" in noted["content"][0]["text"]


def test_a_glob_that_matched_nothing_lists_no_files(tmp_path):
    """Comparing two programs with no README beside them: the empty listing is not two 'files'."""
    (tmp_path / "src").mkdir()
    for name in ("src/a.py", "src/b.py"):
        (tmp_path / name).write_text(f'"""Module {name}."""\n\ndef run():\n    return 1\n')
    client = OfflineModel().client()
    trace = run_agent([user("Compare src/a.py and src/b.py")], client, tmp_path,
                      summarize=summarizer_for(client))
    assert [c for t in trace.turns for c in t.tool_calls if c[0] == "glob"], "it looks for READMEs"
    notes = [t.text for t in trace.turns if "Note [glob" in t.text]
    assert notes and all("files: (no matches)" in n and "(no," not in n for n in notes)
    assert "no README beside it" in trace.answer


@pytest.mark.parametrize("request_text", ["write 'a.txt' containing 'hi'", 'please write with "x"'])
def test_a_write_request_it_cannot_read_gets_an_answer_not_a_crash(request_text):
    reply = send(OfflineModel(), [user(request_text)], tools=[])
    assert reply["content"] and reply["content"][0]["text"].startswith("(offline model)")
    assert "write_file" not in dict(calls_of(reply))
