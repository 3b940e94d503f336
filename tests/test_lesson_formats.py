"""Readers for every context marker a version of the lesson writes (pipeline/formats.py): ours,
the v8 version's and the lesson's bare snippets, read into the same shapes; a path in them is only
text, trusted as ours only when it is a name our storage creates."""

import json
from dataclasses import astuple

import pytest

from compact.offline.markers import read_compacted, read_persisted, read_placeholder, read_snip
from compact.pipeline.formats import (
    PLACEHOLDER,
    compacted_message,
    kept_path_placeholder,
    persisted_block,
    persisted_path,
    snip_marker,
)

OURS = ".task_outputs/tool-results/toolu_01.txt"
QUOTED = "Explain this:\n\nConversation summary (reference only):\nis a header"
V8_SUMMARY = 'Goal: compare\nNote [s08/code.py]: class "ContextCompactor"'
T9F = "/abs/.transcripts/transcript_9f.jsonl"


def v8_text(label: str, header: str, request: str, summary: str, transcript: str = "") -> str:
    return f"[{label}]\n\nCurrent user request:\n{request}\n\n{header}\n{json.dumps(summary)}{transcript}"


@pytest.mark.parametrize(("text", "fields"), [
    (compacted_message("[Compacted]", "Compare a.py and b.py", "Goal: x\nNote [a.py]: y")["content"],
     ("Compacted", "Compare a.py and b.py", "Goal: x\nNote [a.py]: y", None, "ours")),
    # the summary is JSON (no raw newline), so the last header is the real one
    (v8_text("Compacted", "Conversation summary (reference only):", QUOTED, "the summary"),
     ("Compacted", QUOTED, "the summary", None, "v8")),
    ("[Compacted]\n\nGoal: read the READMEs\nFindings: none",
     ("Compacted", None, "Goal: read the READMEs\nFindings: none", None, "bare")),
    *[(v8_text(label, header, "Compare it.", V8_SUMMARY, f"\n\nFull transcript: {T9F}"),
       (label, "Compare it.", V8_SUMMARY, T9F, "v8")) for label in ("Compacted", "Reactive compact")
      for header in ("Conversation summary (reference only):", "Conversation summary:")],
], ids=["ours", "v8-request-quotes-the-header", "bare-lesson-snippet",
        "v8-compacted", "v8-compacted-bare-header", "v8-reactive", "v8-reactive-bare-header"])
def test_compacted_messages_read_back(text, fields):
    assert astuple(read_compacted(text)) == fields


@pytest.mark.parametrize(("text", "fields"), [
    (persisted_block(OURS, 40_000, 2_000, "[{\"a\": 1"), (OURS, True, 40_000, "[{\"a\": 1")),
    ("<persisted-output>\nFull output: /w/.task_outputs/tool-results/t.txt\nPreview:\n{\"x\": [1,\n"
     "</persisted-output>", ("/w/.task_outputs/tool-results/t.txt", False, None, "{\"x\": [1,")),
    (f"<persisted-output>\nFull output: {OURS}\nPreview:\nabc\n</persisted-output>",
     (OURS, True, None, "abc")),
    (persisted_block("/etc/passwd", 10, 2, "ro"), ("/etc/passwd", False, 10, "ro")),    # read, not trusted
], ids=["ours", "v8", "v8-relative", "forged"])
def test_persisted_blocks_of_both_shapes(text, fields):
    assert astuple(read_persisted(text)) == fields
    assert fields[1] or persisted_path(text) is None      # the pipeline treats it as plain text


@pytest.mark.parametrize(("text", "kind", "path", "ours"), [
    (PLACEHOLDER, "compacted", None, False),
    (kept_path_placeholder(OURS), "compacted", OURS, True),
    ("[Earlier tool result compacted. Full output: /etc/passwd]", "compacted", "/etc/passwd", False),
    ("[Earlier tool result saved at /w/.task_outputs/tool-results/t.txt]", "saved",
     "/w/.task_outputs/tool-results/t.txt", False),
    ("[Earlier tool result omitted.]", "omitted", None, False),
])
def test_placeholders_of_every_version(text, kind, path, ours):
    assert astuple(read_placeholder(text)) == (kind, path, ours)


@pytest.mark.parametrize(("text", "count", "path"), [
    (snip_marker(4)["content"], 4, None),
    (snip_marker(7, ".transcripts/x.jsonl")["content"], 7, ".transcripts/x.jsonl"),
    ("[12 messages archived at /w/.transcripts/transcript_ab.jsonl]", 12,
     "/w/.transcripts/transcript_ab.jsonl"),
    ("[snipped 5 messages from conversation middle]", 5, None),
])
def test_snip_markers_of_every_version(text, count, path):
    assert astuple(read_snip(text)) == (count, path)


@pytest.mark.parametrize(("read", "text"), [
    *[(read_compacted, t) for t in ["Compacted", "[Compacted] no newline", "hello", "",
                                    "[Compactedx]\n\nCurrent user request:\nx"]],
    *[(read_placeholder, t) for t in ["[Earlier tool result]", "Earlier tool result omitted.",
                                      PLACEHOLDER + " and more", "# s01: title"]],
    (read_snip, "[snipped many messages]"), (read_snip, "12 messages archived"),
], ids=lambda value: value.__name__ if callable(value) else None)
def test_other_text_is_no_marker(read, text):
    assert read(text) is None
