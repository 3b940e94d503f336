"""One factory for the model client: real Claude with a key, the offline model without.

Both are the real ``anthropic.Anthropic`` class, so every line of the agent is the same in
a classroom with no key and on a laptop with one. Each client is tagged with the model it
should be asked for (``_compact_model_name``), which the summariser reads too.

A key can be a dummy: pointed by ``ANTHROPIC_BASE_URL`` at ``python -m compact.offline serve``,
the client is live in form and offline in fact. The banner asks the server what it is
(``GET /v1/models`` answered with the ``x-offline-model`` header) and never calls it live.
"""

from __future__ import annotations

import sys
from typing import Any

import anthropic

from .offline import AGENT_MAX_TOKENS, HEADER, MODEL_NAME, OfflineModel
from .pipeline.env import DEFAULT_BASE_URL, base_url, is_live, live_model
from .shown_url import shown_url  # issue 23: the banner shows no user, password or query

PROBE_TIMEOUT = 3.0       # seconds; only an ANTHROPIC_BASE_URL other than Anthropic's is probed


def is_offline(client: Any) -> bool:
    """The embedded model, in-process or served over HTTP."""
    return bool(getattr(client, "_compact_offline", False)
                or getattr(client, "_compact_served_offline", None))


def serves_offline_model(client: anthropic.Anthropic) -> bool:
    """Whether the client's endpoint says it is the offline model (one GET, no retry)."""
    try:
        raw = client.with_options(max_retries=0, timeout=PROBE_TIMEOUT) \
            .models.with_raw_response.list()
    except anthropic.APIError:            # unreachable, refused, not found: not ours
        return False
    return raw.headers.get(HEADER) == MODEL_NAME


def default_model(client: Any = None) -> str:
    """The model name to send: the client's own tag, else the offline model or MODEL_ID."""
    tagged = getattr(client, "_compact_model_name", None)
    if isinstance(tagged, str) and tagged:
        return tagged
    if client is None and not is_live():
        return MODEL_NAME
    return live_model()


LESSON_MAX_TOKENS = 8_000        # what the lesson's loop asks Claude for


def default_max_tokens(client: Any = None, model: str | None = None) -> int:
    """``max_tokens`` for agent_loop, per model as agents choose it: the client's own tag,
    else the offline model's (its window is 16,000 tokens, so it is asked for
    ``AGENT_MAX_TOKENS``, even over HTTP), else the lesson's 8,000 for Claude."""
    tagged = getattr(client, "_compact_max_tokens", None)
    if isinstance(tagged, int) and tagged > 0:
        return tagged
    return AGENT_MAX_TOKENS if model == MODEL_NAME else LESSON_MAX_TOKENS


def banner(client: Any) -> str:
    served = getattr(client, "_compact_served_offline", None)
    if served:
        return (f"[offline] model {MODEL_NAME} served at {shown_url(served)}: the offline "
                "teaching model "
                "over HTTP, not Claude (ANTHROPIC_API_KEY is set, but this endpoint says it is "
                "the offline model).")
    if is_offline(client):
        return (f"[offline] model {MODEL_NAME}: an embedded teaching model, not Claude; "
                "set ANTHROPIC_API_KEY to use real Claude.")
    return (f"[live] model {default_model(client)} via {shown_url(base_url() or DEFAULT_BASE_URL)} "
            "(ANTHROPIC_API_KEY is set).")


def make_client(quiet: bool = False, **offline_options: Any) -> anthropic.Anthropic:
    """Live client if ANTHROPIC_API_KEY is set (honouring ANTHROPIC_BASE_URL), else offline.

    ``offline_options`` (e.g. ``window_tokens=...``) configure the offline model only. With a
    key and an ANTHROPIC_BASE_URL, the endpoint is asked once what it is: the offline server
    answers, and the client is tagged as offline (banner, model name) while still talking
    HTTP to that server.
    """
    if is_live():
        client = anthropic.Anthropic(base_url=base_url())
        url = base_url()
        if url and url.rstrip("/") != DEFAULT_BASE_URL and serves_offline_model(client):
            client._compact_served_offline = url
            client._compact_model_name = MODEL_NAME
    else:
        client = OfflineModel(**offline_options).client()
    if not quiet:
        print(banner(client), file=sys.stderr)
    return client
