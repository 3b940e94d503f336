"""The offline tokenizer: one token per 4 UTF-8 bytes of the wire JSON (an image: 1,600)."""

from __future__ import annotations

import math
from typing import Any

from ..pipeline.messages import BYTES_PER_TOKEN, image_adjustment, wire_json


def estimate_tokens(value: Any) -> int:
    messages = value.get("messages") if isinstance(value, dict) else value     # a request, or messages
    size = len(wire_json(value).encode("utf-8", "surrogatepass")) + image_adjustment(messages)
    return math.ceil(size / BYTES_PER_TOKEN)
