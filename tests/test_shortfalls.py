"""The five places where the lesson's snippets fall short (see the README), each side by side."""

import copy
import json

from histories import assistant, session, tool_turn, user
from replies import client_for

from compact import PLACEHOLDER, Compactor, estimate_size, summarizer_for
from compact.classroom import as_written as lesson
from compact.classroom import results, run_experiment
from compact.offline import OfflineModel
from compact.pipeline.formats import persisted_path
from compact.pipeline.summary import SummaryInput, render_history


def test_1_newest_unseen_batch_is_never_compacted(compactor, tmp_path):
    # The model asked for 5 files in one batch and has not seen the results yet.
    history = [user("read"), *tool_turn(["x" * 500] * 5, "b")]
    lesson_out = lesson.micro_compact(copy.deepcopy(history))
    assert results(lesson_out).count(PLACEHOLDER) == 2          # lesson: 2 unseen results lost
    assert results(compactor.micro_compact(history)) == ["x" * 500] * 5   # package: all 5 kept
    assert results(compactor.prepare(history, "read")) == ["x" * 500] * 5  # and prepare uses it
    # Notebook 04's swapped order (stage 3 before stage 1) loses a big unseen log with the
    # lesson's micro_compact; the package's leaves the batch alone, so stage 1 still saves it.
    log = "error? no.\n" * 25_000
    batch = [user("Why does the build fail?"), *tool_turn([log] + ["k = v\n" * 40] * 4, "b")]
    for micro, folder, saved in ((lesson.micro_compact, tmp_path / "lesson", False),
                                 (None, tmp_path / "package", True)):
        stages = Compactor(folder)
        first = micro(copy.deepcopy(batch)) if micro else stages.micro_compact(copy.deepcopy(batch))
        stages.tool_result_budget(first)
        assert any(p.read_text() == log for p in folder.rglob("*.txt")) is saved


def test_2_persisted_results_keep_their_path_when_compacted(compactor, tmp_path):
    history = session([["big" * 100_000]]) + [assistant("read the preview")]
    history[-2:-1] = [compactor.tool_result_budget(history[:-1])[-1]]
    history += [*tool_turn(["y" * 500] * 3, "later"), assistant("more")]
    path = persisted_path(results(history)[0])
    assert path and (tmp_path / path).is_file()

    lesson_out = lesson.micro_compact(copy.deepcopy(history))
    assert results(lesson_out)[0] == PLACEHOLDER                # lesson: the path is gone
    ours = results(compactor.micro_compact(history))[0]
    assert ours == f"[Earlier tool result compacted. Full output: {path}]"
    assert len(ours) < 120 + len(path)


def test_3_size_is_measured_on_the_wire_json(tmp_path):
    history = [user('say "hi" — 你好'), assistant("done ✓"), user("next")]
    sent = []

    def capture(request):
        sent.append(request.read().decode("utf-8"))
        return OfflineModel().handle(request)

    client_for(capture).messages.create(model="offline-compact-1", max_tokens=10, messages=history)
    wire = json.dumps(json.loads(sent[0])["messages"], ensure_ascii=False, separators=(",", ":"))
    assert f'"messages":{wire},' in sent[0]                     # exactly what the SDK sent
    assert estimate_size(history) == len(wire)
    assert lesson.estimate_size(history) != len(wire)           # repr: quotes, escapes differ


def test_4_summary_input_is_capped_for_cjk_text_too(tmp_path):
    history = session([["z" * 400_000], ["w" * 400_000]]) + [assistant("end")]
    assert len(lesson.summary_input(history)) > 800_000             # lesson: all of it
    capped = render_history(history)
    assert len(capped) <= SummaryInput().input_chars + 100 and "chars omitted" in capped
    # 40 results of 2,100 CJK characters: a character cap would send ~29,000 offline tokens.
    history = [user("比较这些文件")]
    for k in range(40):
        history += tool_turn((f"t{k}", f"f{k}.md", "上下文窗口压缩" * 300))
    model = OfflineModel()
    compactor = Compactor(tmp_path, summarize=summarizer_for(model.client()))
    result = compactor.compact_history(history, "比较这些文件")
    assert result[0]["content"].startswith("[Compacted]")
    assert model.usage[0][0] == "summary" and model.usage[0][1] <= 16_000


def test_5_rereads_are_counted_and_notes_prevent_them(tmp_path):
    with_notes = run_experiment(1, workdir=tmp_path / "a")
    without = run_experiment(1, workdir=tmp_path / "b", client=OfflineModel(take_notes=False))
    assert with_notes.trace.rereads == 0 < without.trace.rereads
    calls = [sum(len(t.tool_calls) for t in r.trace.turns) for r in (with_notes, without)]
    assert calls[1] > calls[0] == 6                              # glob + 5 reads with notes
    assert without.trace.input_tokens > with_notes.trace.input_tokens
