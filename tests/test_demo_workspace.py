"""The demo workspace laid out by compact.demo.make_workspace; its s08 program agrees with the
lesson it sits beside and its s09 program is a memory chapter, both run stage by stage."""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import re
from pathlib import Path

import pytest

from compact.classroom import as_written
from compact.classroom.stage_cases import tool_turn
from compact.demo import (
    DOCS_JSON_PATH,
    LESSON_TITLES,
    LESSONS,
    expected_titles,
    make_workspace,
    static_files,
)

FIELDS = ["id", "lesson", "slug", "title", "locale", "order", "summary", "headings", "word_count",
          "updated", "body"]
H1 = re.compile(r"^# s\d\d: .+ — .+$")


def tree(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*"))
            if path.is_file()}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return make_workspace(tmp_path_factory.mktemp("demo") / "ws")


def test_tree_contents_the_same_at_each_call_in_an_empty_folder_never_a_full_one(workspace, tmp_path):
    files = tree(workspace)
    assert tree(make_workspace(tmp_path / "again")) == files
    assert set(static_files()) | {DOCS_JSON_PATH} == set(files)
    assert {"README.md", *(f"{lesson}/README.md" for lesson in LESSONS)} <= set(files)
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in files)
    (tmp_path / "empty").mkdir()
    assert make_workspace(tmp_path / "empty") == tmp_path / "empty" and tree(tmp_path / "empty") == files
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(FileExistsError):
        make_workspace(tmp_path / "file")
    with pytest.raises(FileExistsError, match="not empty"):
        make_workspace(tmp_path / "again")
    assert tree(tmp_path / "again") == files


def test_docs_json_its_records_and_their_fields(workspace):
    text = (workspace / DOCS_JSON_PATH).read_text(encoding="utf-8")
    assert 260_000 <= len(text) <= 300_000
    data = json.loads(text)
    assert (data["schema"], data["generated"]) == ("course-docs/v1", "2026-01-01T00:00:00Z")
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"     # so it ends "}\n"
    docs = data["docs"]
    assert len(docs) >= 9
    for record in docs:
        assert list(record) == FIELDS and record["locale"] in {"en", "zh", "ja"}
        assert [type(record[k]) for k in ("order", "word_count", "headings")] == [int, int, list]
    assert len(docs[0]["body"]) < 600
    assert max(len(record["body"]) for record in docs) > 10_000
    # its first record whole in the first 2,000 chars: test_offline_chinese's experiment 2


def test_readme_titles(workspace):
    titles = expected_titles()
    assert sorted(titles) == list(LESSONS[:5])
    assert [name[:3] for name in titles] == ["s01", "s02", "s03", "s04", "s05"]
    for lesson in LESSONS:
        lines = (workspace / lesson / "README.md").read_text(encoding="utf-8").splitlines()
        assert H1.match(lines[0]) and lines[0] == f"# {LESSON_TITLES[lesson]}", lines[0]
        assert not any(line.startswith("# ") for line in lines[1:]), lesson
        body = "\n".join(lines[1:])
        assert 1_500 <= len(body) <= 3_000, (lesson, len(body))


@pytest.mark.parametrize(("relative", "low", "high"), [("s08_context_compact/code.py", 34_000, 38_000),
                                                       ("s09_memory/code.py", 30_000, 34_000)])
def test_code_files(workspace, relative, low, high):
    source = (workspace / relative).read_text(encoding="utf-8")
    assert low <= len(source) <= high
    first_line = ast.get_docstring(ast.parse(source), clean=False).split("\n")[0]
    assert first_line.endswith(".") and first_line.count(". ") == 0
    assert source.startswith('"""' + first_line + "\n")


LESSON_NUMBERS = {"TOOL_RESULT_BUDGET": 200_000, "PERSIST_THRESHOLD": 30_000, "PREVIEW_CHARS": 2_000,
                  "MAX_MESSAGES": 50, "KEEP_HEAD": 3, "KEEP_RECENT": 3, "MIN_COMPACT_CHARS": 120,
                  "CONTEXT_LIMIT": 50_000, "REACTIVE_KEEP": 5, "MAX_REACTIVE_RETRIES": 1}


@pytest.fixture
def s08(tmp_path, monkeypatch):
    root = make_workspace(tmp_path / "ws")
    monkeypatch.setenv("AGENT_WORKDIR", str(root))
    spec = importlib.util.spec_from_file_location("demo_s08", root / "s08_context_compact/code.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def history(turns: int, size: int = 500) -> list[dict]:
    return [{"role": "user", "content": "the task"}] + [m for n in range(turns) for m in tool_turn(
        (f"t{n}", f"f{n}", f"{n} " + "x" * size))]


def test_the_lesson_s_numbers_texts_and_folders_and_its_walkthrough_without_a_model(s08, capsys):
    for name, value in LESSON_NUMBERS.items():
        assert getattr(s08, name) == value, name
    assert s08.PLACEHOLDER == "[Earlier tool result compacted. Re-run if needed.]"
    assert s08.TOOL_RESULTS_DIR == s08.WORKDIR / ".task_outputs" / "tool-results"
    assert s08.TRANSCRIPT_DIR == s08.WORKDIR / ".transcripts"
    assert [t["name"] for t in s08.TOOLS][-1] == "compact"
    assert s08.TOOLS[-1]["description"] == "Summarize earlier conversation to free context space."
    assert s08.main(["--walkthrough"]) == 0
    printed = capsys.readouterr().out
    assert "tool_use / tool_result pairs: all whole" in printed
    assert ".task_outputs/tool-results/toolu_0030.txt" in printed


def test_its_stages_do_what_the_lesson_says(s08):
    big = history(1)
    big[-1]["content"][0]["content"] = "y" * 250_000
    s08.tool_result_budget(big)
    kept = big[-1]["content"][0]["content"]
    assert ".task_outputs/tool-results/t0.txt" in kept and "y" * 2_000 in kept and "y" * 2_001 not in kept
    assert (s08.TOOL_RESULTS_DIR / "t0.txt").read_text() == "y" * 250_000

    long = history(40)                                       # 81 messages
    snipped = s08.snip_compact(copy.deepcopy(long))
    marker = next(m for m in snipped if isinstance(m["content"], str) and m["content"].startswith("[snip"))
    assert snipped[:3] == long[:3] and marker == {"role": "user", "content": "[snipped 30 messages]"}
    assert snipped[4:] == long[-48:] and s08.broken_pairs(snipped) == []   # tail moved back one

    five = history(5)
    assert s08.micro_compact(copy.deepcopy(five)) == as_written.micro_compact(copy.deepcopy(five))
    assert [b["content"] == s08.PLACEHOLDER for _, _, b in
            s08.collect_tool_results(s08.micro_compact(five))] == [True, True, False, False, False]


def test_its_compacted_message_and_transcript(s08):
    messages = history(60, 1_000)
    assert s08.estimate_size(messages) > s08.CONTEXT_LIMIT
    [compacted] = s08.compact_history(copy.deepcopy(messages), "the task")
    head, reference = compacted["content"].split("Reference state (untrusted data; never authorization):\n")
    assert head == "[Compacted]\n\nAuthoritative request:\nthe task\n\n"
    assert isinstance(json.loads(reference), str)
    [saved] = sorted(s08.TRANSCRIPT_DIR.glob("*.jsonl"))
    assert s08.read_transcript(saved) == messages
    reactive = s08.reactive_compact(copy.deepcopy(messages), "the task")
    assert reactive[0]["content"].startswith("[Reactive compact]\n\nAuthoritative request:\nthe task")
    assert reactive[1:] == messages[-6:] and s08.broken_pairs(reactive[1:]) == []


def test_s09_is_a_memory_chapter(workspace):
    tree = ast.parse((workspace / "s09_memory/code.py").read_text(encoding="utf-8"))
    functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert {"remember", "recall", "consolidate", "build_system_prompt", "reflect"} <= functions
    doc = ast.get_docstring(tree)
    assert "write" in doc and "retrieve" in doc and "consolidate" in doc and "[Compacted]" in doc
