"""Nothing that changes files runs unasked: the judgement reads bash's grammar (bashlex), and
only the offline model's run of a command the user's request names skips the question.

Each command runs in a real workspace whose target exists, with a ``confirm`` that says no:
the target must still be there, and the question must have been asked.
"""

from __future__ import annotations

import builtins

import anthropic
import pytest
from histories import user
from test_faults import reply, scripted, tool_call

from compact import Compactor, LoopOptions, Workspace, agent_loop
from compact.classroom.lab import Lab
from compact.offline import OfflineModel


@pytest.fixture
def root(tmp_path):
    folder = tmp_path / "ws"
    (folder / "build").mkdir(parents=True)
    (folder / "build" / "out.o").write_text("object")
    for name in ("a.txt", "b.txt", "list"):
        (folder / name).write_text("a.txt\n" if name == "list" else f"{name} body\n")
    return folder


def refusing(asked: list[str]):
    return lambda command: asked.append(command) or False


# The list: each of these deleted its target with a confirm that would have said no.
ORDINARY_SHELL = [
    'for f in *.txt; do rm "$f"; done',
    "if true; then rm a.txt; fi",
    "{ rm a.txt; }",
    "! rm a.txt",
    "timeout 5 rm a.txt",
    "bash -lc 'rm a.txt'",
    "xargs -a list rm",
    "x=rm; $x a.txt",
    "nice -n 5 rm a.txt",
    "env FOO=1 rm a.txt",
    "nohup rm a.txt",
    "command rm a.txt",
    "exec rm a.txt",
    "sh -c 'rm a.txt'",
    "echo $(rm a.txt)",
    "echo `rm a.txt`",
    "cat list | while read f; do rm \"$f\"; done",
    "f() { rm a.txt; }; f",
    "(rm a.txt)",
    "true && rm a.txt",
    "eval 'rm a.txt'",
    "env -S 'rm a.txt'",
    "timeout -k 1 5 rm a.txt",
    "find . -name a.txt -exec rm {} \\;",
    "find . -name a.txt -delete",
    "sed -Ei s/a/b/ a.txt",
    "echo gone > a.txt",
    "bash <<EOF\nrm a.txt\nEOF",
    "bash -c 'bash -c '\"'\"'rm a.txt'\"'\"''",         # quotes inside quotes
]


@pytest.mark.parametrize("command", ORDINARY_SHELL)
def test_ordinary_shell_around_a_deletion_is_asked(root, command):
    asked: list[str] = []
    ws = Workspace(root, confirm=refusing(asked))
    out = ws.run("bash", {"command": command})
    assert asked == [command], out
    assert out.startswith("Error: command not confirmed by the user")
    assert (root / "a.txt").read_text() == "a.txt body\n"


@pytest.mark.parametrize("command", ["rm -fr /", "rm -r -f /", "rm -Rf /", 'rm -rf "/"',
                                     "rm -rf //", "rm -rf /*", "rm -rf ~", "timeout 5 rm -rf /",
                                     "bash -c 'rm -rf /'", "rm --no-preserve-root -r /x"])
def test_rm_of_the_root_is_denied_however_it_is_spelled(root, command):
    asked: list[str] = []
    out = Workspace(root, confirm=refusing(asked)).run("bash", {"command": command})
    assert "dangerous command blocked" in out and "never run" in out
    assert asked == []                                   # not even asked: never run


@pytest.mark.parametrize("command", ["$CMD a.txt", "$(echo rm) a.txt", "echo $((1 + 2)) > a.txt",
                                     "case x in x) rm a.txt;; esac", "echo 'unbalanced",
                                     "PATH=/tmp/x ls", "bash script.sh", "echo rm a.txt | sh",
                                     "source ./cleanup.sh", "echo ${x:-$(rm a.txt)}"])
def test_what_cannot_be_told_is_asked(root, command):
    asked: list[str] = []
    out = Workspace(root, confirm=refusing(asked)).run("bash", {"command": command})
    assert asked == [command] and (root / "a.txt").exists()
    assert "cannot tell what it does" in out, out


@pytest.mark.parametrize("command", ["ls -la", "cat a.txt | grep body", "git status",
                                     "echo new > new.txt", "python3 -c 'print(1)'",
                                     "cp a.txt copy.txt", "grep -n body *.txt"])
def test_commands_that_lose_nothing_are_not_asked_in_the_sandbox(root, command):
    asked: list[str] = []
    ws = Workspace(root, confirm=refusing(asked))
    assert ws.sandboxed
    assert not ws.run("bash", {"command": command}).startswith("Error")
    assert asked == []


def test_an_sdk_client_with_no_key_in_the_environment_asks(root, monkeypatch):
    """The issue's case: no ANTHROPIC_API_KEY, a real client passed in: it must ask."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    prompts: list[str] = []
    monkeypatch.setattr(builtins, "input", lambda prompt: prompts.append(prompt) or "n")
    client = scripted(tool_call("bash", {"command": "rm -rf build"}),
                      reply({"type": "text", "text": "left it"}))
    assert isinstance(client, anthropic.Anthropic)
    messages = [user("Run `rm -rf build`")]
    agent_loop(messages, "Run `rm -rf build`", client=client, workspace=root,
               options=LoopOptions(model="scripted"),
               compactor=Compactor(root, summarize=lambda m: "s"), log=lambda line: None)
    assert len(prompts) == 1 and "rm -rf build" in prompts[0]
    assert messages[2]["content"][0]["content"].startswith("Error: command not confirmed")
    assert (root / "build" / "out.o").exists()


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


def test_a_lab_with_a_real_client_asks(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    prompts: list[str] = []
    monkeypatch.setattr(builtins, "input", lambda prompt: prompts.append(prompt) or "no")
    client = scripted(tool_call("bash", {"command": "rm -rf s01_agent_loop"}),
                      reply({"type": "text", "text": "done"}))
    lab = Lab(client=client, root=tmp_path / "runs")
    result = lab.run(1)
    assert len(prompts) == 1 and "rm -rf s01_agent_loop" in prompts[0]
    assert (result.workdir / "s01_agent_loop").is_dir()
