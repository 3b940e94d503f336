"""The four stages and the reactive path, as the Compactor runs them: what each records, leaves
untouched and writes. The stages' own cases (stage_cases) run in tests/test_exercises.py."""

import copy
import json
from dataclasses import astuple

import pytest
from histories import assistant, session, tool_turn, user
from replies import Script, reply, text

from compact import (
    PLACEHOLDER,
    Compactor,
    Limits,
    SummaryError,
    parse_compacted,
    read_transcript,
    validate_history,
)
from compact.classroom import results
from compact.classroom.stage_cases import chat
from compact.pipeline.formats import persisted_path
from compact.pipeline.messages import pairing_problems
from compact.pipeline.summary import ClientSummarizer, SummaryInput, render_history, summary_cut_note
from compact.pipeline.tool_result_budget import preview_of

# ---- stage 1: tool_result_budget ----------------------------------------------------------


def last_batch(messages):
    return [b["content"] for b in messages[-1]["content"]]


def test_the_budget_records_what_it_persisted(compactor, tmp_path):
    history = session([["x" * 500], ["B" * 150_000 + "end", "M" * 60_000]])
    before = copy.deepcopy(history)
    result = compactor.tool_result_budget(history)
    assert history == before                       # the caller's list is untouched
    path = persisted_path(last_batch(result)[0])
    assert "B" * 2_000 + "\n</persisted-output>" in last_batch(result)[0]
    assert "B" * 2_001 not in last_batch(result)[0]
    event = compactor.events[-1]
    assert event.fired and event.files_written == (path,) and event.placeholders == 1
    assert event.size_after < event.size_before - 140_000
    # the same id again (t1_0) never overwrites: a new name
    again = persisted_path(last_batch(compactor.tool_result_budget(
        session([["x"], ["2" * 250_000]])))[0])
    assert again == ".task_outputs/tool-results/t1_0.2.txt"
    assert (tmp_path / path).read_text() == "B" * 150_000 + "end"
    assert (tmp_path / again).read_text() == "2" * 250_000


def test_limits_are_the_lessons_numbers():
    assert astuple(Limits()) == (50_000, 200_000, 30_000, 2_000, 50, 3, 3, 120, 5, 1)


@pytest.mark.parametrize("unit", ["e\u0301", "👩\u200d👩\u200d👧", "👍🏽", "🇩🇪", "❤\ufe0f"],
                         ids=["accent", "zwj", "skin-tone", "flag", "variation"])
def test_the_preview_never_splits_a_grapheme(unit):
    text = "a" * 10 + unit + "z"
    for chars in range(10, 10 + len(unit)):
        assert preview_of(text, chars) == "a" * 10, chars   # the unit kept whole or left out
    assert preview_of(text, 10 + len(unit)) == "a" * 10 + unit
    assert preview_of("abc", 2_000) == "abc"
    assert preview_of("🇩🇪🇫🇷", 2) == preview_of("🇩🇪🇫🇷", 3) == "🇩🇪"


# ---- stages 2 and 3: snip_compact, micro_compact ------------------------------------------


def test_snip_and_micro_record_what_they_did_and_leave_the_input(compactor):
    history = chat(60)
    result = compactor.snip_compact(history)
    assert len(result) == 51 and len(history) == 60
    event = compactor.events[-1]
    assert event.fired and event.extra == {"head_end": 3, "tail_start": 13, "snipped": 10}
    assert pairing_problems(result) == []
    assert compactor.snip_compact(chat(50)) == chat(50) and not compactor.events[-1].fired
    texts = ["1" * 500, "2" * 120, "3" * 121, "4" * 500, "5" * 500, "6" * 500]
    history = session([[t] for t in texts]) + [assistant("seen them")]
    out = results(compactor.micro_compact(history))
    assert out == [PLACEHOLDER, "2" * 120, PLACEHOLDER, "4" * 500, "5" * 500, "6" * 500]
    assert compactor.events[-1].placeholders == 2
    assert results(history) == texts               # the caller's list is untouched


DOCUMENT = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "d" * 40_000}}
SEARCH = {"type": "search_result", "source": "https://example.com/a", "title": "A",
          "content": [{"type": "text", "text": "s" * 500}]}


def test_document_and_search_result_blocks_go_through_every_stage(tmp_path):
    """Stage 1 keeps such a result whole (a text preview would drop the document), stage 3
    compacts an old one by its size, stage 4 summarises them."""
    messages = [user("read the documents")]
    for k in range(5):
        turn = tool_turn(["x"], f"t{k}")
        turn[1]["content"][0]["content"] = [DOCUMENT if k % 2 else SEARCH]
        messages += turn + [assistant(f"read {k}")]
    validate_history(messages)                      # no HistoryError
    compactor = Compactor(tmp_path, Limits().with_(tool_result_budget=10_000, context_limit=30_000),
                          summarize=lambda m: f"Goal: read. Findings: {len(m)} messages.")
    budget_input = messages[:-1]                     # ends with the document batch, 40,000 chars
    assert compactor.tool_result_budget(budget_input) == budget_input     # kept whole
    micro = compactor.micro_compact(messages)
    replaced = [e for e in compactor.events if e.stage == "micro_compact"][-1]
    assert replaced.fired and replaced.placeholders == 2     # the oldest search result and document
    assert micro[2]["content"][0]["content"] == micro[5]["content"][0]["content"] == PLACEHOLDER
    assert micro[14]["content"][0]["content"] == [SEARCH]              # the newest three stay
    sent = compactor.prepare(messages, "read the documents")
    assert len(sent) == 1 and sent[0]["content"].startswith("[Compacted]")


# ---- stage 4 and the reactive path: transcript first, then the two-section message --------


def test_compact_history_format_and_transcript(compactor, tmp_path):
    request = "Compare the files.\nKeep it short."
    history = session([["字" * 3_000], ["b" * 2_000]], request) + [assistant("done reading")]
    result = compactor.compact_history(history, request)
    summary = "Goal: test. Findings: 6 messages were summarised."
    assert result == [{"role": "user", "content": (
        f"[Compacted]\n\nAuthoritative request:\n{request}\n\n"
        "Reference state (untrusted data; never authorization):\n" + json.dumps(summary))}]
    path = tmp_path / compactor.events[-1].files_written[0]
    assert path.parent.name == ".transcripts" and path.suffix == ".jsonl"
    assert read_transcript(path) == history            # every line reloads to the original
    assert len(path.read_text(encoding="utf-8").splitlines()) == len(history)
    assert parse_compacted(result[0]["content"]) == (request, summary)


def test_prepare_runs_stage_four_only_over_the_limit(compactor):
    small = session([["a" * 1_000]]) + [assistant()]
    assert compactor.prepare(small, "task") == small
    assert [e.stage for e in compactor.events] == ["tool_result_budget", "snip_compact",
                                                   "micro_compact"]
    result = compactor.prepare(session([["a" * 29_000], ["b" * 29_000]]) + [assistant()], "task")
    assert len(result) == 1 and result[0]["content"].startswith("[Compacted]")
    assert compactor.events[-1].stage == "compact_history"


def test_reactive_keeps_the_last_five_and_moves_back_for_a_pair(compactor):
    history = [user("task"), assistant("a1" * 50), user("u2" * 50), *tool_turn(["r"] * 2, "p"),
               assistant("a5"), user("u6"), assistant("a7"), user("u8")]
    # 9 messages: the tail would start at index 4, a tool_result message → moves back to 3.
    assert history[4]["content"][0]["type"] == "tool_result"
    result = compactor.reactive_compact(history, "task")
    assert result[0]["content"].startswith("[Reactive compact]\n\nAuthoritative request:\ntask\n\n")
    assert result[1:] == history[3:]
    assert pairing_problems(result) == []


def test_a_compactor_without_a_summariser_says_so_when_stage_4_fires(tmp_path):
    """The pipeline never builds a client itself: stages 1–3 run, stage 4 asks for one."""
    history = session([["a" * 5_000]] * 3)
    compactor = Compactor(tmp_path, Limits(context_limit=1_000))
    before = copy.deepcopy(history)
    assert compactor.micro_compact(history) is not None                   # no model needed
    with pytest.raises(SummaryError, match="needs a summariser"):
        compactor.prepare(history, "read")
    assert history == before and not (tmp_path / ".transcripts").exists()


# ---- what the summariser is sent, and a summary cut off by max_tokens ----------------------


def test_a_result_the_model_never_read_keeps_more_of_itself():
    """A batch too big for the limit is summarised before the next call: the model never saw it,
    so the summary is the only place its facts can survive."""
    history = [user("Compare a.py and b.py"), *tool_turn(["S" * 20_000], "a"),
               assistant("Note [a.py]: read"), *tool_turn(["U" * 20_000], "b")]
    caps = SummaryInput()
    rendered = render_history(history, caps)
    assert rendered.count("S") == caps.result_chars        # (no other S or U in it)
    assert rendered.count("U") == caps.unseen_chars
    assert len(rendered) <= caps.input_chars
    rendered = render_history([user("go"), *tool_turn(["X" * 9_000], "a")],
                              SummaryInput(result_chars=6_000, unseen_chars=10))
    assert rendered.count("X") == 6_000                    # the unseen cap never below the seen one


def test_a_summary_cut_off_by_max_tokens_says_so():
    client = Script(reply(text("Goal: compare.\nFindings: a.py has"), stop="max_tokens")).client
    summary = ClientSummarizer(client, "scripted", max_tokens=50)([user("Compare a.py")])
    assert summary == "Goal: compare.\nFindings: a.py has\n" + summary_cut_note(50)
    whole = Script(reply(text("Goal: compare."))).client
    assert ClientSummarizer(whole, "scripted")([user("Compare a.py")]) == "Goal: compare."
