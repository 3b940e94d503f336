"""The offline model behind the Messages API: validation, errors and replies as the real API.

``OfflineModel.answer(method, path, body, headers)`` is the whole server; it is mounted
in-process through ``httpx2.MockTransport`` (``.client()``) and on a loopback HTTP port
(``serve``). A request goes through, in order: the request surface (``request_surface``:
every field honoured, accepted with no effect, or refused), its thread (``threads``), the
API's rules (``validation``), the API's context management (``context_management``), the
window, then the reply (``replies``), streamed as server-sent events when asked
(``streaming``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import anthropic
import httpx2

from .context_management import management_problem, prepare
from .identity import HEADER, IN_PROCESS_URL, MODEL_NAME, model_info, route
from .replies import Replier
from .request_surface import surface_problem
from .streaming import CONTENT_TYPE, error_events, reply_events
from .threads import Threads
from .tokens import estimate_tokens
from .validation import error_answer, json_problem, request_problem, surrogate_free, window_problem

DEFAULT_WINDOW_TOKENS = 16_000      # the teaching window, in-process (notebooks, experiments)
SERVE_WINDOW_TOKENS = 200_000       # `serve`: as large as a real model's, for any client
MAX_OUTPUT_TOKENS = 128_000         # the largest current model's maximum; its replies stay short
AGENT_MAX_TOKENS = 1_024            # what its clients ask for by default (its answers are short)


def count_tokens(payload: dict) -> int:
    """The offline tokenizer: one token per 4 UTF-8 bytes of the request's JSON."""
    relevant = {k: payload.get(k) for k in ("system", "messages", "tools") if k in payload}
    return estimate_tokens(relevant)


class Body(NamedTuple):
    """What the request's raw body says, before it is parsed."""

    surrogate_free: bool                # no string in it can hold a lone surrogate
    digest: str                         # names the reply and its tool calls: same body, same ids

    @classmethod
    def of(cls, body: Any) -> Body:
        raw = body if isinstance(body, bytes) else str(body).encode("utf-8", "surrogatepass")
        return cls(isinstance(body, bytes) and surrogate_free(body),
                   hashlib.sha256(raw).hexdigest()[:16])


class Answer(NamedTuple):
    status: int
    body: dict
    stream: bool = False               # send ``body`` (a reply or an error) as events


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
    threads: Threads = field(default_factory=Threads)

    def respond(self, method: str, path: str, body: bytes,
                headers: Any = None) -> tuple[int, dict]:
        """(status, JSON body) of a Messages API request; a streamed reply as its whole message."""
        status, reply, _ = self._respond(method, path, body, headers)
        return status, reply

    def _respond(self, method: str, path: str, body: bytes, headers: Any) -> Answer:
        if method != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens"):
            return Answer(*error_answer(404, "not_found_error", f"{method} {path} is not served here"))
        payload, problem = json_problem(body)
        count_only = path.endswith("count_tokens")
        try:
            return self._checked(payload, problem, headers, count_only, Body.of(body))
        except RecursionError:
            return Answer(*error_answer(400, "invalid_request_error",
                                        "the request body is nested too deeply"))

    def _checked(self, payload: Any, problem: str | None, headers: Any, count_only: bool,
                 body: Body) -> Answer:
        if problem is None and isinstance(payload, dict):
            problem = surface_problem(payload, headers, count_only)
        if problem is None and isinstance(payload, dict) and not count_only:
            payload, refused = self.threads.resolve(payload)
            if refused:
                return Answer(*refused)
        problem = problem or request_problem(payload, max_output_tokens=self.max_output_tokens,
                                             model=MODEL_NAME, count_only=count_only,
                                             text_checked=body.surrogate_free) \
            or management_problem(payload)
        if problem:                          # the real API's rules and wording (validation.py)
            return Answer(*error_answer(400, "invalid_request_error", problem))
        prepared = prepare(payload, lambda messages: count_tokens({**payload, "messages": messages}))
        if count_only:
            answer = {"input_tokens": prepared.tokens}
            if payload.get("context_management") is not None:
                answer["context_management"] = {"original_input_tokens": prepared.original_tokens}
            return Answer(200, answer)
        problem = window_problem(prepared.tokens, payload["max_tokens"], self.window_tokens)
        if problem:
            return Answer(*error_answer(400, "invalid_request_error", problem))
        stream = bool(payload.get("stream"))
        try:
            reply = Replier(payload, self.usage, self.take_notes, count_tokens, body.digest).reply(prepared)
        except Exception as error:           # after the stream started, the API sends `error`
            if not stream:
                raise
            return Answer(*error_answer(200, "api_error", f"the offline model failed: "
                                        f"{type(error).__name__}: {error}"), stream=True)
        self.calls += 1
        self.threads.record(payload, reply)
        return Answer(200, reply, stream)

    # ---- transports ---------------------------------------------------------------------

    def answer(self, method: str, path: str, body: bytes, headers: Any = None) -> Answer:
        """``respond`` plus the models list that says what this server is; a failure of the
        model itself is a 500 ``api_error`` (an ``error`` event once a stream has started)."""
        listed = route(method, path, model_info(self.max_output_tokens, self.window_tokens))
        if listed:
            return Answer(*listed)
        try:
            return self._respond(method, path, body, headers)
        except Exception as error:           # a bug must answer 500, never drop the client
            return Answer(*error_answer(500, "api_error", f"the offline model failed: "
                                        f"{type(error).__name__}: {error}"))

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        status, body, stream = self.answer(request.method, request.url.path, request.read(),
                                           request.headers)
        headers = {"request-id": f"req_offline_{self.calls}", HEADER: MODEL_NAME}
        if stream:
            return httpx2.Response(status, content=b"".join(event_stream(body)),
                                   headers={**headers, "content-type": CONTENT_TYPE})
        return httpx2.Response(status, json=body, headers=headers)

    def client(self) -> anthropic.Anthropic:
        """A real ``anthropic.Anthropic`` whose requests are answered in-process."""
        return anthropic.Anthropic(
            api_key="offline", base_url=IN_PROCESS_URL, max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self.handle)))


def event_stream(body: dict):
    """The events of a streamed answer: a reply's, or the ``error`` of one that failed."""
    if body.get("type") == "error":
        return error_events(None, body["error"]["type"], body["error"]["message"])
    return reply_events(body)
