"""Every file tool refuses '..', absolute paths and symlinks out of the workspace."""

import os

import pytest
from conftest import make_files

from compact import Workspace


@pytest.fixture
def ws(tmp_path):
    root = make_files(tmp_path / "ws", {"inside.txt": "inside"})
    outside = make_files(tmp_path / "outside", {"secret.txt": "secret"})
    os.symlink(outside, root / "link")
    os.symlink(outside / "secret.txt", root / "secret-link.txt")
    return Workspace(root)


ESCAPES = ["../outside/secret.txt", "/etc/passwd", "link/secret.txt", "secret-link.txt",
           "inside/../../outside/secret.txt"]
CALLS = {
    "read_file": lambda p: {"path": p},
    "write_file": lambda p: {"path": p, "content": "pwned"},
    "edit_file": lambda p: {"path": p, "old_text": "secret", "new_text": "pwned"},
}


@pytest.mark.parametrize("tool", sorted(CALLS))
@pytest.mark.parametrize("path", ESCAPES)
def test_file_tools_refuse_escapes(ws, tool, path):
    result = ws.run(tool, CALLS[tool](path))
    assert result.startswith("Error: ")
    assert "workspace" in result
    assert (ws.root.parent / "outside" / "secret.txt").read_text() == "secret"


def test_glob_refuses_escapes_and_does_not_follow_into_hidden_or_outside(ws):
    for pattern in ("../*", "/etc/*"):
        assert ws.run("glob", {"pattern": pattern}).startswith("Error: "), pattern
    assert ws.run("glob", {"pattern": "*.txt"}) == "inside.txt"


def test_inside_paths_work_and_unknown_tools_and_bad_arguments_are_tool_errors(ws):
    assert ws.run("read_file", {"path": "inside.txt"}) == "inside"
    assert ws.run("bash", {"command": "pwd"}) == str(ws.root.resolve())
    assert ws.run("write_file", {"path": "sub/new.txt", "content": "x"}).startswith("Wrote")
    assert ws.run("edit_file", {"path": "sub/new.txt", "old_text": "x", "new_text": "y"}) == \
        "Edited sub/new.txt"
    assert ws.run("nope", {}).startswith("Error: unknown tool")
    assert ws.run("read_file", {"nope": 1}).startswith("Error: bad arguments")
