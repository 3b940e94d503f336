"""The offline model behind the Messages API: validation, errors and replies as the real API.

``OfflineModel.respond(method, path, body)`` is the whole server; it is mounted in-process
through ``httpx2.MockTransport`` (``.client()``) and on a loopback HTTP port (``serve``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import anthropic
import httpx2

from ..pipeline.messages import estimate_tokens, wire_json
from .skills import decide
from .summarizer import offline_summary
from .truncation import cut_at_max_tokens
from .validation import json_problem, request_problem, window_problem
from .view import read_view

MODEL_NAME = "offline-compact-1"
DEFAULT_WINDOW_TOKENS = 16_000
MAX_OUTPUT_TOKENS = 4_096       # the most max_tokens may ask of this model
AGENT_MAX_TOKENS = 1_024        # what its clients ask for by default (its answers are short)


def count_tokens(payload: dict) -> int:
    """The offline tokenizer: one token per 4 UTF-8 bytes of the request's JSON."""
    relevant = {k: payload.get(k) for k in ("system", "messages", "tools") if k in payload}
    return estimate_tokens(relevant)


def _error(status: int, kind: str, message: str) -> tuple[int, dict]:
    return status, {"type": "error", "error": {"type": kind, "message": message}}


@dataclass
class OfflineModel:
    """A deterministic model that decides from what it is sent.

    window_tokens: requests over this many (offline) tokens are refused with the API's
        "prompt is too long" error; 16,000 tokens ≈ 64,000 ASCII chars, above the lesson's
        50,000-char compaction limit, below what an uncompacted long task sends.
    take_notes: write facts about each result in its own text (so they survive
        micro_compact). Off, it must re-read whatever was compacted away.
    max_output_tokens: the largest ``max_tokens`` it accepts; prompt + ``max_tokens`` must
        fit in the window, as with the real API.
    """

    window_tokens: int = DEFAULT_WINDOW_TOKENS
    take_notes: bool = True
    max_output_tokens: int = MAX_OUTPUT_TOKENS
    calls: int = 0
    usage: list = field(default_factory=list)   # (kind, input tokens) per answered call

    def respond(self, method: str, path: str, body: bytes) -> tuple[int, dict]:
        if method != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens"):
            return _error(404, "not_found_error", f"{method} {path} is not served here")
        payload, problem = json_problem(body)
        count_only = path.endswith("count_tokens")
        try:
            problem = problem or request_problem(payload, max_output_tokens=self.max_output_tokens,
                                                 model=MODEL_NAME, count_only=count_only)
            if problem:                      # the real API's rules and wording (validation.py)
                return _error(400, "invalid_request_error", problem)
            tokens = count_tokens(payload)
        except RecursionError:
            return _error(400, "invalid_request_error", "the request body is nested too deeply")
        if count_only:
            return 200, {"input_tokens": tokens}
        problem = window_problem(tokens, payload["max_tokens"], self.window_tokens)
        if problem:
            return _error(400, "invalid_request_error", problem)
        self.calls += 1
        return 200, self._reply(payload, tokens)

    def _reply(self, payload: dict, tokens: int) -> dict:
        system = payload.get("system") or ""
        if not isinstance(system, str):
            system = " ".join(b.get("text", "") for b in system if isinstance(b, dict))
        tool_names = {t.get("name") for t in payload.get("tools") or []}
        digest = hashlib.sha256(wire_json(payload).encode()).hexdigest()[:16]
        summary = "Remaining work" in system and "Goal" in system   # asked for a summary
        self.usage.append(("summary" if summary else "agent", tokens))
        if summary:
            last = payload["messages"][-1].get("content")
            text = last if isinstance(last, str) else json.dumps(last, ensure_ascii=False)
            content, stop = [{"type": "text", "text": offline_summary(text)}], "end_turn"
        else:
            step = decide(read_view(payload["messages"]), take_notes=self.take_notes)
            calls = [(n, i) for n, i in step.calls if n in tool_names]
            content = [{"type": "text", "text": step.text}] if step.text else []
            content += [{"type": "tool_use", "id": f"toolu_off_{digest}{k:02d}", "name": name,
                         "input": tool_input} for k, (name, tool_input) in enumerate(calls)]
            if not calls and step.calls:
                content = [{"type": "text", "text": "(offline model) I need tools "
                            f"{sorted({n for n, _ in step.calls})} for this, and none were offered."}]
            stop = "tool_use" if calls else "end_turn"
        content, cut = cut_at_max_tokens(content, payload["max_tokens"])
        output = payload["max_tokens"] if cut else estimate_tokens(content)
        stop = "max_tokens" if cut else stop
        return {"id": f"msg_off_{digest}", "type": "message", "role": "assistant",
                "model": MODEL_NAME, "content": content, "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": tokens, "output_tokens": output}}

    # ---- transports ---------------------------------------------------------------------

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        status, body = self.respond(request.method, request.url.path, request.read())
        headers = {"request-id": f"req_offline_{self.calls}"}
        return httpx2.Response(status, json=body, headers=headers)

    def client(self) -> anthropic.Anthropic:
        """A real ``anthropic.Anthropic`` whose requests are answered in-process."""
        client = anthropic.Anthropic(
            api_key="offline", base_url="http://offline.invalid", max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self.handle)))
        client._compact_offline = True      # read by compact.client.banner
        client._compact_model_name = MODEL_NAME     # the model a summariser asks for
        client._compact_max_tokens = min(AGENT_MAX_TOKENS, self.max_output_tokens)  # agent_loop's default
        return client
