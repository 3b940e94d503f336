"""The bash tool protects the learner's files. Nothing that is not plainly read-only runs unasked,
sandboxed or not; what reaches past the workspace never runs; only the offline model's run of a
command the user's request names skips the question. The judgement is checked by running what it
judges: hypothesis nests deleting and harmless commands in wrappers, compounds and substitutions;
each script runs through the real Workspace, in bubblewrap, in a throwaway git repository; one that
changed any file was asked, or blocked. And bash in bubblewrap writes only inside the workspace,
sees no home folder, no network, no credential from the environment, no PATH into the workspace
(``make test`` installs bubblewrap, so the sandbox is there)."""

from __future__ import annotations

import builtins
import contextlib
import os
import shlex
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

import anthropic
import pytest
from conftest import make_files, run_agent
from histories import user
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from replies import Script, reply, text, tool_call
from test_faults import files
from test_real_files import running

from compact import Workspace, agent_loop, shell
from compact.__main__ import main as repl_main
from compact.asking import ask_on_stdin
from compact.classroom.lab import Lab
from compact.offline import OfflineModel


@pytest.fixture
def root(tmp_path):
    return make_files(tmp_path / "ws", {"build/out.o": "object", "old/a.txt": "old\n",
                                        "a.txt": "a.txt body\n", "b.txt": "b.txt body\n", "list": "a.txt\n"})


def refusing(asked: list[str]):
    return lambda command: asked.append(command) or False


@pytest.fixture
def prompts(monkeypatch, request) -> list[str]:
    """No key in the environment; each question on stdin is recorded and answered "n" (or the
    answer a test parametrizes this fixture with; EOFError: stdin closed)."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    answer, asked = getattr(request, "param", "n"), []

    def fake_input(prompt):
        asked.append(prompt)
        if answer is EOFError:
            raise EOFError
        return answer
    monkeypatch.setattr(builtins, "input", fake_input)
    return asked


# Each of these deletes or overwrites a.txt when run: ordinary shell around a deletion, what
# cannot be told (a variable command, an unreadable script, PATH=, sh reading its input).
ORDINARY_SHELL = [
    'for f in *.txt; do rm "$f"; done', "if true; then rm a.txt; fi", "{ rm a.txt; }", "! rm a.txt",
    "timeout 5 rm a.txt", "bash -lc 'rm a.txt'", "xargs -a list rm", "x=rm; $x a.txt",
    "nice -n 5 rm a.txt", "env FOO=1 rm a.txt", "nohup rm a.txt", "command rm a.txt",
    "exec rm a.txt", "sh -c 'rm a.txt'", "echo $(rm a.txt)", "echo `rm a.txt`",
    "cat list | while read f; do rm \"$f\"; done", "f() { rm a.txt; }; f", "(rm a.txt)",
    "true && rm a.txt", "eval 'rm a.txt'", "env -S 'rm a.txt'", "timeout -k 1 5 rm a.txt",
    "find . -name a.txt -exec rm {} \\;", "find . -name a.txt -delete", "sed -Ei s/a/b/ a.txt",
    "echo gone > a.txt", "bash <<EOF\nrm a.txt\nEOF", "bash -c 'bash -c '\"'\"'rm a.txt'\"'\"''",
    "$CMD a.txt", "$(echo rm) a.txt", "echo $((1 + 2)) > a.txt", "case x in x) rm a.txt;; esac",
    "echo 'unbalanced", "PATH=/tmp/x ls", "bash script.sh", "echo rm a.txt | sh",
    "source ./cleanup.sh", "echo ${x:-$(rm a.txt)}", "sort -o a.txt b.txt", "sort --out=a.txt b.txt",
    "cat b.txt | tee a.txt", "cp b.txt a.txt", "git checkout -- a.txt", "python3 -c 'open(\"a.txt\", \"w\")'",
    "printf -v PATH .; ls", "echo $'\\x41' > a.txt",
]
# Misses of the judgement this replaced: each ran unasked (in the sandbox).
KNOWN_MISSES = [
    "env -S'rm a.txt'", "hash -p /bin/rm cat; cat a.txt", "r\\\nm a.txt",
    "find . -name a.txt -dele\\\nte", "trap 'rm a.txt' EXIT", "mapfile -C 'rm a.txt' -c 1 < list",
    "rbash -c 'rm a.txt'", "rsync -r old/ .", "rsync -r --del build/ .",
    # bashlex reads a substitution only up to a newline in it (found by the property test)
    "echo $(ls\nrm a.txt)", "echo `ls\nrm a.txt`", "cat <(ls\nrm a.txt)",
]


READ_ONLY = ["ls -la", "cat a.txt | grep body", "grep -n body *.txt", "wc -l a.txt b.txt",
             "find . -name '*.txt' | sort", "ls missing 2>/dev/null; echo ok", "pwd && cd build && ls",
             "if [ -f a.txt ]; then head -1 a.txt; fi", "echo $(cat list) >/dev/null",
             "echo hi > /dev/null", "echo hi >/dev/stderr"]            # the device rule spares these


@pytest.mark.parametrize("sandbox", ["auto", "off"])
@pytest.mark.parametrize("command", ORDINARY_SHELL + KNOWN_MISSES + READ_ONLY)
def test_what_is_not_plainly_read_only_is_asked_and_a_read_runs_unasked(root, command, sandbox):
    asked: list[str] = []
    before = files(root)
    out = Workspace(root, confirm=refusing(asked), sandbox=sandbox).run("bash", {"command": command})
    if command in READ_ONLY:
        assert asked == [] and not out.startswith("Error") and files(root) == before, out
    else:
        assert asked == [command], out
        assert out.startswith("Error: command not confirmed by the user") and "do not retry" in out
        assert (root / "a.txt").read_text() == "a.txt body\n"


NEVER = ["rm -fr /", "rm -r -f /", "rm -Rf /", 'rm -rf "/"', "rm -rf //", "rm -rf /*", "rm -rf ~",
         "timeout 5 rm -rf /", "bash -c 'rm -rf /'", "rm --no-preserve-root -r /x", "sudo rm -rf /",
         "mkfs.ext4 /dev/sda", ":(){ :|:& };:", "echo x > /dev/sda", "shutdown now",
         "dd if=/dev/zero of=/dev/sda", "find . -exec sh -c 'rm -rf ~' \\;", "echo 'x | sudo y",
         "cat x >/dev/nvme0n1", "echo x > /dev/nullx"]


@pytest.mark.parametrize("command", NEVER)
def test_what_reaches_past_the_workspace_is_never_run_even_if_confirmed(root, command):
    asked: list[str] = []
    before = files(root)
    for confirm in (lambda cmd: asked.append(cmd) or True, None):
        out = Workspace(root, confirm=confirm).run("bash", {"command": command})
        assert "dangerous command blocked" in out and "never run" in out
    assert asked == [] and files(root) == before                 # not even asked: never run


def test_a_yes_runs_it_and_no_confirm_never_asks(root):
    assert Workspace(root, confirm=lambda cmd: True).run("bash", {"command": "rm a.txt"}) \
        == "(no output, exit code 0)"
    assert Workspace(root, confirm=None).run("bash", {"command": "rm b.txt; ls"}) == "build\nlist\nold"


@pytest.mark.parametrize(("prompts", "removed"), [("y", True), ("yes", True), ("n", False),
                                                  ("no", False), ("", False), (EOFError, False)],
                         indirect=["prompts"])
def test_the_default_asks_on_stdin_with_or_without_a_key(root, prompts, removed):
    ws = Workspace(root)
    assert ws.confirm is ask_on_stdin
    ws.run("bash", {"command": "ls"})
    ws.run("bash", {"command": "rm a.txt"})
    assert len(prompts) == 1 and "rm a.txt" in prompts[0]
    assert (root / "a.txt").exists() is not removed


def test_an_sdk_client_or_a_lab_with_no_key_in_the_environment_asks(root, prompts, tmp_path):
    client = Script(tool_call("bash", {"command": "rm -rf build"}), reply(text("left it"))).client
    assert isinstance(client, anthropic.Anthropic)
    messages = [user("Run `rm -rf build`")]
    trace = run_agent(messages, client, root, lambda m: "s", model="scripted")
    assert len(prompts) == 1 and "rm -rf build" in prompts[0]
    assert messages[2]["content"][0]["content"].startswith("Error: command not confirmed")
    assert trace.answer == "left it" and (root / "build" / "out.o").exists()    # the loop goes on
    client = Script(tool_call("bash", {"command": "rm -rf s01_agent_loop"}), reply(text("done"))).client
    result = Lab(client=client, root=tmp_path / "runs").run(1)
    assert len(prompts) == 2 and "rm -rf s01_agent_loop" in prompts[1]
    assert (result.workdir / "s01_agent_loop").is_dir()


def test_the_offline_model_runs_unasked_only_what_the_request_names(root, monkeypatch):
    monkeypatch.setattr(builtins, "input", lambda prompt: pytest.fail(f"asked: {prompt}"))
    client = OfflineModel().client()
    request = "Run `rm -rf build`"
    agent_loop([user(request)], request, client=client, workspace=root, log=lambda line: None)
    assert not (root / "build").exists()             # named by the user: run as asked for
    ws = Workspace(root)
    asked: list[str] = []
    for run in (ws.for_run(offline=True, request="Run `ls`"),
                ws.for_run(offline=False, request="Run `rm a.txt`")):
        run.confirm = refusing(asked)
        assert run.run("bash", {"command": "rm a.txt"}).startswith("Error: command not confirmed")
    assert asked == ["rm a.txt", "rm a.txt"] and (root / "a.txt").exists()
    assert ws.named_commands == frozenset()          # for_run made a copy
    named = ws.for_run(offline=True, request="Run `rm -rf /`")
    assert "dangerous command blocked" in named.run("bash", {"command": "rm -rf /"})


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


@pytest.fixture
def ws(root):
    return Workspace(root, confirm=lambda command: True)


def test_bubblewrap_works_here_and_the_workspace_and_the_repl_say_so(ws, tmp_path, monkeypatch, capsys):
    assert shell.bubblewrap() and ws.sandboxed
    assert "[sandbox]" in ws.describe() and "no network" in ws.describe()
    bare = Workspace(ws.root, sandbox="off")
    assert not bare.sandboxed and "[no sandbox]" in bare.describe()
    monkeypatch.setattr("builtins.input", lambda prompt: "q")
    assert repl_main(["--workdir", str(tmp_path)]) == 0
    assert "[sandbox] bash runs in bubblewrap" in capsys.readouterr().out


def test_bash_writes_only_inside_the_workspace(ws, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = ws.run("bash", {"command": f"echo x > {outside}/planted.txt; touch /etc/compact-probe;"
                                     " echo inside > made.txt; cat made.txt"})
    assert out.endswith("inside") and "Read-only file system" in out and list(outside.iterdir()) == []
    assert (ws.root / "made.txt").read_text() == "inside\n"
    # nor can it make / writable again: as root, without --cap-drop ALL, `mount -o remount,rw /` did
    out = ws.run("bash", {"command": "grep CapEff /proc/self/status"})
    assert out.split() == ["CapEff:", "0000000000000000"]


def test_bash_has_no_network_unless_asked_for(ws):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
        connect = ("python3 -c \"import socket; socket.create_connection(('127.0.0.1', "
                   f"{server.getsockname()[1]}), 3); print('connected')\" 2>&1 | tail -1")
        assert "connected" not in ws.run("bash", {"command": connect})
        with_network = Workspace(ws.root, sandbox="network", confirm=None)
        assert with_network.sandboxed and "has the network" in with_network.describe()
        assert with_network.run("bash", {"command": connect}) == "connected"


def test_bash_sees_no_home_folder_credentials_nor_a_path_into_the_workspace(ws, tmp_path,
                                                                             monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    monkeypatch.setenv("HOME", str(home))
    out = ws.run("bash", {"command": "cat ~/.ssh/id_ed25519; ls -A ~ /root | wc -w"})
    assert "PRIVATE KEY" not in out and "No such file" in out
    assert out.splitlines()[-1].strip() == "2"              # just the two headers ls prints
    secrets = {"ANTHROPIC_API_KEY": "sk-ant-secret-1", "GITHUB_TOKEN": "ghp_secret2",
               "AWS_SECRET_ACCESS_KEY": "aws-secret-3", "DB_PASSWORD": "hunter4",
               "DATABASE_URL": "postgres://me:pw5@db.example/x", "ANTHROPIC_BASE_URL": "http://s6"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("COMPACT_VISIBLE", "plain value")
    out = ws.run("bash", {"command": "env"})
    assert "COMPACT_VISIBLE=plain value" in out and "PATH=" in out
    for value in secrets.values():
        assert value not in out
    unsandboxed = Workspace(ws.root, sandbox="off", confirm=None)
    assert "sk-ant-secret-1" not in unsandboxed.run("bash", {"command": "env"})
    (ws.root / "bin").mkdir()
    for folder in (ws.root, ws.root / "bin"):           # a planted `ls`, on a PATH of "." or bin/
        (folder / "ls").write_text("#!/bin/sh\necho planted\n")
        (folder / "ls").chmod(0o755)
    monkeypatch.setenv("PATH", f".::{ws.root / 'bin'}:{os.environ['PATH']}")
    for workspace in (ws, unsandboxed):
        assert "planted" not in workspace.run("bash", {"command": "ls"})


def test_nothing_started_outlives_the_call_even_in_a_new_session(ws):
    """Background jobs end with the shell (not at a timeout); setsid leaves the process group, and
    the sandbox's own process namespace still ends it."""
    seconds = 50_000 + os.getpid() % 10_000           # unique to this run: no other sleep matches
    slow = Workspace(ws.root, bash_timeout=20)
    out = slow.run("bash", {"command": f"sleep {seconds} & sleep {seconds + 1} > /dev/null & echo started"})
    assert out == "started" and running(f"sleep {seconds}") == running(f"sleep {seconds + 1}") == []
    out = ws.run("bash", {"command": f"setsid sleep {seconds + 2} > /dev/null 2>&1 & echo started"})
    assert out == "started" and running(f"sleep {seconds + 2}") == []
