"""The tools on real files: large, Latin-1, sparse, badly named, deep trees, swapped links."""

from __future__ import annotations

import itertools
import os
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import make_files, run_agent
from histories import user
from replies import Script, call, reply, text

from compact import Workspace, globbing


@pytest.fixture
def root(tmp_path):
    return make_files(tmp_path / "ws", {})


def bytes_read() -> int:
    """Bytes this process has read through read(2) so far (Linux's rchar)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


# ---- edit_file: only the bytes asked for change -------------------------------------------------

def test_editing_a_large_file_changes_only_the_replaced_bytes(root):
    lines = [f"line {k}: {'data ' * 12}\r\n" for k in range(24_000)]
    lines[12_000] = "line 12000: the MARKER is here\r\n"
    original = ("\ufeff" + "".join(lines)).encode()               # BOM and CRLF kept too
    assert len(original) > 1_500_000
    (root / "big.txt").write_bytes(original)
    ws = Workspace(root)                                          # read cap: 1,000,000 chars
    assert ws.run("edit_file", {"path": "big.txt", "old_text": "MARKER",
                                "new_text": "marker (edited)"}) == "Edited big.txt"
    after = (root / "big.txt").read_bytes()
    assert after == original.replace(b"MARKER", b"marker (edited)", 1)
    assert not after.endswith(b"]") and b"output truncated" not in after
    assert sorted(p.name for p in root.iterdir()) == ["big.txt"]     # no temp file left


def test_an_edit_that_cannot_be_made_leaves_the_file_byte_identical(root):
    ws = Workspace(root)
    original = "café crème, naïve\n".encode("latin-1") * 100
    (root / "menu.txt").write_bytes(original)
    mode_before = (root / "menu.txt").stat().st_mode
    result = ws.run("edit_file", {"path": "menu.txt", "old_text": "cr", "new_text": "CR"})
    assert result == ("Error: 'menu.txt' is not UTF-8 text (byte 0xe9 at offset 3); edit_file "
                      "edits UTF-8 files only and changed nothing. Use bash (e.g. iconv or sed) "
                      "for other encodings.")
    assert (root / "menu.txt").read_bytes() == original
    assert (root / "menu.txt").stat().st_mode == mode_before
    (root / "run.sh").write_text("echo two\n")                # empty or invalid text: refused too
    assert ws.run("edit_file", {"path": "run.sh", "old_text": "", "new_text": "x"}).startswith(
        "Error: old_text is empty")
    assert "lone surrogate" in ws.run("edit_file", {"path": "run.sh", "old_text": "two",
                                                    "new_text": "\ud800"})
    assert "lone surrogate" in ws.run("write_file", {"path": "new.txt", "content": "a\udcffb"})
    assert (root / "run.sh").read_text() == "echo two\n" and not (root / "new.txt").exists()


# ---- read_file: only what is shown ---------------------------------------------------------------

def test_reading_a_sparse_three_gigabyte_file_reads_only_what_it_shows(root):
    with open(root / "huge.bin", "wb") as handle:
        handle.truncate(3 * 1024 ** 3)                # sparse: no disk used
    (root / "lines.txt").write_bytes(b"row\n" * 10_000_000)    # 40 MB of short lines
    ws = Workspace(root, max_output_chars=100_000)
    tracemalloc.start()
    before = bytes_read()
    out = ws.run("read_file", {"path": "huge.bin"})
    first = bytes_read() - before
    before = bytes_read()
    rows = ws.run("read_file", {"path": "lines.txt", "limit": 5})
    second = bytes_read() - before
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert out.startswith("\x00" * 100_000) and out.endswith(
        "[... output truncated at 100,000 chars; the file has 3,221,225,472 bytes and the rest "
        "was not read]")
    assert first < 1_000_000 and second < 1_000_000 and peak < 20_000_000
    assert rows == "row\n" * 5 + ("... (more lines follow; the file has 40,000,000 bytes: raise "
                                  "limit to read on)")


def test_reading_a_pipe_or_a_folder_is_refused_without_blocking(root):
    os.mkfifo(root / "pipe")
    (root / "dir").mkdir()
    for name in ("pipe", "dir"):
        assert Workspace(root).run("read_file", {"path": name}) == f"Error: '{name}' is not a regular file"


# ---- every result is valid text ------------------------------------------------------------------

def test_a_file_name_that_is_not_utf8_never_puts_a_lone_surrogate_in_a_result(root):
    (root / "ok.txt").write_text("fine")
    with open(os.path.join(os.fsencode(root), b"caf\xe9.txt"), "w") as handle:
        handle.write("latin-1 name")
    out = Workspace(root).run("glob", {"pattern": "*.txt"})
    assert out == "caf\\xe9.txt\nok.txt"
    out.encode("utf-8")                                           # valid, encodable text
    script = Script(reply(call("glob", {"pattern": "*.txt"}, "toolu_1"), stop="tool_use"),
                    reply(call("bash", {"command": "ls"}, "toolu_2"), stop="tool_use"),
                    reply(text("listed")))
    messages = [user("list the files")]
    trace = run_agent(messages, script.client, root, lambda m: "s")
    assert trace.answer == "listed" and script.problems == []      # every request encoded
    assert "caf\\xe9.txt" in messages[2]["content"][0]["content"]
    assert "caf\ufffd.txt" in messages[4]["content"][0]["content"]  # bash: replaced


# ---- glob: one walk, and a time limit -------------------------------------------------------------

def test_eight_double_stars_walk_the_tree_once(root, monkeypatch):
    make_files(root, {f"a{a}/b{b}/c{c}/x.txt": "x"                 # 1,110 folders, a file at each leaf
                      for a, b, c in itertools.product(range(10), repeat=3)})
    visits = []
    real_walk = os.walk

    def counting_walk(top, *args, **kw):
        for entry in real_walk(top, *args, **kw):
            visits.append(entry[0])
            yield entry
    monkeypatch.setattr(globbing.os, "walk", counting_walk)
    ws = Workspace(root)
    many = ws.run("glob", {"pattern": "**/" * 8 + "x.txt"})
    assert len(visits) == 1_110 + 1                             # each folder once, and root
    assert many == ws.run("glob", {"pattern": "**/x.txt"})
    assert len(many.splitlines()) == 1_000 and many.splitlines()[0] == "a0/b0/c0/x.txt"


@pytest.mark.parametrize(("pattern", "expected"), [
    ("*.txt", "top.txt"), ("**/*.txt", "sub/deep.txt\ntop.txt"), ("sub/*", "sub/deep.txt"),
    ("s?b/[a-e]eep.*", "sub/deep.txt"), ("[!t]*.txt", "(no matches)"), ("**", "sub/deep.txt\ntop.txt"),
])
def test_glob_keeps_pathlib_semantics(root, pattern, expected):
    make_files(root, {"sub/deep.txt": "d", "top.txt": "t", ".hidden.txt": "h"})
    assert Workspace(root).run("glob", {"pattern": pattern}) == expected


# ---- bash -------------------------------------------------------------------------------------------

# (the device rule, sparing /dev/null: test_asking.py's READ_ONLY and NEVER)
def running(marker: str, settle: float = 2.0) -> list[str]:
    """Processes whose command line holds ``marker`` (read from /proc, nothing is killed),
    after giving a process just sent SIGKILL up to ``settle`` seconds to be gone."""
    deadline = time.monotonic() + settle
    while True:
        found = [line for line in map(command_line, Path("/proc").glob("[0-9]*/cmdline")) if marker in line]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def command_line(path: Path) -> str:
    try:
        return path.read_bytes().replace(b"\0", b" ").decode(errors="replace")   # any process's
    except OSError:                                # the process ended meanwhile
        return ""


def test_background_jobs_do_not_outlive_the_call(root):
    ws = Workspace(root, bash_timeout=20)
    out = ws.run("bash", {"command": "sleep 4711 & sleep 4712 > /dev/null & echo started"})
    assert out == "started"                      # not a 20 s timeout: the shell's exit ends it
    assert running("sleep 471") == []


# ---- a symlink swapped in after the path check ---------------------------------------------------

@pytest.fixture
def swap(root, tmp_path):
    """``arm(ws, what)``: the next path check swaps sub/ or sub/f.txt for a link outside."""
    outside = make_files(tmp_path / "outside", {"f.txt": "secret"})
    make_files(root, {"sub/f.txt": "inside"})

    def arm(ws: Workspace, what: str) -> None:
        checked = ws.path

        def path_then_swap(relative):
            target = checked(relative)               # the check passes on the real folder
            swapped, to = ("sub", outside) if what == "dir" else ("sub/f.txt", outside / "f.txt")
            os.rename(root / swapped, root / f"{swapped}-moved")
            os.symlink(to, root / swapped)
            return target
        ws.path = path_then_swap
    return arm, outside


@pytest.mark.parametrize("what", ["dir", "file"])
@pytest.mark.parametrize(("tool", "tool_input"), [
    ("read_file", {"path": "sub/f.txt"}),
    ("write_file", {"path": "sub/f.txt", "content": "pwned"}),
    ("edit_file", {"path": "sub/f.txt", "old_text": "secret", "new_text": "pwned"}),
])
def test_a_link_swapped_in_after_the_check_cannot_lead_outside(root, swap, what, tool, tool_input):
    arm, outside = swap
    ws = Workspace(root)
    arm(ws, what)
    out = ws.run(tool, tool_input)
    assert out.startswith("Error: path 'sub/f.txt' changed while it was being opened")
    assert "secret" not in out and (outside / "f.txt").read_text() == "secret"
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]


def test_links_inside_the_workspace_still_work(root):
    make_files(root, {"real/f.txt": "inside"})
    os.symlink(root / "real", root / "alias")
    os.symlink(root / "real" / "f.txt", root / "f-link.txt")
    ws = Workspace(root)
    assert ws.run("read_file", {"path": "alias/f.txt"}) == "inside"
    assert ws.run("edit_file", {"path": "f-link.txt", "old_text": "inside",
                                "new_text": "edited"}) == "Edited f-link.txt"
    assert (root / "real" / "f.txt").read_text() == "edited" and (root / "f-link.txt").is_symlink()
