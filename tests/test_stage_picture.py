"""The stage picture draws what the stage did, from its own event: one box per block coloured
by kind and as wide as its characters, placeholders hatched, what went to disk named, the
snipped gap as its marker, a summary as one box; every text from the string table."""

import copy

import pytest
from matplotlib.colors import to_hex
from matplotlib.text import Text

from compact import Compactor
from compact import texts as text_table
from compact.classroom.experiments import run_experiment
from compact.classroom.plot import KIND_COLOURS, plot_run
from compact.classroom.stage_cases import tool_turn
from compact.classroom.stage_picture import (
    MIN_SHARE,
    bands,
    block_kinds,
    cut_pairs,
    plot_stage,
    run_stage,
)
from tools.figures import long_history, stage_examples


@pytest.fixture(scope="module")
def stages(tmp_path_factory):
    return stage_examples(tmp_path_factory.mktemp("pictures"))


def patches(fig, prefix):
    return [p for p in fig.axes[0].patches if (p.get_gid() or "").startswith(prefix)]


def block_boxes(fig, row):
    """row's block boxes by (message, block), from their gids ``row:i:j``."""
    found = {}
    for patch in patches(fig, f"{row}:"):
        parts = patch.get_gid().split(":")
        if len(parts) == 3:
            found[int(parts[1]), int(parts[2])] = patch
    return found


def texts(fig):
    ax = fig.axes[0]
    found = [t for t in ax.texts] + [ax.title, *ax.get_yticklabels(), *fig.axes[0].get_legend().get_texts()]
    found += [c for c in ax.get_children() if isinstance(c, Text)]
    return [t.get_text() for t in found if t.get_text().strip()]


def test_each_block_is_a_box_coloured_by_kind_as_wide_as_its_characters_placeholders_hatched(stages):
    before, after, event = stages["micro_compact"]
    fig = plot_stage(before, after, event)
    boxes = block_boxes(fig, "before")
    kinds = {(i, j): kc for i, m in enumerate(before) for j, kc in enumerate(block_kinds(m))}
    assert set(boxes) == set(kinds)
    minimum = MIN_SHARE * max(sum(c for k, c in kinds.values()),
                              sum(c for m in after for _, c in block_kinds(m)))
    for key, (kind, chars) in kinds.items():
        assert to_hex(boxes[key].get_facecolor()) == KIND_COLOURS[kind].lower()
        assert boxes[key].get_width() == pytest.approx(max(chars, minimum))
    assert len(patches(fig, "before:message")) == len(before) == 13
    assert "very short blocks are drawn wider to stay visible" in " ".join(texts(fig))    # the scale says it
    assert fig.axes[0].get_title(loc="left").startswith(
        f"micro_compact: {event.size_before:,} → {event.size_after:,} chars (13 → 13 messages)")
    assert len(patches(fig, "before:placeholder")) == event.placeholders == 3
    new = [key for key, box in block_boxes(fig, "after").items()
           if to_hex(box.get_facecolor()) == KIND_COLOURS["placeholders"].lower()]
    assert len(new) == 3 and len(patches(fig, "after:placeholder")) == 3
    assert "became a placeholder" in texts(fig)


def test_tool_result_budget_names_the_files_its_results_went_to(stages, tmp_path):
    before, after, event = stages["tool_result_budget"]
    [path] = event.files_written
    assert path.startswith(".task_outputs/tool-results/")
    fig = plot_stage(before, after, event)
    ax = fig.axes[0]
    [disk] = [t for t in ax.texts if t.get_gid() == "disk"]
    assert disk.get_text().splitlines() == ["to disk:", path]
    [arrow] = [t for t in ax.texts if t.get_gid() == "to disk"]
    big = max(block_boxes(fig, "before").values(), key=lambda p: p.get_width())
    assert big.get_x() <= arrow.xy[0] <= big.get_x() + big.get_width()    # it leaves the big result
    after_kinds = [k for m in after for k, _ in block_kinds(m)]
    assert "persisted previews" in after_kinds and "tool results" not in after_kinds
    batch = [{"role": "user", "content": "read them"},             # an arrow from each one persisted
             *tool_turn(*[(f"t{k}", f"f{k}.txt", "x" * 60_000) for k in range(5)])]
    fig = plot_stage(*run_stage(Compactor(tmp_path), "tool_result_budget", batch))
    [disk] = [t for t in fig.axes[0].texts if t.get_gid() == "disk"]
    written = disk.get_text().splitlines()[1:]
    assert written == [".task_outputs/tool-results/t0.txt", ".task_outputs/tool-results/t1.txt"]
    assert len([t for t in fig.axes[0].texts if t.get_gid() == "to disk"]) == len(written)
    assert fig.axes[0].get_title(loc="left").startswith("tool_result_budget: ")


def test_snip_compact_draws_the_gap_as_its_marker_on_64_messages(stages):
    before, after, event = stages["snip_compact"]
    assert (len(before), len(after)) == (64, 51)
    fig = plot_stage(before, after, event)
    assert len(patches(fig, "before:message")) == 64 and len(patches(fig, "after:message")) == 51
    found = bands(before, after)
    [gap] = [b for b in found if b.how == "snipped"]
    assert (gap.b0, gap.b1, gap.a0, gap.a1) == (3, 17, 3, 4)
    assert block_kinds(after[3]) == [("markers", len(after[3]["content"]))]
    assert "14 snipped → one marker" in texts(fig)
    assert [b.how for b in found] == ["kept", "snipped", "kept"]


def test_compact_history_is_one_summary_box_and_the_transcript(stages):
    before, after, event = stages["compact_history"]
    fig = plot_stage(before, after, event)
    [(kind, _)] = [kc for m in after for kc in block_kinds(m)]
    assert kind == "summaries" and len(after) == 1
    [disk] = [t for t in fig.axes[0].texts if t.get_gid() == "disk"]
    assert disk.get_text().splitlines()[1] == event.files_written[0] == ".transcripts/transcript-0001.jsonl"
    [bracket] = [line for line in fig.axes[0].get_lines() if line.get_gid() == "disk bracket"]
    outlines = patches(fig, "before:message")
    left = min(p.get_x() for p in outlines)
    right = max(p.get_x() + p.get_width() for p in outlines)
    xs = bracket.get_xdata()
    assert (min(xs), max(xs)) == (pytest.approx(left), pytest.approx(right))
    assert "5 summarised → one message" in texts(fig)


def test_reactive_compact_summarises_all_but_the_last_five(stages):
    before, after, event = stages["reactive_compact"]
    fig = plot_stage(before, after, event)
    found = bands(before, after)
    assert [(b.how, b.b1 - b.b0, b.a1 - b.a0) for b in found] == [("summarised", 9, 1), ("kept", 5, 5)]
    assert len(patches(fig, "band:kept")) == 5                  # one band per kept message
    assert "1 message" not in texts(fig) and "after\n6 messages" in texts(fig)


def test_a_stage_with_nothing_to_do_says_so(tmp_path):
    history = [{"role": "user", "content": "hi"}, *tool_turn(("t1", "a.txt", "short"))]
    fig = plot_stage(*run_stage(Compactor(tmp_path), "micro_compact", history))
    assert fig.axes[0].get_title(loc="left").startswith("micro_compact: nothing to do (")
    assert patches(fig, "band:kept") and not patches(fig, "before:placeholder")
    assert "after\n3 messages" in texts(fig)


def test_snip_compact_marks_the_pairs_its_moved_cuts_kept_whole_run_stage_leaves_the_input(tmp_path):
    history = [{"role": "user", "content": "Task."}, {"role": "user", "content": "Constraint."}]
    for k in range(29):
        history += tool_turn((f"t{k}", f"f{k}.py", "x\n" * 50))
    before, after, event = run_stage(Compactor(tmp_path), "snip_compact", history)
    assert (event.extra["head_end"], event.extra["tail_start"]) == (4, 12)
    assert cut_pairs(before, event) == [(2, 3), (12, 13)]        # t0 at the head, t5 at the tail
    fig = plot_stage(before, after, event)
    assert len([line for line in fig.axes[0].get_lines() if line.get_gid() == "pair"]) == 2
    assert "tool_use → tool_result pairs at the cuts, kept whole" in texts(fig)
    chat = [{"role": "user" if k % 2 == 0 else "assistant", "content": f"step {k}"} for k in range(60)]
    kept = copy.deepcopy(chat)
    chat, chat_after, chat_event = run_stage(Compactor(tmp_path / "chat"), "snip_compact", chat)
    assert chat == kept and chat_event.fired and len(chat_after) == 51    # run_stage copies the input
    assert cut_pairs(chat, chat_event) == []                      # no tool calls: nothing to mark
    assert not [line for line in plot_stage(chat, chat_after, chat_event).axes[0].get_lines()
                if line.get_gid() == "pair"]


def test_block_kinds_splits_a_message_into_its_blocks():
    message = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "x" * 50},
        {"type": "text", "text": "and a note"}]}
    assert block_kinds(message) == [("tool results", 50), ("user text", 10)]
    assert block_kinds({"role": "assistant", "content": []}) == [("assistant text", 0)]


def marked(monkeypatch, prefix):
    """The text catalogs with every text under ``prefix`` wrapped in « » (what the Chinese
    table replaces): a text drawn without the marks did not come from the table."""
    table = {key: {lang: f"«{text}»" for lang, text in entry.items()} if key.startswith(prefix)
             else entry for key, entry in text_table.texts().items()}
    monkeypatch.setattr(text_table, "_TABLE", table)


@pytest.mark.parametrize("what", ["stage picture", "experiment 3", "baseline"])
def test_every_text_of_a_picture_or_a_run_plot_comes_from_its_labels(stages, tmp_path, monkeypatch, what):
    if what == "stage picture":
        marked(monkeypatch, "picture.")
        shown = texts(plot_stage(*stages["tool_result_budget"]))
        assert [t for t in shown if "«" not in t and not t.replace(",", "").isdigit()] == []
        return
    result = run_experiment(3, compaction=what != "baseline", workdir=tmp_path / "run")
    marked(monkeypatch, "plot.")
    fig = plot_run(result, panels=("context", "tokens", "messages", "composition"))
    shown = []
    for ax in fig.axes:
        shown += [ax.get_title(loc="left"), ax.get_xlabel(), ax.get_ylabel()]
        shown += [t.get_text() for t in ax.get_legend().get_texts()]
        shown += [child.yaxis.label.get_text() for child in ax.child_axes]   # ≈ tokens
    assert [t for t in shown if t and "«" not in t] == [] and len(shown) > 20


def test_a_second_compaction_with_the_same_summary_is_still_drawn_as_one(tmp_path):
    compactor = Compactor(tmp_path, summarize=lambda messages: "facts: the notes were read")
    first = compactor.compact_history(long_history(), "go")
    history = first + tool_turn(("z1", "a.txt", "y" * 3000)) + [{"role": "assistant", "content": "ok"}]
    before, after, event = run_stage(compactor, "compact_history", history, "go")
    assert after[0] == first[0] and event.fired                    # the same text as before
    assert [(b.how, b.b1 - b.b0) for b in bands(before, after, event)] == [("summarised", 4)]
