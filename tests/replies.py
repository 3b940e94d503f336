"""Scripted replies through the real SDK; every request recorded, and checked by the API's rules."""

from __future__ import annotations

import json

import anthropic
import httpx2

from compact.offline.api import request_problem

MODEL = "scripted-claude"


def reply(*content: dict, stop: str = "end_turn") -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL,
            "content": list(content), "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def text(words: str) -> dict:
    return {"type": "text", "text": words}


def call(name: str, tool_input: dict | None, call_id: str) -> dict:
    """A tool_use block; ``tool_input=None`` leaves the input out (a call cut off early)."""
    block = {"type": "tool_use", "id": call_id, "name": name}
    if tool_input is not None:
        block["input"] = tool_input
    return block


def tool_call(name: str, tool_input: dict, call_id: str = "toolu_1") -> dict:
    """A reply that makes one tool call."""
    return reply(call(name, tool_input, call_id), stop="tool_use")


def client_for(handler) -> anthropic.Anthropic:
    """A real SDK client whose HTTP answers come from ``handler`` (no network)."""
    return anthropic.Anthropic(api_key="x", base_url="http://offline.invalid", max_retries=0,
                               http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def api_error(status: int, kind: str, message: str) -> httpx2.Response:
    return httpx2.Response(status, json={"type": "error", "error": {"type": kind,
                                                                     "message": message}})


class Script:
    """An SDK client answering the bodies (or ``httpx2.Response``s) in order, then ``then``; ``problems``
    lists each request the real API would refuse."""

    def __init__(self, *replies, then: dict | None = None) -> None:
        self.queue = list(replies)
        self.then = then
        self.requests: list[dict] = []
        self.problems: list[str] = []
        self.client = client_for(self.handle)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.read())
        self.requests.append(body)
        problem = request_problem(body, max_output_tokens=64_000, model=MODEL)
        if problem:
            self.problems.append(problem)
        if not self.queue and self.then is None:
            raise AssertionError("the script ran out of replies")
        answer = self.queue.pop(0) if self.queue else self.then
        return answer if isinstance(answer, httpx2.Response) else httpx2.Response(200, json=answer)
