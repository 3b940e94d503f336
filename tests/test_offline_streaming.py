"""``"stream": true`` answered with the API's server-sent events, through the SDK's helpers."""

from __future__ import annotations

import json

import anthropic
import pytest
from served import TITLE, serving, title_runner
from served import both_transports as both_transports  # the `client` fixture

from compact.offline import MODEL_NAME, OfflineModel
from compact.tools import TOOLS

ASK = [{"role": "user", "content": "Read README.md and guide.md"}]


def test_messages_stream_gives_text_deltas_and_the_whole_message(client):
    with client.messages.stream(model=MODEL_NAME, max_tokens=64_000, messages=ASK,
                                tools=TOOLS) as stream:
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    whole = client.messages.create(model=MODEL_NAME, max_tokens=1_000, messages=ASK, tools=TOOLS)
    assert len(pieces) >= 1 and "".join(pieces) == whole.content[0].text
    def shape(message):      # the ids differ: each is a digest of its own request
        return [{k: v for k, v in b.model_dump().items() if k != "id"} for b in message.content]
    assert shape(final) == shape(whole)
    assert final.stop_reason == "tool_use" and final.usage.output_tokens == whole.usage.output_tokens
    assert [b.input for b in final.content if b.type == "tool_use"] == [{"path": "README.md"},
                                                                         {"path": "guide.md"}]


def test_raw_events_come_in_the_api_order(client):
    events = list(client.messages.create(model=MODEL_NAME, max_tokens=64_000, messages=ASK,
                                         tools=TOOLS, stream=True))
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert events[0].message.content == [] and events[0].message.stop_reason is None
    assert events[0].message.usage.input_tokens > 0
    starts = [e for e in events if e.type == "content_block_start"]
    assert [s.content_block.type for s in starts] == ["text", "tool_use", "tool_use"]
    assert kinds.count("content_block_stop") == 3
    json_pieces = [e.delta.partial_json for e in events if e.type == "content_block_delta"
                   and e.delta.type == "input_json_delta" and e.index == 1]
    assert json.loads("".join(json_pieces)) == {"path": "README.md"}
    assert events[-2].delta.stop_reason == "tool_use" and events[-2].usage.output_tokens > 1


def test_a_ping_is_sent_over_http():
    """The SDK drops ``ping`` events, so they are read off the wire."""
    with serving() as served:
        client = served.client()
        with client.messages.with_streaming_response.create(
                model=MODEL_NAME, max_tokens=100, messages=ASK, stream=True) as raw:
            text = b"".join(raw.iter_bytes()).decode()
    assert raw.headers["content-type"].startswith("text/event-stream")
    names = [line.removeprefix("event: ") for line in text.splitlines() if line.startswith("event: ")]
    assert names[:2] == ["message_start", "ping"] and names[-1] == "message_stop"


def test_the_tool_runner_streams_a_whole_task(tmp_path):
    with serving() as served:
        finals = []
        for stream in title_runner(served.client(), tmp_path, stream=True):
            with stream:
                deltas = [e for e in stream if e.type == "content_block_delta"]
                finals.append(stream.get_final_message())
            assert deltas
    assert [m.stop_reason for m in finals] == ["tool_use", "end_turn"]
    assert TITLE in finals[-1].content[0].text


def test_a_failure_after_the_stream_started_is_an_error_event(monkeypatch):
    """The SDK raises the ``error`` event's error, as it does for the API's mid-stream errors."""
    model = OfflineModel()

    def broken(*_args):
        raise RuntimeError("the reply could not be written")
    monkeypatch.setattr("compact.offline.model.Replier.reply", broken)
    with pytest.raises(anthropic.APIStatusError) as caught:
        list(model.client().messages.create(model=MODEL_NAME, max_tokens=100, messages=ASK,
                                            stream=True))
    assert caught.value.body["error"]["type"] == "api_error"
    assert "could not be written" in caught.value.body["error"]["message"]
    with pytest.raises(anthropic.InternalServerError) as caught:   # not streamed: a 500
        model.client().messages.create(model=MODEL_NAME, max_tokens=100, messages=ASK)
    assert "RuntimeError: the reply could not be written" in caught.value.body["error"]["message"]


def test_a_refused_streaming_request_is_a_plain_400_before_any_event(client):
    with pytest.raises(anthropic.BadRequestError) as caught:
        list(client.messages.create(model=MODEL_NAME, max_tokens=100, stream=True,
                                    messages=[{"role": "user", "content": " "}]))
    assert "non-whitespace" in caught.value.body["error"]["message"]
