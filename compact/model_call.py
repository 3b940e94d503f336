"""One model call, checked; which refusals mean "prompt is too long"; what to do after an error
(``explain`` adds a note to the error, which reaches the caller unchanged)."""

from __future__ import annotations

import json
from typing import Any

import anthropic

from .pipeline import CompactError
from .reply import CUT_OFF


class ModelResponseError(CompactError, RuntimeError):
    """The model API's body is not a message (a proxy's HTML page, wrong JSON)."""


def api_message(error: Exception) -> str:
    """The API's own error message (``error.message``) rather than the SDK's wrapper text."""
    body = getattr(error, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message", error))
    return str(error)


_TOO_LONG = ("prompt is too long", "prompt_too_long", "too many tokens",
             "exceed context limit", "request_too_large")


def is_prompt_too_long(error: Exception) -> bool:
    """Whether the API refused the request for its size (any wording, or HTTP 413)."""
    if getattr(error, "status_code", None) == 413:
        return True
    text = f"{api_message(error)} {error}".lower()
    return any(s in text for s in _TOO_LONG)


def response_problem(response: Any) -> str | None:
    """What makes ``response`` unusable as a Messages-API message, or None (a call max_tokens
    cut off may lack its input: it is answered with an error, never run)."""
    content = getattr(response, "content", None)
    if not isinstance(content, list):
        return f"the reply is a {type(response).__name__} without a list of content blocks"
    cut = getattr(response, "stop_reason", None) in CUT_OFF
    for k, block in enumerate(content):
        kind = getattr(block, "type", None)
        if not isinstance(kind, str):
            return "a content block has no type"
        if kind == "text" and not isinstance(getattr(block, "text", None), str):
            return "a text block has no text"
        if kind == "tool_use" and not (isinstance(getattr(block, "id", None), str)
                                       and isinstance(getattr(block, "name", None), str)
                                       and (isinstance(getattr(block, "input", None), dict)
                                            or (cut and k == len(content) - 1))):
            return "a tool_use block lacks its id, name or input"
    usage = getattr(response, "usage", None)
    if not all(isinstance(getattr(usage, k, None), int) for k in ("input_tokens", "output_tokens")):
        return "the reply has no usage token counts"
    return None


def call_model(client: Any, **request: Any) -> Any:
    """One ``messages.create``, its reply checked (the SDK does not validate bodies)."""
    try:
        response = client.messages.create(**request)
    except json.JSONDecodeError as error:
        problem = f"the body is not valid JSON ({error})"
    else:
        problem = response_problem(response)
        if problem is None:
            return response
    raise ModelResponseError(
        f"the model API's reply is not a Messages-API message: {problem}. The history holds "
        "the state from just before this call. Check that ANTHROPIC_BASE_URL points at a "
        "Messages API (not a proxy or web page), then call agent_loop again with the same list.")


def explain(error: Exception) -> None:
    """Add a note saying what failed, what state ``messages`` is in, what to do."""
    if is_prompt_too_long(error):
        todo = ("the request is still too long after compaction (or reactive_compact is off): "
                "lower Limits.reactive_keep_messages or Limits.context_limit, or start a new "
                "task from the saved transcript")
    elif isinstance(error, anthropic.APIConnectionError):
        todo = ("the API could not be reached or timed out: retry later, check the network and "
                "ANTHROPIC_BASE_URL, or give the client a longer timeout")
    elif isinstance(error, anthropic.APIStatusError) and (error.status_code == 429
                                                         or error.status_code >= 500):
        todo = (f"the API is overloaded or failing (HTTP {error.status_code}): retry later, or "
                "use a client with max_retries > 0")
    else:
        todo = "check ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and MODEL_ID, and the request"
    add_note = getattr(error, "add_note", None)
    if add_note is not None:
        add_note(f"compact.agent_loop: the model call failed; `messages` holds the history as "
                 f"it was just before this call (compaction already applied, no assistant "
                 f"message added), so agent_loop can be called again with it. What to do: {todo}.")
