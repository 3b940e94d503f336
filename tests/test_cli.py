"""python -m compact: the lesson's REPL, offline by default (conftest removes any key), exits on q,
and survives text that is not valid UTF-8, typed or printed."""

import os
import subprocess
import sys


def test_the_demo_repl_answers_an_experiments_prompt_offline_and_exits_on_q(tmp_path):
    typed = "Compare s08_context_compact/code.py and s09_memory/code.py\nq\n"   # experiment 3's prompt
    done = subprocess.run([sys.executable, "-m", "compact", "--demo"], input=typed, capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[offline] model offline-compact-1") and done.stdout.count("s08 >> ") == 2
    for said in ("[auto compact]", "[transcript saved: .transcripts/transcript-0001.jsonl]",
                 "Persistent memory"):
        assert said in done.stdout, done.stdout


def test_the_repl_answers_in_a_workdir_survives_text_that_is_not_utf8_and_exits_on_q(tmp_path):
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
