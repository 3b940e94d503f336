"""python -m compact: the lesson's REPL, offline by default."""

import os
import subprocess
import sys


def test_repl_answers_offline_and_exits_on_q(tmp_path):
    (tmp_path / "a.txt").write_text("the port is 8473\n")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run([sys.executable, "-m", "compact", "--workdir", str(tmp_path)],
                          input="Read a.txt\nq\nnever reached\n", capture_output=True,
                          text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[offline] model offline-compact-1")
    assert done.stdout.count("s08 >> ") == 2
    assert "a.txt: 17 chars; first line 'the port is 8473'" in done.stdout


def test_repl_demo_workspace_runs_an_experiment_prompt():
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    prompt = "Compare s08_context_compact/code.py and s09_memory/code.py\n"
    done = subprocess.run([sys.executable, "-m", "compact", "--demo"], input=prompt + "q\n",
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert "[auto compact]" in done.stdout
    assert "[transcript saved: .transcripts/transcript-0001.jsonl]" in done.stdout
    assert "Persistent memory" in done.stdout
