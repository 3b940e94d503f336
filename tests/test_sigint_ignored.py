"""The Ctrl-C tests pass when the whole run starts with SIGINT ignored, as ``make test &``,
``nohup make test &`` and some CI runners start it."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_the_interrupt_tests_pass_with_sigint_ignored_at_start():
    probe = subprocess.run([sys.executable, "-c", "import signal; print(signal.getsignal(2))"],
                           capture_output=True, text=True, preexec_fn=ignore_sigint, check=True)
    assert probe.stdout.strip() == str(int(signal.SIG_IGN))     # the run really starts ignoring
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-o", "timeout=120", str(TESTS / "test_interrupt.py")],
                          capture_output=True, text=True, preexec_fn=ignore_sigint,
                          cwd=TESTS.parent, timeout=400)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"^\d+ passed in", done.stdout, re.M), done.stdout[-3000:]   # all ran: none skipped
