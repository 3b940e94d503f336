"""The offline model: a deterministic model behind the Messages API that decides from what it is sent.

``OfflineModel.answer(method, path, body, headers)`` is the whole server, mounted in-process
(``.client()``) and on loopback HTTP (``server``).
"""

from __future__ import annotations

import bisect
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import anthropic
import httpx2

from .api import (
    CONTENT_TYPE,
    DEFAULT_WINDOW_TOKENS,
    HEADER,
    IN_PROCESS_URL,
    MAX_OUTPUT_TOKENS,
    MODEL_NAME,
    Threads,
    count_tokens,
    error_answer,
    estimate_tokens,
    event_stream,
    json_problem,
    models_answer,
    request_problem,
    schema_of,
    surface_problem,
    window_problem,
)
from .context_management import (
    Prepared,
    iteration,
    management_problem,
    prepare,
    summary_block,
    visible_messages,
)
from .phrases import offline_label, phrase
from .skills import decide
from .summarizer import offline_summary, summary_conversation
from .view import Toolbox, read_view


class Answer(NamedTuple):
    status: int
    body: dict
    stream: bool = False               # send ``body`` (a reply or an error) as events


def _failed(status: int, error: Exception, stream: bool = False) -> Answer:
    return Answer(*error_answer(status, f"the offline model failed: {type(error).__name__}: "
                                f"{error}", "api_error"), stream=stream)


@dataclass
class OfflineModel:
    """window_tokens: larger prompts get the API's "prompt is too long" (16,000 ≈ 64,000 ASCII
    chars, above the lesson's 50,000-char limit); take_notes: note each result in its own text,
    so it survives micro_compact; max_output_tokens: the largest ``max_tokens`` accepted."""

    window_tokens: int = DEFAULT_WINDOW_TOKENS
    take_notes: bool = True
    max_output_tokens: int = MAX_OUTPUT_TOKENS
    calls: int = 0
    usage: list = field(default_factory=list)   # (kind, input tokens) per answered call
    threads: Threads = field(default_factory=Threads)

    def answer(self, method: str, path: str, body: bytes, headers: Any = None) -> Answer:
        """The answer to a Messages API or models list request (a streamed reply as its whole
        message, ``stream`` set); a failure of the model itself is a 500 ``api_error``."""
        listed = models_answer(method, path, self.max_output_tokens, self.window_tokens)
        if listed:
            return Answer(*listed)
        try:
            return self._respond(method, path, body, headers)
        except Exception as error:           # a bug must answer 500, never drop the client
            return _failed(500, error)

    def _respond(self, method: str, path: str, body: bytes, headers: Any) -> Answer:
        if method != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens"):
            return Answer(*error_answer(404, f"{method} {path} is not served here"))
        payload, problem = json_problem(body)
        count_only = path.endswith("count_tokens")
        if problem is None and isinstance(payload, dict):
            problem = surface_problem(payload, headers, count_only)
        if problem is None and isinstance(payload, dict) and not count_only:
            payload, refused = self.threads.resolve(payload)
            if refused:
                return Answer(*refused)
        problem = problem or request_problem(payload, max_output_tokens=self.max_output_tokens,
                                             model=MODEL_NAME, count_only=count_only) \
            or management_problem(payload)
        if problem:
            return Answer(*error_answer(400, problem))
        prepared = prepare(payload, lambda messages: count_tokens({**payload, "messages": messages}))
        if count_only:
            managed = {} if payload.get("context_management") is None else \
                {"context_management": {"original_input_tokens": prepared.original_tokens}}
            return Answer(200, {"input_tokens": prepared.tokens, **managed})
        if problem := window_problem(prepared.tokens, payload["max_tokens"], self.window_tokens):
            return Answer(*error_answer(400, problem))
        raw = body if isinstance(body, bytes) else str(body).encode("utf-8", "surrogatepass")
        return self._reply(payload, prepared, hashlib.sha256(raw).hexdigest()[:16])

    def _reply(self, payload: dict, prepared: Prepared, digest: str) -> Answer:
        """``digest``: the body's (same body, same ids)."""
        stream = bool(payload.get("stream"))
        try:
            reply = Replier(payload, self.usage, self.take_notes, digest).reply(prepared)
        except Exception as error:           # after the stream started, the API sends `error`
            if not stream:
                raise
            return _failed(200, error, stream=True)
        self.calls += 1
        self.threads.record(payload, reply)
        return Answer(200, reply, stream)

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


@dataclass
class Replier:
    """One reply to a valid request whose context management was applied (``Prepared``)."""

    payload: dict
    usage: list                         # the model's ledger: (kind, input tokens) per call
    take_notes: bool
    digest: str                         # the request's, for the ids of the reply and its calls

    def reply(self, prepared: Prepared) -> dict:
        shown, iterations, content = prepared.messages, [], []
        if prepared.compaction:
            block = summary_block(shown, prepared.edit.get("instructions"))
            self.usage.append(("compaction", prepared.tokens))
            iterations.append(iteration("compaction", prepared.tokens, estimate_tokens(block["content"])))
            content.append(block)
            if prepared.compaction == "summarize" or prepared.edit.get("pause_after_compaction"):
                return self._message(content, ("compaction", None), (0, 0), iterations, prepared)
            shown = visible_messages([{"role": "assistant", "content": [block]}])
        tokens = count_tokens({**self.payload, "messages": shown}) if iterations else prepared.tokens
        turn, stop = self._turn(shown, tokens)
        turn, sequence = cut_at_stop_sequence(turn, self.payload.get("stop_sequences"))
        turn, cut = cut_at_max_tokens(turn, self.payload["max_tokens"])
        output = self.payload["max_tokens"] if cut else estimate_tokens(turn)
        if iterations:
            iterations.append(iteration("message", tokens, output))
        stop = "max_tokens" if cut else "stop_sequence" if sequence else stop
        return self._message(content + turn, (stop, sequence), (tokens, output), iterations, prepared)

    def _message(self, content: list, ending: tuple[str, str | None], usage: tuple[int, int],
                 iterations: list, prepared: Prepared) -> dict:
        """``ending``: (stop_reason, stop_sequence); ``usage``: (input, output) tokens."""
        reply = {"id": f"msg_off_{self.digest}", "type": "message", "role": "assistant", "model": MODEL_NAME,
                 "content": content, "stop_reason": ending[0], "stop_sequence": ending[1],
                 "usage": {"input_tokens": usage[0], "output_tokens": usage[1],
                           "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                           "service_tier": "standard", **({"iterations": iterations} if iterations else {})}}
        if self.payload.get("context_management") is not None:
            reply["context_management"] = {"applied_edits": prepared.applied}
        return reply

    def _turn(self, messages: list, tokens: int) -> tuple[list, str]:
        conversation = summary_conversation({**self.payload, "messages": messages})
        self.usage.append(("summary" if conversation is not None else "agent", tokens))
        if conversation is not None:                 # a summary request, by its shape
            content = [{"type": "text", "text": offline_summary(conversation)}]
        else:
            content = self._agent_turn(messages)
        content = apply_tool_choice(content, self.payload.get("tool_choice"),
                                    self.payload.get("tools"), f"toolu_off_{self.digest}99")
        return content, "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"

    def _agent_turn(self, messages: list) -> list:
        """The next step of the task, its tool calls in the client's own tool names."""
        toolbox = Toolbox.from_request(self.payload.get("tools"))
        view = read_view(messages, frozenset(toolbox.tools), toolbox.roles_by_name)
        step = decide(view, take_notes=self.take_notes)
        calls = [toolbox.call(role, i) for role, i in step.calls if toolbox.has(role)]
        content = [{"type": "text", "text": step.text}] if step.text else []
        content += [{"type": "tool_use", "id": f"toolu_off_{self.digest}{k:02d}", "name": name,
                     "input": tool_input} for k, (name, tool_input) in enumerate(calls)]
        if not calls and step.calls:
            missing = dict.fromkeys(r for r, _ in step.calls if r not in toolbox.tools)
            needed = ", ".join(phrase(f"can_{r}", view.lang) for r in missing)
            offered = ", ".join(toolbox.offered) or phrase("no_tools", view.lang)
            content = [{"type": "text", "text": offline_label(view.lang) + phrase(
                "needs_tool", view.lang, needed=needed, offered=offered)}]
        return content


_EMPTY = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}


def forced_input(spec: dict, answer: str) -> dict:
    """An input for ``spec`` that carries ``answer`` in its first (required) string field and
    the type's empty value in any other required field: how a structured-output tool
    (``with_structured_output``, an output tool) still gets an answer."""
    schema = schema_of(spec)
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [r for r in schema.get("required") or [] if r in properties]
    strings = [n for n, p in properties.items() if isinstance(p, dict) and p.get("type") == "string"]
    target = next((n for n in required if n in strings), strings[0] if strings else None)
    tool_input = {name: _EMPTY.get(properties[name].get("type"), "")
                  for name in required if isinstance(properties[name], dict)}
    return tool_input if target is None else {**tool_input, target: answer}


def apply_tool_choice(content: list, choice: Any, tools: list | None, call_id: str) -> list:
    """``auto``: as planned; ``none``: no call, the text says which it would make; ``any`` /
    ``tool``: only calls (no text first), the forced tool's with the answer it would have written
    when the plan has none; ``disable_parallel_tool_use``: at most one call."""
    choice = choice if isinstance(choice, dict) else {"type": "auto"}
    kind = choice.get("type", "auto")
    texts = [b for b in content if b["type"] == "text"]
    calls = [b for b in content if b["type"] == "tool_use"]
    if kind == "none":
        if not calls:
            return content
        said = "\n".join(b["text"] for b in texts)
        planned = ", ".join(f"{c['name']}({json.dumps(c['input'], ensure_ascii=False)[:120]})" for c in calls)
        note = f"(offline model) tool_choice is none, so I call no tool; next I would call {planned}."
        return [{"type": "text", "text": f"{said}\n{note}" if said else note}]
    if kind == "tool":
        calls = [b for b in calls if b["name"] == choice["name"]]
    if kind in ("any", "tool"):
        if not calls:
            name = choice["name"] if kind == "tool" else tools[0]["name"]
            spec = next(t for t in tools if t["name"] == name)
            answer = "\n".join(b["text"] for b in texts) or "(offline model) no answer"
            calls = [{"type": "tool_use", "id": call_id, "name": name, "input": forced_input(spec, answer)}]
        texts = []
    if choice.get("disable_parallel_tool_use"):
        calls = calls[:1]
    return [*texts, *calls]


def cut_at_max_tokens(content: list, max_tokens: int) -> tuple[list, bool]:
    """(content that fits in ``max_tokens`` output tokens, whether anything was cut): a text is
    cut inside its text, a tool call inside its input (left empty: callers must not run it)."""
    if estimate_tokens(content) <= max_tokens:
        return content, False
    kept: list = []
    while estimate_tokens([*kept, content[len(kept)]]) <= max_tokens:
        kept.append(content[len(kept)])
    block = content[len(kept)]                  # the first that does not fit
    if block.get("type") == "text":             # the longest head that fits, by bisection
        fitting = bisect.bisect_right(range(len(block["text"]) + 1), max_tokens, key=lambda n:
                                      estimate_tokens([*kept, {**block, "text": block["text"][:n]}]))
        head = block["text"][:max(fitting - 1, 0)].rstrip()
        kept += [{**block, "text": head}] if head.strip() else []   # the API never sends an empty text
    elif block.get("type") == "tool_use" and estimate_tokens([*kept, {**block, "input": {}}]) <= max_tokens:
        kept.append({**block, "input": {}})
    return kept, True


def cut_at_stop_sequence(content: list, stop_sequences: list | None) -> tuple[list, str | None]:
    """(content up to the first stop sequence a text block writes, that sequence), or (content,
    None); the sequence itself and everything after it (a later tool call too) are left out."""
    for index, block in enumerate(content):
        if block.get("type") != "text" or not stop_sequences:
            continue
        hits = [(block["text"].find(s), s) for s in stop_sequences if s in block["text"]]
        if hits:
            at, sequence = min(hits)
            head = block["text"][:at].rstrip()
            return content[:index] + ([{**block, "text": head}] if head.strip() else []), sequence
    return content, None
