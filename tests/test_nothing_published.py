"""No secret shown or committed: .transcripts/ and .task_outputs/ are git-ignored from their
first moment, and the banner shows no user, password or query of ANTHROPIC_BASE_URL."""

from __future__ import annotations

import os
import threading

import anthropic
import pytest
from conftest import fake_summary
from histories import tool_turn, user
from repo_copy import git

from compact import Compactor, Limits
from compact.client import banner
from compact.pipeline.storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR

FOLDERS = (TRANSCRIPT_DIR, TOOL_RESULTS_DIR.split("/")[0])


def compact_in(workdir) -> None:
    history = [user("task"), *tool_turn(["secret output " * 5_000, "b" * 200], "t")]
    compactor = Compactor(workdir, Limits(tool_result_budget=1_000), summarize=fake_summary)
    compactor.compact_history(compactor.tool_result_budget(history), "task")


def test_git_add_all_publishes_no_transcript_or_tool_output(tmp_path):
    """Even where an older version made .transcripts/ without its .gitignore."""
    git(tmp_path, "init", "-q")
    (tmp_path / "app.py").write_text("print('hi')\n")
    (tmp_path / TRANSCRIPT_DIR).mkdir()
    (tmp_path / TRANSCRIPT_DIR / "transcript-0001.jsonl").write_text('{"role": "user"}\n')
    compact_in(tmp_path)
    assert list((tmp_path / TRANSCRIPT_DIR).glob("*.jsonl"))
    assert list((tmp_path / TOOL_RESULTS_DIR).glob("*.txt"))
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=all") == "?? app.py\n"
    git(tmp_path, "add", "-A")
    assert git(tmp_path, "diff", "--cached", "--name-only") == "app.py\n"
    for folder in FOLDERS:
        assert (tmp_path / folder / ".gitignore").read_text().splitlines()[-1] == "*"


def test_the_folders_never_exist_without_their_gitignore(tmp_path):
    seen_bare, stop = [], threading.Event()
    workdirs = [tmp_path / f"w{k}" for k in range(15)]

    def watch() -> None:
        while not stop.is_set():
            for workdir in workdirs:
                for folder in FOLDERS:
                    path = workdir / folder
                    if path.is_dir() and not (path / ".gitignore").exists() and path.is_dir():
                        seen_bare.append(str(path))
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        for workdir in workdirs:
            workdir.mkdir()
            compact_in(workdir)
    finally:
        stop.set()
        watcher.join()
    assert seen_bare == []
    assert all(sorted(os.listdir(w)) == sorted(FOLDERS) for w in workdirs)   # no temp folder


@pytest.mark.parametrize(("url", "shown"), [
    ("https://user:pa55word@proxy.example:8443/v1?token=abc123#frag",
     "https://proxy.example:8443/v1"),
    ("http://[::1]:9000/anthropic?key=k3y", "http://[::1]:9000/anthropic"),
    ("https://me@gateway.example", "https://gateway.example"),
    ("https://host:notaport/x", "(unreadable URL)"),
])
def test_the_banner_shows_scheme_host_port_and_path_only(monkeypatch, url, shown):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    text = banner(anthropic.Anthropic(api_key="sk-test", base_url="http://unused.invalid"))
    assert f" via {shown} " in text
    for secret in ("user", "pa55word", "token", "abc123", "frag", "k3y", "me@", "notaport"):
        assert secret not in text
