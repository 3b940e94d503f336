"""How the offline model says what it is, to any client that asks.

Every HTTP answer carries the header ``x-offline-model: offline-compact-1``, and
``GET /v1/models`` lists only this model (with its ``max_tokens`` and window as
``max_input_tokens``, as the real Models API does), so a client with a dummy key pointed at
``python -m compact.offline serve`` can tell it is not talking to Claude, and what to ask it for.
"""

from __future__ import annotations

from .validation import error_answer

MODEL_NAME = "offline-compact-1"
HEADER = "x-offline-model"
# The in-process client's base URL: ``.invalid`` never resolves, so only the in-process
# transport can answer it, and its host names the model.
IN_PROCESS_URL = f"http://{MODEL_NAME}.invalid"


def model_info(max_tokens: int, window_tokens: int) -> dict:
    return {"type": "model", "id": MODEL_NAME, "created_at": "2026-01-01T00:00:00Z",
            "display_name": "offline-compact-1 (the embedded teaching model, not Claude)",
            "lifecycle": "active", "max_tokens": max_tokens, "max_input_tokens": window_tokens}


def route(method: str, path: str, info: dict) -> tuple[int, dict] | None:
    """The answer to a models request (list or one model), or None for any other path."""
    if method != "GET" or not path.startswith("/v1/models"):
        return None
    if path.rstrip("/") == "/v1/models":
        return 200, {"data": [info], "has_more": False, "first_id": MODEL_NAME,
                     "last_id": MODEL_NAME}
    if path == f"/v1/models/{MODEL_NAME}":
        return 200, dict(info)
    return error_answer(404, "not_found_error", f"model {path.rsplit('/', 1)[-1]!r} is not "
                        f"served here; this server is {MODEL_NAME}")
