"""python -m compact: the lesson's REPL, offline by default."""

import os
import subprocess
import sys

import pytest

DEMO_PROMPT = "Compare s08_context_compact/code.py and s09_memory/code.py\n"


@pytest.mark.parametrize("args,typed,said", [
    (["--workdir", "."], "Read a.txt\nq\nnever reached\n",
     ["a.txt: 17 chars; first line 'the port is 8473'"]),
    (["--demo"], DEMO_PROMPT + "q\n",                                   # an experiment's prompt
     ["[auto compact]", "[transcript saved: .transcripts/transcript-0001.jsonl]", "Persistent memory"]),
], ids=["workdir", "demo"])
def test_the_repl_answers_offline_and_exits_on_q(tmp_path, args, typed, said):
    (tmp_path / "a.txt").write_text("the port is 8473\n")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run([sys.executable, "-m", "compact", *args], input=typed, capture_output=True,
                          text=True, timeout=60, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[offline] model offline-compact-1")
    assert done.stdout.count("s08 >> ") == 2
    assert all(line in done.stdout for line in said), done.stdout
