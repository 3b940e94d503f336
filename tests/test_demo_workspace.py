"""The demo workspace laid out by compact.demo.make_workspace."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

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


def test_two_calls_give_identical_trees(workspace, tmp_path):
    assert tree(make_workspace(tmp_path / "again")) == tree(workspace)


def test_tree_contents(workspace):
    files = set(tree(workspace))
    assert set(static_files()) | {DOCS_JSON_PATH} == files
    for lesson in LESSONS:
        assert f"{lesson}/README.md" in files
    assert "README.md" in files
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in files)


def test_docs_json(workspace):
    text = (workspace / DOCS_JSON_PATH).read_text(encoding="utf-8")
    assert 260_000 <= len(text) <= 300_000
    assert text.endswith("}\n")
    data = json.loads(text)
    assert data["schema"] == "course-docs/v1"
    assert data["generated"] == "2026-01-01T00:00:00Z"
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    docs = data["docs"]
    assert len(docs) >= 9
    for record in docs:
        assert list(record) == FIELDS
        assert record["locale"] in {"en", "zh", "ja"}
        assert isinstance(record["order"], int)
        assert isinstance(record["word_count"], int)
        assert isinstance(record["headings"], list)
    assert len(docs[0]["body"]) < 600
    assert max(len(record["body"]) for record in docs) > 10_000


def test_first_record_fits_in_first_2000_chars(workspace):
    text = (workspace / DOCS_JSON_PATH).read_text(encoding="utf-8")
    head = text[:2000]
    for name in FIELDS:
        assert f'"{name}":' in head, name
    first = json.loads(text)["docs"][0]
    assert json.dumps(first["body"], ensure_ascii=False) in head
    # The whole first record, closing brace included, is inside the window.
    end = text.index("\n    },\n")
    assert end < 2000


def test_readme_titles(workspace):
    titles = expected_titles()
    assert sorted(titles) == list(LESSONS[:5])
    assert [name[:3] for name in titles] == ["s01", "s02", "s03", "s04", "s05"]
    for lesson in LESSONS:
        lines = (workspace / lesson / "README.md").read_text(encoding="utf-8").splitlines()
        assert H1.match(lines[0]), lines[0]
        assert lines[0] == f"# {LESSON_TITLES[lesson]}"
        assert not any(line.startswith("# ") for line in lines[1:]), lesson
        body = "\n".join(lines[1:])
        assert 1_500 <= len(body) <= 3_000, (lesson, len(body))


@pytest.mark.parametrize(("relative", "low", "high"), [("s08_context_compact/code.py", 34_000, 38_000),
                                                       ("s09_memory/code.py", 30_000, 34_000)])
def test_code_files(workspace, relative, low, high):
    source = (workspace / relative).read_text(encoding="utf-8")
    assert low <= len(source) <= high
    module = ast.parse(source)
    docstring = ast.get_docstring(module, clean=False)
    assert docstring
    first_line = docstring.split("\n")[0]
    assert first_line.endswith(".") and first_line.count(". ") == 0
    assert source.startswith('"""' + first_line + "\n")


def test_non_empty_destination_is_refused(tmp_path):
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError, match="not empty"):
        make_workspace(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_empty_destination_and_file_destination(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert make_workspace(empty) == empty
    assert (empty / DOCS_JSON_PATH).is_file()
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(FileExistsError):
        make_workspace(a_file)
