"""What any version of the lesson writes into the context, read back (never a file opened):
this package's markers, the newer v8 chapter's, and the bare ``[Compacted]\\n\\n<summary>``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..pipeline.formats import (
    COMPACTED,
    PERSISTED_CLOSE,
    PERSISTED_OPEN,
    PLACEHOLDER,
    PLACEHOLDER_PREFIX,
    REACTIVE,
    SAFE_PATH,
    TRANSCRIPT_LINE,
    parse_compacted,
)

V8_REQUEST = "Current user request:"
V8_SUMMARY_HEADERS = ("Conversation summary (reference only):", "Conversation summary:")
V8_OMITTED = "[Earlier tool result omitted.]"

_ANY_PERSISTED = re.compile(re.escape(PERSISTED_OPEN) + r"\nOutput too large \((?P<total>\d+) chars\)\. "
                            r"Full output saved to: (?P<path>[^\n]+)\nPreview \(first \d+ chars\):\n")
_V8_PERSISTED = re.compile(re.escape(PERSISTED_OPEN) + r"\nFull output: (?P<path>[^\n]+)\nPreview:\n")
_ANY_KEPT_PATH = re.compile(re.escape(PLACEHOLDER_PREFIX) + r" Full output: ([^\n]+)\]")
_V8_SAVED = re.compile(r"\[Earlier tool result saved at ([^\n]+)\]")
_ANY_SNIP = re.compile(r"\[snipped (\d+) messages(?: from conversation middle)?(?:; archived at ([^\n]+))?\]")
_V8_ARCHIVED = re.compile(r"\[(\d+) messages archived at ([^\n]+)\]")
# where the summariser's clip (pipeline.summary.clip_marker) cut a text; group: chars omitted
CLIPPED = re.compile(r"\n\[\.\.\. (\d+) chars omitted \.\.\.\]\n")


def is_ours(path: str) -> bool:
    """The path is a name our storage creates (``.task_outputs/tool-results/<safe id>.txt``)."""
    return re.fullmatch(SAFE_PATH, path, re.ASCII) is not None


@dataclass(frozen=True)
class CompactedText:
    label: str                 # "Compacted" or "Reactive compact"
    request: str | None        # None: a version that does not carry the request
    summary: str
    transcript: str | None     # as written (v8 cites it); never opened by a reader
    version: str               # "ours", "v8" or "bare"


def read_compacted(text: str) -> CompactedText | None:
    """A compacted message of any version: ours, v8's, or the bare ``[Compacted]\\n\\n<summary>``."""
    label = next((h for h in (COMPACTED, REACTIVE) if text.startswith(h + "\n")), None)
    if label is None:
        return None
    name, ours = label[1:-1], parse_compacted(text)
    if ours:
        return CompactedText(name, ours[0], str(ours[1]), None, "ours")
    body = text[len(label):].lstrip("\n")
    if not body.startswith(V8_REQUEST + "\n"):
        return CompactedText(name, None, body, None, "bare")
    rest = body[len(V8_REQUEST) + 1:]
    header = next((h for h in V8_SUMMARY_HEADERS if f"\n\n{h}\n" in rest), None)
    if header is None:
        return CompactedText(name, rest.strip(), "", None, "v8")
    request, _, tail = rest.rpartition(f"\n\n{header}\n")
    summary_text, sep, transcript = tail.rpartition(f"\n\n{TRANSCRIPT_LINE}")
    summary_text, transcript = (summary_text, transcript) if sep else (tail, None)
    try:
        summary = json.loads(summary_text)
    except ValueError:
        summary = summary_text
    return CompactedText(name, request, str(summary), transcript.strip() if transcript else None, "v8")


@dataclass(frozen=True)
class PersistedText:
    path: str                  # as written
    ours: bool                 # a name our storage creates
    total_chars: int | None    # v8 does not say
    preview: str


def read_persisted(text: str) -> PersistedText | None:
    """A ``<persisted-output>`` block in our shape or v8's (``Full output:`` / ``Preview:``)."""
    match = _ANY_PERSISTED.match(text) or _V8_PERSISTED.match(text)
    if not match:
        return None
    total = match.groupdict().get("total")             # v8 does not say
    preview = text[match.end():].removesuffix(PERSISTED_CLOSE).removesuffix("\n")
    return PersistedText(match["path"], is_ours(match["path"]), int(total) if total else None, preview)


@dataclass(frozen=True)
class PlaceholderText:
    kind: str                  # "compacted" (re-run it), "saved" (at a path) or "omitted"
    path: str | None
    ours: bool


def read_placeholder(text: str) -> PlaceholderText | None:
    """Any version's placeholder for an earlier tool result, or None."""
    if text in (PLACEHOLDER, V8_OMITTED):
        return PlaceholderText("compacted" if text == PLACEHOLDER else "omitted", None, False)
    for pattern, kind in ((_ANY_KEPT_PATH, "compacted"), (_V8_SAVED, "saved")):
        match = pattern.fullmatch(text)
        if match:
            return PlaceholderText(kind, match.group(1), is_ours(match.group(1)))
    return None


CLEARED = "[Tool result cleared by context management (clear_tool_uses_20250919).]"   # the API's


def is_placeholder(text: str | None) -> bool:
    """A result compacted away: by any lesson version's stages or by the API's context editing."""
    return text is not None and (read_placeholder(text) is not None or text.strip() == CLEARED)


@dataclass(frozen=True)
class SnipText:
    count: int
    archived_at: str | None    # as written


def read_snip(text: str) -> SnipText | None:
    """Any version's snip marker: ``[snipped N messages]`` (``; archived at <path>``) or
    v8's ``[N messages archived at <path>]``."""
    match = _ANY_SNIP.fullmatch(text) or _V8_ARCHIVED.fullmatch(text)
    return SnipText(int(match.group(1)), match.group(2)) if match else None
