"""The three mistakes a learner makes most (micro_compact keeping 2, a summary not JSON-encoded, a
reactive tail one message short): the checker names the case and where it differs, and a run
with the wrong stage parts from the package's run."""

from planted import keeps_two, planted

from compact import agent_loop, summarizer_for
from compact.classroom import Compactor, check, prompt, run_experiment
from compact.demo import make_workspace
from compact.offline import OfflineModel


def failing(stage, fn):
    report = check(stage, fn, strict=False)
    assert not report.passed
    return report, str(report)


def test_keeping_two_is_named_where_it_differs_and_changes_experiment_1(tmp_path):
    report, text = failing("micro_compact", keeps_two)
    assert "all but the 3 newest results become the placeholder" in report.failed[0]
    assert "#4 → a placeholder" in text and "message 8, block 0" in text
    mine = run_experiment(1, stages={"micro_compact": keeps_two}, workdir=tmp_path / "mine")
    theirs = run_experiment(1, workdir=tmp_path / "theirs")
    assert any(line.startswith("turn 4: yours sent") for line in mine.differences(theirs))
    assert set(mine.fired) == set(theirs.fired) == {"micro_compact"}


def test_a_summary_not_json_encoded_is_named_and_changes_experiment_3(tmp_path):
    report, text = failing("compact_history", planted("04"))
    assert "the summary as a JSON string" in report.failed[0]
    assert "a summary that imitates a section header stays inside the JSON string" in report.failed
    assert not any("saved to .transcripts/" in name for name in report.failed)   # its transcript is right
    assert "first difference at character" in text
    mine = run_experiment(3, stages={"compact_history": planted("04")}, workdir=tmp_path / "mine")
    theirs = run_experiment(3, workdir=tmp_path / "theirs")
    assert any(line.startswith("turn 3: yours sent") for line in mine.differences(theirs))


def session():
    """Four long earlier questions and answers, then experiment 3's request (notebook 05's)."""
    earlier = []
    for k in range(1, 5):
        question, answer = "这一章怎样管理上下文窗口？" * 80, "上下文窗口有限，工具结果占据最多空间。" * 80
        earlier += [{"role": "user", "content": f"问题 {k}：{question}"},
                    {"role": "assistant", "content": f"回答 {k}：{answer}"}]
    return earlier + [{"role": "user", "content": prompt(3)}]


def rescued(root, functions=None):
    model = OfflineModel().client()
    compactor = Compactor(make_workspace(root), summarize=summarizer_for(model), functions=functions)
    return agent_loop(session(), prompt(3), client=model, workspace=root, compactor=compactor,
                      log=lambda line: None)


def test_a_reactive_tail_one_short_is_named_and_sends_other_messages(tmp_path):
    report, text = failing("reactive_compact", planted("05"))
    assert report.failed[0].startswith("keeps the last 5 messages")
    assert "expected" in text
    mine = rescued(tmp_path / "mine", {"reactive_compact": planted("05")})
    theirs = rescued(tmp_path / "theirs")
    assert any(t.refused for t in theirs.turns) and any(t.refused for t in mine.turns)
    assert [t.sent for t in mine.turns] != [t.sent for t in theirs.turns]
