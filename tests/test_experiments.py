"""The three experiments with the default numbers, offline: each shows what the lesson promises."""

import json

import pytest

from compact import PLACEHOLDER, read_transcript
from compact.classroom.experiments import run_experiment
from compact.demo import DOCS_JSON_PATH, expected_titles
from compact.pipeline.formats import persisted_path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("experiments")
    return {n: run_experiment(n, workdir=root / f"e{n}") for n in (1, 2, 3)}


def tool_results(messages):
    return [b for m in messages if isinstance(m["content"], list) for b in m["content"]
            if b["type"] == "tool_result"]


def test_experiment_1_micro_compact_keeps_three_newest(runs):
    result = runs[1]
    reads = [c for t in result.trace.turns for c in t.tool_calls if c[0] == "read_file"]
    assert [c[1]["path"] for c in reads] == [f"{k}/README.md" for k in expected_titles()]
    final = tool_results(result.trace.turns[-1].sent)
    assert len(final) == 6                                          # glob + 5 reads
    assert [b["content"] for b in final[:3]] == [PLACEHOLDER] * 3
    assert all(len(b["content"]) > 120 and b["content"].startswith("# s0") for b in final[3:])
    assert "micro_compact" in result.fired and result.files_written == []
    for title in expected_titles().values():
        assert title in result.answer
    assert "Naming pattern: every title is `sNN: <Name> — <phrase>`: the chapter code (its number " \
           "is the folder's), a colon, a short name in title case (in English), an em dash, then a " \
           "lowercase phrase (in English)." in result.answer


def test_experiment_2_persists_the_big_result_and_answers_from_the_preview(runs):
    result = runs[2]
    assert result.fired == ["tool_result_budget"]
    [saved] = result.tool_results
    original = (result.workdir / DOCS_JSON_PATH).read_bytes()
    assert len(original) > 250_000 and saved.read_bytes() == original
    context = tool_results(result.trace.turns[-1].sent)[0]["content"]
    assert persisted_path(context) == saved.relative_to(result.workdir).as_posix()
    preview = original.decode()[:2_000]
    assert preview in context and original.decode()[:2_001] not in context
    record = json.loads(original)["docs"][0]
    for field in record:
        assert field in result.answer
    assert "persisted at .task_outputs/tool-results/" in result.answer


def test_experiment_3_compacts_history_and_finishes_from_the_summary(runs):
    result = runs[3]
    assert result.fired == ["compact_history"]
    turn = next(t for t in result.trace.turns if "compact_history" in t.stages)
    assert turn.size_before > 50_000 and turn.size_sent < 50_000
    assert len(turn.sent) == 1 and turn.sent[0]["content"].startswith("[Compacted]")
    [transcript] = result.transcripts
    reloaded = read_transcript(transcript)
    assert reloaded[0] == {"role": "user", "content": result.prompt}
    assert len(reloaded) == turn.messages_before
    assert any(line == f"[transcript saved: {transcript.relative_to(result.workdir)}]"
               for line in result.log)
    assert "[auto compact]" in result.log
    assert "from the summary's notes" in result.answer
    assert "Context compaction" in result.answer and "Persistent memory" in result.answer
    # The answer describes the lesson's pipeline, read from the demo's s08 program.
    stores = result.answer.split("What each stores, and where (the files it writes):\n")[1]
    s08_line = stores.splitlines()[0]
    assert s08_line.startswith("- s08_context_compact/code.py: .task_outputs/tool-results/")
    assert ".transcripts/" in s08_line and ".outputs/" not in result.answer
    prompt = result.answer.split("What each keeps in the prompt (what it sends the model):\n")[1]
    for text in ("tool_result_budget, snip_compact, micro_compact", "[snipped {…} messages]",
                 "[Earlier tool result compacted. Re-run if needed.]", "[Compacted]"):
        assert text in prompt.splitlines()[0], text


def test_baseline_without_compaction_is_refused_like_the_api(tmp_path):
    result = run_experiment(3, compaction=False, workdir=tmp_path / "base")
    assert result.error.startswith("prompt is too long: ")
    assert result.error.endswith("tokens > 16000 maximum")
    assert result.fired == [] and result.refused_size > 50_000
    assert result.files_written == []          # no reactive path either: nothing compacted


def test_the_same_experiment_twice_gives_the_same_trace_and_a_fourth_does_not_exist(runs, tmp_path):
    def fingerprint(result):
        return [(t.tool_calls, t.stages, t.size_before, t.size_sent, t.input_tokens, t.text)
                for t in result.trace.turns] + [result.answer]
    for n in (1, 2, 3):
        assert fingerprint(runs[n]) == fingerprint(run_experiment(n, workdir=tmp_path / f"b{n}"))
    with pytest.raises(ValueError, match="choose 1, 2 or 3"):       # and an unknown one is a clear error
        run_experiment(4)
