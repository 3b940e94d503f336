"""One factory for the model client, and what a client talks to, asked — never guessed.

``make_client()`` gives real Claude with ANTHROPIC_API_KEY and the embedded offline model
without, both the real ``anthropic.Anthropic`` class. ``endpoint(client)`` asks an in-process
or loopback endpoint for the offline model's entry (the ``x-offline-model`` header); any other
endpoint is Claude."""

from __future__ import annotations

import contextlib
import importlib
import ipaddress
import os
import sys
import urllib.parse
import weakref
from dataclasses import dataclass
from typing import Any

import anthropic

from .pipeline import ClientSummarizer
from .texts import say

# How the embedded offline model is told apart from Claude, for a client that asks (the
# offline model answers with the same; tests/test_layout.py checks it).
MODEL_NAME = "offline-compact-1"
HEADER = "x-offline-model"          # every answer of the offline model carries it
IN_PROCESS_URL = f"http://{MODEL_NAME}.invalid"    # never resolves: only in-process answers
AGENT_MAX_TOKENS = 1_024            # what its clients ask for by default (its answers are short)
OFFLINE_MODULE = "compact.offline"  # loaded by make_client only when no API key is set

PROBE_TIMEOUT = 3.0       # seconds; only an endpoint on this machine is asked
LESSON_MAX_TOKENS = 8_000        # what the lesson's loop asks Claude for
LIVE_FALLBACK_MODEL = "claude-sonnet-5-5"
DEFAULT_BASE_URL = "https://api.anthropic.com"


def is_live() -> bool:
    """A key is set, so the suite talks to real Claude (or whatever ANTHROPIC_BASE_URL serves)."""
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


def live_model() -> str:
    return os.environ.get("MODEL_ID") or LIVE_FALLBACK_MODEL


def base_url() -> str | None:
    return os.environ.get("ANTHROPIC_BASE_URL") or None


@dataclass(frozen=True)
class Endpoint:
    """What a client talks to, and what to ask it for."""

    offline: bool
    model: str                  # the model name to send
    max_tokens: int             # agent_loop's default max_tokens
    url: str                    # its base URL (IN_PROCESS_URL for the embedded model)


_KNOWN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def endpoint(client: Any) -> Endpoint:
    """Ask once what ``client`` talks to (one GET, for an endpoint on this machine)."""
    if client not in _KNOWN:
        _KNOWN[client] = _ask(client)
    return _KNOWN[client]


def _ask(client: Any) -> Endpoint:
    url, raw = str(client.base_url).rstrip("/"), None
    if url == IN_PROCESS_URL or _on_this_machine(url):
        with contextlib.suppress(anthropic.APIError):   # unreachable, refused, not found: not ours
            raw = client.with_options(max_retries=0, timeout=PROBE_TIMEOUT) \
                .models.with_raw_response.retrieve(MODEL_NAME)
    if raw is None or raw.headers.get(HEADER) != MODEL_NAME:
        return Endpoint(False, live_model(), LESSON_MAX_TOKENS, url)
    served_max = raw.parse().max_tokens or AGENT_MAX_TOKENS
    return Endpoint(True, MODEL_NAME, min(AGENT_MAX_TOKENS, served_max), url)


def _on_this_machine(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_offline(client: Any) -> bool:
    """The embedded model, in-process or served over HTTP."""
    return _asks(client) and endpoint(client).offline


def _asks(client: Any) -> bool:
    """Whether ``client`` can be asked what it talks to (it has a base URL and a models API)."""
    return hasattr(client, "base_url") and hasattr(client, "models")


def default_model(client: Any = None) -> str:
    """The model name to send: the one the client's endpoint serves, else MODEL_ID."""
    if _asks(client):
        return endpoint(client).model
    return MODEL_NAME if client is None and not is_live() else live_model()


def default_max_tokens(client: Any = None, model: str | None = None) -> int:
    """The offline model's short answers (``AGENT_MAX_TOKENS``), else the lesson's 8,000."""
    if _asks(client):
        return endpoint(client).max_tokens
    return AGENT_MAX_TOKENS if model == MODEL_NAME else LESSON_MAX_TOKENS


def summarizer_for(client: Any, model: str | None = None) -> ClientSummarizer:
    """Stage 4's summariser: ``client`` asked for ``model`` (default: what it serves)."""
    return ClientSummarizer(client, model or default_model(client))


def shown_url(url: str) -> str:
    """An endpoint URL as the banner shows it: scheme, host, port and path, never a password,
    query or fragment; ``(unreadable URL)`` if it cannot be read."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:                      # a port that is not a number, a bad IPv6 host
        return "(unreadable URL)"
    if not parts.scheme or not host:
        return "(unreadable URL)"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{f':{port}' if port is not None else ''}{parts.path}"


def banner(client: Any) -> str:
    """One line on what ``client`` talks to, in the chosen language."""
    if not is_offline(client):
        return say("banner.live", model=default_model(client),
                   url=shown_url(base_url() or DEFAULT_BASE_URL))
    url = endpoint(client).url
    if url == IN_PROCESS_URL:
        return say("banner.offline", model=MODEL_NAME)
    return say("banner.served", model=MODEL_NAME, url=shown_url(url))


def make_client(quiet: bool = False, **offline_options: Any) -> anthropic.Anthropic:
    """Live client if ANTHROPIC_API_KEY is set (honouring ANTHROPIC_BASE_URL), else offline
    (``offline_options`` configure it; it is loaded only here)."""
    client = anthropic.Anthropic(base_url=base_url()) if is_live() \
        else importlib.import_module(OFFLINE_MODULE).OfflineModel(**offline_options).client()
    if not quiet:
        print(banner(client), file=sys.stderr)
    return client
