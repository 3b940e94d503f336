"""What the context is made of: characters per kind of content (each Turn records it; the plots
stack it)."""

from __future__ import annotations

import json

from .pipeline.formats import PERSISTED_OPEN, PLACEHOLDER_PREFIX, parse_compacted, snipped_count
from .pipeline.messages import block_type, blocks_of, plain_text, result_size, result_text, to_plain

KINDS = ("user text", "assistant text", "tool calls", "tool results", "persisted previews",
         "placeholders", "summaries", "markers")


def composition(messages: list) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    for message in messages:
        if not isinstance(message, dict) or not all(isinstance(b, dict) for b in blocks_of(message)):
            message = to_plain(message)     # SDK blocks; plain dicts are read as they are
        content = message.get("content")
        if isinstance(content, str) or (message.get("role") == "user" and not any(
                block_type(b) == "tool_result" for b in content or [])):
            text = plain_text(message)
            if snipped_count(message) is not None:
                counts["markers"] += len(text)
            elif parse_compacted(text):
                counts["summaries"] += len(text)
            else:
                counts[f"{message['role']} text"] += len(text)
            continue
        for block in content:
            kind = block_type(block)
            if kind == "text":
                counts[f"{message['role']} text"] += len(block.get("text", ""))
            elif kind == "tool_use":
                counts["tool calls"] += len(json.dumps(block.get("input", {}),
                                                       ensure_ascii=False)) + len(block["name"])
            elif kind == "tool_result":
                text = result_text(block)
                if text.startswith(PERSISTED_OPEN):
                    counts["persisted previews"] += len(text)
                elif text.startswith(PLACEHOLDER_PREFIX):
                    counts["placeholders"] += len(text)
                else:
                    counts["tool results"] += result_size(block)    # images: IMAGE_CHARS
    return counts
