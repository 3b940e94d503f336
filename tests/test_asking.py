"""Nothing that is not plainly read-only runs unasked, sandboxed or not; what reaches past the
workspace never runs; only the offline model's run of a command the user's request names
skips the question."""

from __future__ import annotations

import builtins

import anthropic
import pytest
from conftest import make_files, run_agent
from histories import user
from replies import Script, reply, text, tool_call
from test_faults import files

from compact import Workspace, agent_loop
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


@pytest.mark.parametrize("sandbox", ["auto", "off"])
@pytest.mark.parametrize("command", ORDINARY_SHELL + KNOWN_MISSES)
def test_what_is_not_plainly_read_only_is_asked(root, command, sandbox):
    asked: list[str] = []
    out = Workspace(root, confirm=refusing(asked), sandbox=sandbox).run("bash", {"command": command})
    assert asked == [command], out
    assert out.startswith("Error: command not confirmed by the user") and "do not retry" in out
    assert (root / "a.txt").read_text() == "a.txt body\n"


READ_ONLY = ["ls -la", "cat a.txt | grep body", "grep -n body *.txt", "wc -l a.txt b.txt",
             "find . -name '*.txt' | sort", "ls missing 2>/dev/null; echo ok", "pwd && cd build && ls",
             "if [ -f a.txt ]; then head -1 a.txt; fi", "echo $(cat list) >/dev/null",
             "echo hi > /dev/null", "echo hi >/dev/stderr"]            # the device rule spares these


@pytest.mark.parametrize("sandbox", ["auto", "off"])
@pytest.mark.parametrize("command", READ_ONLY)
def test_plainly_read_only_commands_run_unasked(root, command, sandbox):
    ws = Workspace(root, confirm=lambda cmd: pytest.fail(f"asked: {cmd}"), sandbox=sandbox)
    before = files(root)
    assert not ws.run("bash", {"command": command}).startswith("Error")
    assert files(root) == before


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


def test_an_sdk_client_with_no_key_in_the_environment_asks_and_a_no_is_an_error_result(root, prompts):
    client = Script(tool_call("bash", {"command": "rm -rf build"}), reply(text("left it"))).client
    assert isinstance(client, anthropic.Anthropic)
    messages = [user("Run `rm -rf build`")]
    trace = run_agent(messages, client, root, lambda m: "s", model="scripted")
    assert len(prompts) == 1 and "rm -rf build" in prompts[0]
    assert messages[2]["content"][0]["content"].startswith("Error: command not confirmed")
    assert trace.answer == "left it" and (root / "build" / "out.o").exists()    # the loop goes on


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


def test_a_lab_with_a_real_client_asks(tmp_path, prompts):
    client = Script(tool_call("bash", {"command": "rm -rf s01_agent_loop"}), reply(text("done"))).client
    result = Lab(client=client, root=tmp_path / "runs").run(1)
    assert len(prompts) == 1 and "rm -rf s01_agent_loop" in prompts[0]
    assert (result.workdir / "s01_agent_loop").is_dir()
