"""The offline model behind the Messages API: validation, errors and replies as the real API.

``OfflineModel.respond(method, path, body)`` is the whole server; it is mounted in-process
through ``httpx2.MockTransport`` (``.client()``) and on a loopback HTTP port (``serve``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import anthropic
import httpx2

from ..pipeline.messages import wire_json
from .conversation import summary_conversation
from .identity import HEADER, IN_PROCESS_URL, MODEL_NAME, model_info, route
from .skills import decide
from .summarizer import offline_summary
from .tokens import estimate_tokens
from .tooling import WHAT, Toolbox
from .truncation import cut_at_max_tokens
from .validation import error_answer, json_problem, request_problem, window_problem
from .view import read_view

DEFAULT_WINDOW_TOKENS = 16_000      # the teaching window, in-process (notebooks, experiments)
SERVE_WINDOW_TOKENS = 200_000       # `serve`: as large as a real model's, for any client
MAX_OUTPUT_TOKENS = 8_192           # the most max_tokens may ask; the lesson's loop asks 8,000
AGENT_MAX_TOKENS = 1_024            # what its clients ask for by default (its answers are short)


def count_tokens(payload: dict) -> int:
    """The offline tokenizer: one token per 4 UTF-8 bytes of the request's JSON."""
    relevant = {k: payload.get(k) for k in ("system", "messages", "tools") if k in payload}
    return estimate_tokens(relevant)


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
            return error_answer(404, "not_found_error", f"{method} {path} is not served here")
        payload, problem = json_problem(body)
        count_only = path.endswith("count_tokens")
        try:
            problem = problem or request_problem(payload, max_output_tokens=self.max_output_tokens,
                                                 model=MODEL_NAME, count_only=count_only)
            if problem:                      # the real API's rules and wording (validation.py)
                return error_answer(400, "invalid_request_error", problem)
            tokens = count_tokens(payload)
        except RecursionError:
            return error_answer(400, "invalid_request_error", "the request body is nested too deeply")
        if count_only:
            return 200, {"input_tokens": tokens}
        problem = window_problem(tokens, payload["max_tokens"], self.window_tokens)
        if problem:
            return error_answer(400, "invalid_request_error", problem)
        self.calls += 1
        return 200, self._reply(payload, tokens)

    def _reply(self, payload: dict, tokens: int) -> dict:
        digest = hashlib.sha256(wire_json(payload).encode()).hexdigest()[:16]
        conversation = summary_conversation(payload)     # a summary request, by its shape
        self.usage.append(("summary" if conversation is not None else "agent", tokens))
        if conversation is not None:
            content, stop = [{"type": "text", "text": offline_summary(conversation)}], "end_turn"
        else:
            content, stop = self._agent_turn(payload, digest)
        content, cut = cut_at_max_tokens(content, payload["max_tokens"])
        output = payload["max_tokens"] if cut else estimate_tokens(content)
        stop = "max_tokens" if cut else stop
        return {"id": f"msg_off_{digest}", "type": "message", "role": "assistant",
                "model": MODEL_NAME, "content": content, "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": tokens, "output_tokens": output}}

    def _agent_turn(self, payload: dict, digest: str) -> tuple[list, str]:
        """The next step of the task, its tool calls in the client's own tool names."""
        toolbox = Toolbox.from_request(payload.get("tools"))
        step = decide(read_view(payload["messages"], frozenset(toolbox.tools),
                                toolbox.roles_by_name),
                      take_notes=self.take_notes)
        planned = [(role, i) for role, i in step.calls if toolbox.has(role)]
        calls = [toolbox.call(role, i) for role, i in planned]
        content = [{"type": "text", "text": step.text}] if step.text else []
        content += [{"type": "tool_use", "id": f"toolu_off_{digest}{k:02d}", "name": name,
                     "input": tool_input} for k, (name, tool_input) in enumerate(calls)]
        if not calls and step.calls:
            needed = ", ".join(WHAT[r] for r in toolbox.missing([r for r, _ in step.calls]))
            offered = ", ".join(toolbox.offered) or "none"
            content = [{"type": "text", "text": f"(offline model) I need a tool to {needed} for "
                        f"this, and the request offers none that can (tools offered: {offered})."}]
        return content, "tool_use" if calls else "end_turn"

    # ---- transports ---------------------------------------------------------------------

    def answer(self, method: str, path: str, body: bytes) -> tuple[int, dict]:
        """``respond`` plus the models list that says what this server is."""
        info = model_info(self.max_output_tokens, self.window_tokens)
        return route(method, path, info) or self.respond(method, path, body)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        status, body = self.answer(request.method, request.url.path, request.read())
        headers = {"request-id": f"req_offline_{self.calls}", HEADER: MODEL_NAME}
        return httpx2.Response(status, json=body, headers=headers)

    def client(self) -> anthropic.Anthropic:
        """A real ``anthropic.Anthropic`` whose requests are answered in-process."""
        return anthropic.Anthropic(
            api_key="offline", base_url=IN_PROCESS_URL, max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self.handle)))
