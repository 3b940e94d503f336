"""The embedded model speaks the Messages API through the real SDK, and decides from context."""

import json

import pytest
from histories import tool_turn, user
from served import calls_of

from compact import PLACEHOLDER
from compact.offline import MODEL_NAME, OfflineModel
from compact.tools import TOOLS


def send(model: OfflineModel, messages: list, tools: list = TOOLS) -> dict:
    status, reply, _ = model.answer("POST", "/v1/messages", json.dumps(
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


@pytest.mark.parametrize("request_text", ["write 'a.txt' containing 'hi'", 'please write with "x"'])
def test_a_write_request_it_cannot_read_gets_an_answer_not_a_crash(request_text):
    reply = send(OfflineModel(), [user(request_text)], tools=[])
    assert reply["content"] and reply["content"][0]["text"].startswith("(offline model)")
    assert "write_file" not in dict(calls_of(reply))
