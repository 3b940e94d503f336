"""One factory for the model client: real Claude with a key, the offline model without.

Both are the real ``anthropic.Anthropic`` class, so every line of the agent is the same in
a classroom with no key and on a laptop with one.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anthropic

OFFLINE_MODEL = "offline-compact-1"
LIVE_FALLBACK_MODEL = "claude-sonnet-5-5"


def is_live() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


def default_model(client: Any = None) -> str:
    """The model name to send: the offline model for an offline client, else MODEL_ID."""
    if getattr(client, "_compact_offline", False) or (client is None and not is_live()):
        return OFFLINE_MODEL
    return os.environ.get("MODEL_ID") or LIVE_FALLBACK_MODEL


def banner(client: Any) -> str:
    if getattr(client, "_compact_offline", False):
        return (f"[offline] model {OFFLINE_MODEL}: an embedded teaching model, not Claude; "
                "set ANTHROPIC_API_KEY to use real Claude.")
    base = os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
    return f"[live] model {default_model(client)} via {base} (ANTHROPIC_API_KEY is set)."


def make_client(quiet: bool = False, **offline_options: Any) -> anthropic.Anthropic:
    """Live client if ANTHROPIC_API_KEY is set (honouring ANTHROPIC_BASE_URL), else offline.

    ``offline_options`` (e.g. ``window_tokens=...``) configure the offline model only.
    """
    if is_live():
        client = anthropic.Anthropic(base_url=os.environ.get("ANTHROPIC_BASE_URL") or None)
    else:
        from .offline import OfflineModel
        client = OfflineModel(**offline_options).client()
    if not quiet:
        print(banner(client), file=sys.stderr)
    return client
