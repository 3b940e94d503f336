"""The judgement of bash commands, checked by running what it judges: hypothesis nests deleting
and harmless commands in wrappers, compounds and substitutions; each script runs through the real
Workspace, in bubblewrap, in a throwaway git repository; one that changed any file was asked, or blocked.
"""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import make_files
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compact import Workspace

LOSES = ["rm a.txt", "rm -f b.txt", "rm -r sub", "rm -rf sub", "rm -- c.txt", "unlink a.txt",
         "mv a.txt z.txt", "mv b.txt sub/", "dd if=/dev/zero of=a.txt bs=1 count=1",
         "dd if=b.txt of=a.txt", "echo x > a.txt", "printf y >| b.txt", ": > c.txt",
         "cat b.txt > a.txt", "sed -i s/a/X/ a.txt", "sed -i.bak -e s/b/Y/ b.txt",
         "sed -Ei 's/[a-z]/Z/' c.txt", "git clean -fq", "git clean -fdq",
         "find . -name '*.txt' -delete", "find sub -delete", "find . -name a.txt -exec rm {} +",
         "xargs rm < list", "cat list | xargs rm -f", "xargs -a list rm", "truncate -s 0 a.txt",
         "cp b.txt a.txt", "tee a.txt < b.txt", "ln -sf b.txt a.txt", "shred -u a.txt",
         "install b.txt a.txt", "sort -o a.txt b.txt"]
HARMLESS = ["ls", "cat a.txt", "echo hi", "echo x > new.txt", "echo more >> a.txt", "true",
            "grep alpha a.txt", "mkdir -p fresh", "cp a.txt copy.txt", "wc -l b.txt",
            "git status --short", "find . -name '*.txt'"]
VARIABLE = ['f=a.txt; rm "$f"', "x=rm; $x b.txt", 'set -- a.txt; rm "$@"', 'cmd="rm c.txt"; $cmd',
            'for f in *.txt; do rm "$f"; done', "for f in a b; do echo $f > $f.txt; done",
            "ls *.txt | xargs rm"]


# Each wraps a command {c} (or its shell-quoted text {q}).
AROUND = ["timeout 5 {c}", "nice -n 1 {c}", "nohup {c}", "env X=1 {c}", "command {c}",
          "timeout -k 1 5 {c}", "bash -c {q}", "sh -c {q}", "bash -lc {q}", "eval {q}", "{{ {c}; }}",
          "( {c} )", "if true; then {c}; fi", "for i in 1; do {c}; done", "! {c}", "true && {c}",
          "false || {c}", "ls; {c}", "{c} | cat", "echo $({c})", "while false; do :; done; {c}",
          "f() {{ {c}; }}; f", "cat <({c})", "{{ {c}; }} > a.txt", "bash -c {q} 2>&1"]
JOINS = [" ; ", " && ", " || ", " | ", "\n", " & wait; "]

leaves = st.sampled_from(LOSES + HARMLESS + VARIABLE)
scripts = st.recursive(leaves, lambda inner: st.one_of(
    st.tuples(st.sampled_from(AROUND), inner).map(lambda t: t[0].format(c=t[1], q=shlex.quote(t[1]))),
    st.tuples(inner, st.sampled_from(JOINS), inner).map(lambda t: t[0] + t[1] + t[2])),
    max_leaves=4)


@contextlib.contextmanager
def judged_folder():
    """A throwaway git repository with a few files, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="judged-") as folder:
        root = make_files(Path(folder), {"a.txt": "alpha a\n", "b.txt": "bravo b\n", "c.txt": "charlie c\n",
                                         "sub/d.txt": "delta d\n", "list": "a.txt\n"})
        (root / "empty").mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        yield root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file outside .git: its bytes (a symlink: where it points)."""
    found = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        if relative == ".git" or relative.startswith(".git/"):
            continue
        if path.is_symlink():
            found[relative] = b"\0link:" + str(path.readlink()).encode()
        elif path.is_file():
            found[relative] = path.read_bytes()
    return found


def lost(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return [p for p, data in before.items() if p not in after or not after[p].startswith(data)]


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return [p for p in before.keys() | after.keys() if after.get(p, b"") != before.get(p, b"")]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=scripts)
# Found by a 3,000-example run: bashlex's own word text gets this mixed quoting wrong.
@example(script="bash -c 'bash -c '\"'\"'rm -f b.txt'\"'\"''")
@example(script="eval 'sh -c '\"'\"'find . -name a.txt -exec rm {} +'\"'\"''")
@example(script="echo $(ls\nrm a.txt)")            # bashlex stops a substitution at a newline
def test_every_script_that_writes_in_the_sandbox_was_asked(script):
    with judged_folder() as root:
        before, asked = snapshot(root), []
        ws = Workspace(root, confirm=lambda command: asked.append(command) or True, bash_timeout=10)
        assert ws.sandboxed
        out = ws.run("bash", {"command": script})
        written = changed(before, snapshot(root))
    blocked = out.startswith("Error: dangerous command blocked")
    assert not written or asked == [script] or blocked, (script, written, out)


def test_the_generated_scripts_do_lose_data_when_run():
    """The property is not empty: each deleting command, run alone, loses something; the
    plain reads among the harmless ones run unasked."""
    reads = ["ls", "cat a.txt", "echo hi", "true", "grep alpha a.txt", "wc -l b.txt",
             "find . -name '*.txt'", "mkdir -p fresh"]
    with judged_folder() as root:
        ws = Workspace(root, confirm=lambda command: pytest.fail(f"asked: {command}"))
        assert not [c for c in reads if ws.run("bash", {"command": c}).startswith("Error")]
    for command in LOSES + VARIABLE[:5]:
        with judged_folder() as root:
            before = snapshot(root)
            Workspace(root, confirm=None).run("bash", {"command": command})
            assert lost(before, snapshot(root)), command
