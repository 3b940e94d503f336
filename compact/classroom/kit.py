"""Parts of the package a notebook builds with: the helpers a stage writes with (stage 1's file
and preview, stage 3's placeholder), the archiving variant of the Compactor, the demo course, and
the lesson's REPL run with a task typed at its prompt."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..demo import expected_titles, make_workspace
from ..extensions import ArchivingCompactor
from ..pipeline.formats import placeholder_for
from ..pipeline.storage import persist_tool_result
from ..pipeline.tool_result_budget import persisted_text

__all__ = ["ArchivingCompactor", "Repl", "expected_titles", "make_workspace", "persist_tool_result",
           "persisted_text", "placeholder_for", "run_repl"]

PROMPT = "s08 >> "


@dataclass(frozen=True)
class Repl:
    """One REPL session: what was typed, its whole output, and that output split in two."""
    typed: str
    stdout: str
    returncode: int
    seconds: float       # starting a new Python included
    session: list[str]   # the lines before the answer: the banner, the prompt, what stage 4 announced
    answer: str


def run_repl(task: str, workdir: str | Path, timeout: float = 300) -> Repl:
    """``python -m compact`` in ``workdir``: ``task`` typed at its prompt, then ``q``. It runs without
    ANTHROPIC_API_KEY, so the offline model answers, key or no key."""
    no_key = {name: value for name, value in os.environ.items() if name != "ANTHROPIC_API_KEY"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "compact", "--workdir", str(workdir)], env=no_key,
                          input=task + "\nq\n", capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - started
    lines = done.stdout.removesuffix(PROMPT).splitlines()      # the last prompt is where q was typed
    # the answer follows the transcript's line if stage 4 ran, else the prompt the task was typed at
    starts = next((k + 1 for k, line in enumerate(lines) if "[transcript saved:" in line),
                  next((k for k, line in enumerate(lines) if line.startswith(PROMPT)), len(lines)))
    return Repl(task, done.stdout, done.returncode, seconds, lines[:starts],
                "\n".join(lines[starts:]).removeprefix(PROMPT))
