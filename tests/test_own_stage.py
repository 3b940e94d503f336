"""A learner's stage runs the lesson's experiment in place of the package's (notebook 01's
``run_experiment(2, stages={"tool_result_budget": my_tool_result_budget})``): written the
lesson's way, editing the batch in place, it gives the package's run and leaves the run's
record whole; written wrong, the run says where it parts from the package's."""

from pathlib import Path

from compact.classroom import check, results, run_experiment, solutions
from compact.classroom.show import turns
from compact.demo import DOCS_JSON_PATH
from compact.pipeline.storage import persist_tool_result
from compact.pipeline.tool_result_budget import persisted_text


def in_place_budget(messages, ctx, keep=persisted_text):
    """The lesson's loop as printed: it edits the last message's blocks and returns the list."""
    workdir, limits = ctx.workdir, ctx.limits
    last = messages[-1]
    if last["role"] != "user" or not isinstance(last["content"], list):
        return messages
    blocks = [b for b in last["content"] if b.get("type") == "tool_result"]
    total = sum(len(str(b.get("content", ""))) for b in blocks)
    for block in sorted(blocks, key=lambda b: len(str(b.get("content", ""))), reverse=True):
        if total <= limits.tool_result_budget:
            break
        content = str(block.get("content", ""))
        if len(content) <= limits.persist_threshold:
            continue
        block["content"] = keep(persist_tool_result(workdir, block["tool_use_id"], content),
                                content, limits.preview_chars)
        total = sum(len(str(b.get("content", ""))) for b in blocks)
    return messages


def path_and_raw_preview(path, text, preview_chars):
    """A wrong text to keep: the path, then the first characters, without the block around them."""
    return f"{path}\n{text[:preview_chars]}"


def test_a_stage_that_edits_in_place_runs_experiment_2_as_the_packages_does(tmp_path):
    mine = run_experiment(2, stages={"tool_result_budget": in_place_budget}, workdir=tmp_path / "mine")
    theirs = run_experiment(2, workdir=tmp_path / "theirs")
    assert mine.differences(theirs) == []
    assert mine.fired == ["tool_result_budget"] and len(mine.tool_results) == 1
    [turn] = [t for t in mine.trace.turns if t.stages]
    docs = (mine.workdir / DOCS_JSON_PATH).read_text()
    assert results(turn.before)[-1] == docs               # the record of what arrived is whole
    assert results(turn.sent)[-1].startswith("<persisted-output>")


def test_a_wrong_preview_fails_the_check_where_it_differs_and_changes_the_run(tmp_path):
    def wrong(messages, ctx):
        return in_place_budget(messages, ctx, keep=path_and_raw_preview)

    report = check("tool_result_budget", wrong, strict=False)
    first = report.outcomes[0]
    assert not first.passed and "first difference at character 0" in first.message
    assert "<persisted-output>" in first.message and ".task_outputs/tool-results/t1_0.txt" in first.message
    mine = run_experiment(2, stages={"tool_result_budget": wrong}, workdir=tmp_path / "mine")
    theirs = run_experiment(2, workdir=tmp_path / "theirs")
    found = mine.differences(theirs)
    assert any(line.startswith("turn 2: yours sent") for line in found)
    assert "the answers differ" in found and mine.fired == ["tool_result_budget"]


def test_the_run_says_when_the_stage_passed_in_is_the_worked_solution(tmp_path):
    """A learner who has not deleted the import line reads that the solution ran, not theirs;
    either reports the transcript it wrote (the JSONL, not the folder's .gitignore)."""
    solution = run_experiment(3, stages={"compact_history": solutions.compact_history},
                              workdir=tmp_path / "solution")
    mine = run_experiment(3, stages={"compact_history": lambda m, ctx: solutions.compact_history(m, ctx)},
                          workdir=tmp_path / "mine")
    [told] = [e for e in solution.events if e.stage == "compact_history" and e.fired]
    [own] = [e for e in mine.events if e.stage == "compact_history" and e.fired]
    assert [Path(f).suffix for f in told.files_written] == [".jsonl"]
    assert any(line.startswith("[transcript saved: .transcripts/transcript-") for line in solution.log)
    assert told.function == "compact.classroom.solutions.compact_history"
    assert own.function.endswith("<lambda>") and own.detail == told.detail
    assert "the worked solution's compact_history ran, not yours" in turns(solution, "experiment 3").title
    assert turns(mine, "experiment 3").title == "experiment 3"       # the table a notebook shows
