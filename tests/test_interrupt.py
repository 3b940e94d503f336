"""python -m compact, the lesson's REPL: offline by default (conftest removes any key), exits on q,
survives text that is not valid UTF-8, typed or printed. Ctrl-C during a tool: the command's whole
process group dies, the call and the rest of its batch are answered as interrupted, and the REPL
returns to its prompt (no traceback).

A run started in the background (``make test &``, some CI runners) inherits SIGINT *ignored*:
each test gives SIGINT its default handling back, for itself and for the REPL it starts; and the
Ctrl-C tests are run once more in a process that starts with SIGINT ignored.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import run_agent
from histories import user
from replies import Script, call, reply, text
from test_real_files import running

from compact import Workspace
from compact.offline.api import messages_problem
from compact.pipeline.messages import validate_history
from compact.reply import INTERRUPTED, NOT_RUN_INTERRUPTED

SECONDS = 10_000_000 + 10 * os.getpid()     # sleep durations no other test process runs


@pytest.fixture(autouse=True)
def ctrl_c_delivered():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def default_sigint() -> None:
    """In a child before it starts Python: SIGINT not ignored, so Python installs its handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def started(marker: str, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while not running(marker, settle=0) and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(running(marker, settle=0))


@contextlib.contextmanager
def ctrl_c_once_running(marker: str):
    """The block must end in KeyboardInterrupt: Ctrl-C, once a process with ``marker`` runs."""
    watcher = threading.Thread(target=lambda: (started(marker), _thread.interrupt_main()), daemon=True)
    watcher.start()
    with pytest.raises(KeyboardInterrupt):
        yield
    watcher.join()


def assert_answered(messages: list, expected: dict[str, str]) -> None:
    validate_history(messages)
    assert messages_problem([*messages, user("next")]) is None
    assert {b["tool_use_id"]: b["content"] for b in messages[-1]["content"]} == expected


def test_ctrl_c_during_bash_kills_the_group_answers_the_batch_and_the_history_carries_on(tmp_path):
    (tmp_path / "a.txt").write_text("alpha")
    command = f"sleep {SECONDS + 1} & sleep {SECONDS + 2}"
    script = Script(reply(call("bash", {"command": command}, "toolu_1"),
                          call("read_file", {"path": "a.txt"}, "toolu_2"), stop="tool_use"),
                    reply(text("stopped, as you asked")))
    messages = [user("wait")]
    with ctrl_c_once_running(f"sleep {SECONDS + 2}"):
        run_agent(messages, script.client, tmp_path, lambda m: "s")
    assert_answered(messages, {"toolu_1": INTERRUPTED, "toolu_2": NOT_RUN_INTERRUPTED})
    assert running(f"sleep {SECONDS + 1}") == running(f"sleep {SECONDS + 2}") == []
    messages.append(user("what happened?"))
    assert run_agent(messages, script.client, tmp_path, lambda m: "s").answer == "stopped, as you asked"
    assert script.problems == []


def test_ctrl_c_at_the_confirmation_question_answers_the_call(tmp_path):
    (tmp_path / "a.txt").write_text("alpha")

    def confirm(command):
        raise KeyboardInterrupt
    script = Script(reply(call("read_file", {"path": "a.txt"}, "toolu_1"),
                          call("bash", {"command": "rm a.txt"}, "toolu_2"), stop="tool_use"))
    messages = [user("clean up")]
    with pytest.raises(KeyboardInterrupt):
        run_agent(messages, script.client, Workspace(tmp_path, confirm=confirm), lambda m: "s")
    assert_answered(messages, {"toolu_1": "alpha", "toolu_2": INTERRUPTED})
    assert (tmp_path / "a.txt").read_text() == "alpha"


def test_the_repl_returns_to_its_prompt_after_ctrl_c(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    repl = subprocess.Popen([sys.executable, "-m", "compact", "--workdir", str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=default_sigint)
    try:
        repl.stdin.write(f"Run `sleep {SECONDS + 4} & sleep {SECONDS + 5}`\n")
        repl.stdin.flush()
        assert started(f"sleep {SECONDS + 5}", 30), "the command never started"
        repl.send_signal(signal.SIGINT)                  # what Ctrl-C sends to the REPL
        out, err = repl.communicate("Say hello\nq\n", timeout=60)
    finally:
        if repl.poll() is None:
            repl.kill()
    assert repl.returncode == 0, err
    assert "Traceback" not in err and "[interrupted] the turn was stopped (Ctrl-C)" in out
    assert out.count("s08 >> ") == 3                     # back at the prompt, twice more
    assert "(offline model)" in out.split("[interrupted]")[1]   # the next turn was answered
    assert running(f"sleep {SECONDS + 4}") == running(f"sleep {SECONDS + 5}") == []


def test_the_interrupt_tests_pass_with_sigint_ignored_at_start():
    """As ``make test &``, ``nohup make test &`` and some CI runners start them."""
    def ignore_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    probe = subprocess.run([sys.executable, "-c", "import signal; print(signal.getsignal(2))"],
                           capture_output=True, text=True, preexec_fn=ignore_sigint, check=True)
    assert probe.stdout.strip() == str(int(signal.SIG_IGN))     # the run really starts ignoring
    here = Path(__file__).resolve()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                           "-o", "timeout=120", "-k", "ctrl_c", str(here)],
                          capture_output=True, text=True, preexec_fn=ignore_sigint,
                          cwd=here.parent.parent, timeout=400)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"^3 passed, \d+ deselected in", done.stdout, re.M), done.stdout[-3000:]   # none skipped


def test_the_repl_answers_offline_survives_text_that_is_not_utf8_and_exits_on_q(tmp_path):
    typed = "Compare s08_context_compact/code.py and s09_memory/code.py\nq\n"   # experiment 3's prompt
    done = subprocess.run([sys.executable, "-m", "compact", "--demo"], input=typed, capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[offline] model offline-compact-1") and done.stdout.count("s08 >> ") == 2
    for said in ("[auto compact]", "[transcript saved: .transcripts/transcript-0001.jsonl]",
                 "Persistent memory"):
        assert said in done.stdout, done.stdout
    workdir = os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9")     # a Latin-1 folder name
    os.mkdir(workdir)
    with open(os.path.join(workdir, "a.txt"), "w") as handle:
        handle.write("the port is 8473\n")
    typed = b"\xed\xa0\x80 hello \xff\nRead a.txt\nq\nnever reached\n"   # a lone surrogate, a bad byte
    done = subprocess.run([sys.executable, "-m", "compact", "--workdir", workdir], input=typed,
                          capture_output=True, timeout=60,
                          env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"})
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    assert done.returncode == 0 and "Traceback" not in err, err
    assert out.startswith("[offline] model offline-compact-1")
    assert "workspace: " in out and "caf\\udce9" in out          # printed, escaped
    assert "[error] that line holds bytes that are not valid UTF-8 text" in out
    assert "a.txt: 17 chars; first line 'the port is 8473'" in out    # the next line answered
    assert out.count("s08 >> ") == 3                                  # none after q
