"""glob cannot hang: its matcher does not backtrack, and the deadline is checked per name."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from conftest import make_files

from compact import Workspace, globbing

HANG = """
import sys, time
from pathlib import Path
from compact import Workspace
root = Path(sys.argv[1])
started = time.monotonic()
ws = Workspace(root)
ws.glob_timeout = 1
out = ws.run("glob", {"pattern": sys.argv[2]})
print(round(time.monotonic() - started, 3), repr(out))
"""


@pytest.mark.parametrize(("name", "pattern"), [
    ("a" * 60, "*a*a*a*a*a*a*a*a*ab"),
    ("a" * 200, "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab"),
    ("/".join(["a"] * 40) + "/c", "**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b"),
])
def test_a_pattern_that_makes_a_regex_backtrack_returns_within_the_timeout(tmp_path, name,
                                                                             pattern):
    make_files(tmp_path, {name: "x"})
    done = subprocess.run([sys.executable, "-c", HANG, str(tmp_path), pattern],
                          capture_output=True, text=True, timeout=30)
    seconds, out = done.stdout.split(" ", 1)
    assert float(seconds) < 1.5, done.stdout          # glob_timeout=1, and well within it
    assert out.strip() == "'(no matches)'"


def test_the_deadline_is_checked_before_every_name(tmp_path, monkeypatch):
    make_files(tmp_path, {f"f{k:03d}.txt": "x" for k in range(100)})
    real = globbing.path_matches

    def slow(parts, names):
        time.sleep(0.02)
        return real(parts, names)
    monkeypatch.setattr(globbing, "path_matches", slow)
    started = time.monotonic()
    ws = Workspace(tmp_path)
    ws.glob_timeout = 0.3
    out = ws.run("glob", {"pattern": "*.txt"})
    assert time.monotonic() - started < 1.0                  # 100 names would take 2 s
    assert "[glob stopped after 0.3 s with" in out
    assert 3 < len(out.splitlines()) - 1 < 30                 # what it found so far


@pytest.mark.parametrize(("pattern", "path", "matches"), [
    ("*.py", "a.py", True), ("*.py", "s/a.py", False), ("**/*.py", "a.py", True),
    ("**/*.py", "s/t/a.py", True), ("src/**", "src/a/b", True), ("**/**/x", "x", True),
    ("[!a]b", "cb", True), ("[!a]b", "ab", False), ("a/*/b", "a/x/y/b", False),
    ("a/*/b", "a/x/b", True), ("a/**/b", "a/b", True), ("**/b/**", "a/b/c", True),
    ("?.md", "ab.md", False), ("[a-c]?.md", "bx.md", True), ("*", "a/b", False),
])
def test_the_matcher_keeps_the_glob_rules(pattern, path, matches):
    assert globbing.path_matches(globbing.pattern_parts(pattern), tuple(path.split("/"))) \
        is matches
