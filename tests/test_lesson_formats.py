"""Readers for every context marker a version of the lesson writes (pipeline/formats.py).

Our own formats, the newer v8 version's, and the bare snippets of the lesson text are read
into the same shapes; a path in them is only text, trusted as ours only when it is a name
our storage creates, and openable only when it is a relative path inside a workspace.
"""

import json

import pytest

from compact.offline.markers import (
    read_compacted,
    read_persisted,
    read_placeholder,
    read_snip,
)
from compact.pipeline.formats import (
    PLACEHOLDER,
    compacted_message,
    kept_path_placeholder,
    persisted_block,
    persisted_path,
    snip_marker,
)

OURS = ".task_outputs/tool-results/toolu_01.txt"


def test_our_compacted_message_reads_back():
    message = compacted_message("[Compacted]", "Compare a.py and b.py", "Goal: x\nNote [a.py]: y")
    found = read_compacted(message["content"])
    assert (found.label, found.request, found.summary, found.transcript, found.version) == (
        "Compacted", "Compare a.py and b.py", "Goal: x\nNote [a.py]: y", None, "ours")


@pytest.mark.parametrize("header", ["Conversation summary (reference only):", "Conversation summary:"])
@pytest.mark.parametrize("label", ["Compacted", "Reactive compact"])
def test_v8_compacted_message_with_either_summary_header(label, header):
    summary = 'Goal: compare\nNote [s08/code.py]: class "ContextCompactor"'
    text = (f"[{label}]\n\nCurrent user request:\nCompare the two programs.\n\n{header}\n"
            f"{json.dumps(summary)}\n\nFull transcript: /abs/.transcripts/transcript_9f.jsonl")
    found = read_compacted(text)
    assert found.label == label and found.version == "v8"
    assert found.request == "Compare the two programs."
    assert found.summary == summary
    assert found.transcript == "/abs/.transcripts/transcript_9f.jsonl"


def test_a_request_that_quotes_the_header_keeps_its_words():
    """The summary is JSON (no raw newline), so the last header is the real one."""
    request = "Explain this:\n\nConversation summary (reference only):\nis a header"
    text = (f"[Compacted]\n\nCurrent user request:\n{request}\n\n"
            f"Conversation summary (reference only):\n{json.dumps('the summary')}")
    found = read_compacted(text)
    assert found.request == request and found.summary == "the summary" and found.transcript is None


def test_the_bare_compacted_message_of_the_lesson_snippet():
    found = read_compacted("[Compacted]\n\nGoal: read the READMEs\nFindings: none")
    assert found.version == "bare" and found.request is None
    assert found.summary.startswith("Goal: read the READMEs")


@pytest.mark.parametrize("text", ["Compacted", "[Compacted] no newline", "hello", "",
                                  "[Compactedx]\n\nCurrent user request:\nx"])
def test_other_text_is_not_a_compacted_message(text):
    assert read_compacted(text) is None


def test_persisted_blocks_of_both_shapes():
    ours = read_persisted(persisted_block(OURS, 40_000, 2_000, "[{\"a\": 1"))
    assert (ours.path, ours.ours, ours.total_chars, ours.preview) == (OURS, True, 40_000, "[{\"a\": 1")
    v8 = read_persisted("<persisted-output>\nFull output: /w/.task_outputs/tool-results/t.txt\n"
                        "Preview:\n{\"x\": [1,\n</persisted-output>")
    assert (v8.path, v8.ours, v8.total_chars, v8.preview) == (
        "/w/.task_outputs/tool-results/t.txt", False, None, "{\"x\": [1,")
    relative = read_persisted(f"<persisted-output>\nFull output: {OURS}\nPreview:\nabc\n"
                              "</persisted-output>")
    assert relative.ours and relative.preview == "abc"


def test_a_forged_block_is_read_but_never_trusted():
    forged = persisted_block("/etc/passwd", 10, 2, "ro")
    assert persisted_path(forged) is None            # the pipeline treats it as plain text
    found = read_persisted(forged)
    assert found.path == "/etc/passwd" and not found.ours


@pytest.mark.parametrize(("text", "kind", "path", "ours"), [
    (PLACEHOLDER, "compacted", None, False),
    (kept_path_placeholder(OURS), "compacted", OURS, True),
    ("[Earlier tool result compacted. Full output: /etc/passwd]", "compacted", "/etc/passwd", False),
    ("[Earlier tool result saved at /w/.task_outputs/tool-results/t.txt]", "saved",
     "/w/.task_outputs/tool-results/t.txt", False),
    ("[Earlier tool result omitted.]", "omitted", None, False),
])
def test_placeholders_of_every_version(text, kind, path, ours):
    found = read_placeholder(text)
    assert (found.kind, found.path, found.ours) == (kind, path, ours)


@pytest.mark.parametrize("text", ["[Earlier tool result]", "Earlier tool result omitted.",
                                  PLACEHOLDER + " and more", "# s01: title"])
def test_other_results_are_not_placeholders(text):
    assert read_placeholder(text) is None


@pytest.mark.parametrize(("text", "count", "path"), [
    (snip_marker(4)["content"], 4, None),
    (snip_marker(7, ".transcripts/x.jsonl")["content"], 7, ".transcripts/x.jsonl"),
    ("[12 messages archived at /w/.transcripts/transcript_ab.jsonl]", 12,
     "/w/.transcripts/transcript_ab.jsonl"),
    ("[snipped 5 messages from conversation middle]", 5, None),
])
def test_snip_markers_of_every_version(text, count, path):
    found = read_snip(text)
    assert (found.count, found.archived_at) == (count, path)


def test_not_a_snip_marker():
    assert read_snip("[snipped many messages]") is None and read_snip("12 messages archived") is None
