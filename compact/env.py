"""What the environment says: is a key set, which model, which endpoint. Imports nothing.

The names are the lesson's: ANTHROPIC_API_KEY, MODEL_ID, ANTHROPIC_BASE_URL.
"""

from __future__ import annotations

import os

LIVE_FALLBACK_MODEL = "claude-sonnet-5-5"
DEFAULT_BASE_URL = "https://api.anthropic.com"


def is_live() -> bool:
    """A key is set, so the suite talks to real Claude (or whatever ANTHROPIC_BASE_URL serves)."""
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


def live_model() -> str:
    return os.environ.get("MODEL_ID") or LIVE_FALLBACK_MODEL


def base_url() -> str | None:
    return os.environ.get("ANTHROPIC_BASE_URL") or None
