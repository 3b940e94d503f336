"""The lesson's three experiments, runnable offline, each in a fresh copy of the demo course in its
own folder (``workdir=Runs("runs")``: a numbered one beside the notebook); a learner's own stage
can run in place of the package's (``stages=``); and the lesson's REPL run with a task typed at its
prompt (``run_repl``, notebook 00).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic
from matplotlib.figure import Figure

from ..client import default_model, make_client, summarizer_for
from ..demo import make_workspace
from ..loop import LoopOptions, agent_loop
from ..model_call import api_message, is_prompt_too_long
from ..offline import OfflineModel
from ..pipeline import STAGES, Compactor, Limits, StageEvent
from ..pipeline.messages import estimate_size
from ..pipeline.storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR
from ..texts import language, say
from ..tools import Workspace
from ..trace import Trace, Turn
from .plot import REFUSAL, plot_run
from .runs import new_run
from .stage_picture import run_picture

PROMPTS = {
    1: ("Read the README.md of the five lessons s01_agent_loop to s05_todo_write, compare "
        "their H1 titles, and summarise the naming pattern of these titles."),
    2: ("Analyse the data structure of web/src/data/generated/docs.json and explain which "
        "main fields a course record contains."),
    3: ("Compare s08_context_compact/code.py and s09_memory/code.py, and explain how each "
        "manages the current context and persistent memory."),
}
# The lesson's own prompts, verbatim (its 试一下 section; the line break is only its layout).
PROMPTS_ZH = {
    1: ("请读取 s01_agent_loop 到 s05_todo_write 五节课程的 README.md，"
        "比较它们的一级标题，并总结这些标题的命名规律。"),
    2: "请分析 web/src/data/generated/docs.json 的数据结构，并说明一条课程记录包含哪些主要字段。",
    3: "请比较 s08_context_compact/code.py 和 s09_memory/code.py，说明它们分别怎样管理当前上下文和持久记忆。",
}


def prompt(n: int) -> str:
    """Experiment ``n``'s prompt in the chosen language (the lesson's Chinese, or English)."""
    if n not in PROMPTS:
        raise ValueError(f"experiment {n} does not exist; choose 1, 2 or 3")
    return (PROMPTS_ZH if language() == "zh" else PROMPTS)[n]


@dataclass
class ExperimentResult:
    n: int
    prompt: str
    workdir: Path
    limits: Limits
    compaction: bool
    trace: Trace
    messages: list
    log: list[str] = field(default_factory=list)
    error: str | None = None               # e.g. the API's "prompt is too long" on a baseline
    refused_size: int | None = None         # size of the refused request, for the plot

    @property
    def answer(self) -> str:
        return self.trace.answer

    @property
    def events(self) -> list[StageEvent]:
        return self.trace.events

    @property
    def fired(self) -> list[str]:
        return [e.stage for e in self.events]

    @property
    def transcripts(self) -> list[Path]:
        return sorted((self.workdir / TRANSCRIPT_DIR).glob("*.jsonl"))

    @property
    def tool_results(self) -> list[Path]:
        return sorted((self.workdir / TOOL_RESULTS_DIR).glob("*.txt"))

    @property
    def files_written(self) -> list[Path]:
        return self.transcripts + self.tool_results

    def plot(self, panels: tuple[str, ...] = ("context", "composition"), *, limit: bool = True) -> Figure:
        """The run per turn (``plot_run``; ``limit=False``: the context at the run's own scale)."""
        return plot_run(self, panels, limit=limit)

    def picture(self, stage: str) -> Figure:
        """The messages before and after ``stage``, where it saved the most characters in this run."""
        return run_picture(self, stage)

    def differences(self, other: ExperimentResult) -> list[str]:
        """Where this run and ``other`` (e.g. yours and the package's) part ways, in words; [] if nowhere."""
        a, b = self.trace.turns, other.trace.turns
        found = [say("own.turns", mine=len(a), theirs=len(b))] if len(a) != len(b) else []
        sizes = [say("own.turn", turn=x.turn, mine=x.size_sent, theirs=y.size_sent)
                 for x, y in zip(a, b, strict=False) if x.size_sent != y.size_sent]
        found += sizes[:3] + ([say("own.more_turns", count=len(sizes) - 3)] if len(sizes) > 3 else [])
        if sorted(set(self.fired)) != sorted(set(other.fired)):
            found.append(say("own.fired", mine=sorted(set(self.fired)), theirs=sorted(set(other.fired))))
        if self.answer != other.answer:
            found.append(say("own.answer"))
        if self.error and self.error != other.error:
            found.append(say("own.error", error=self.error))
        return found

    def parts_from(self, other: Trace) -> int:
        """The first turn whose request differs from ``other``'s; 0: none; a stopped run: where it stopped."""
        mine = self.trace.turns
        return next((a.turn for a, b in zip(mine, other.turns, strict=False) if a.sent != b.sent),
                    len(mine) + 1 if self.error else 0)

    @property
    def refused_tokens(self) -> tuple[int, int] | None:
        """(tokens the refused request had, the window) as the API's message states them."""
        match = REFUSAL.search(self.error or "")
        return (int(match.group(1)), int(match.group(2))) if match else None


@dataclass(frozen=True)
class Runs:
    """A folder of numbered run folders (``runs/experiment3-1``, ...), e.g. beside a notebook."""

    folder: str | Path = "runs"

    def new(self, label: str) -> Path:
        """A new, empty folder ``<folder>/<label>-<n>`` this process owns (``runs.new_run``)."""
        return new_run(self.folder, label)

    def course(self, label: str) -> Path:
        """A new numbered folder holding a fresh copy of the demo course (the experiments' workspace)."""
        return make_workspace(self.new(label))


@dataclass
class Settings:
    """How experiment ``n`` runs: ``stages``, your own stage functions by name (what stops a run with
    them is its ``error``, never raised); ``compaction=False``, the baseline; ``client``, a Messages-API
    client or an ``OfflineModel``; ``workdir``, a folder, ``Runs("runs")`` or a temporary one;
    ``before``, the messages of a session that came before the request."""

    n: int
    stages: dict[str, Callable] | None = None
    limits: Limits = field(default_factory=Limits)
    compaction: bool = True
    client: Any = None
    workdir: str | Path | Runs | None = None
    on_turn: Callable[[Turn], None] | None = None
    before: list = field(default_factory=list)

    def workspace(self) -> Workspace:
        if isinstance(self.workdir, Runs):
            return Workspace(self.workdir.course(run_label(self.n, self.compaction)))
        if self.workdir is None:
            return Workspace(make_workspace(Path(tempfile.mkdtemp(prefix=f"exp{self.n}-"))))
        return Workspace(make_workspace(Path(self.workdir)))

    def model(self) -> Any:     # offline unless a key is set
        if isinstance(self.client, OfflineModel):
            return self.client.client()
        return make_client(quiet=True) if self.client is None else self.client


def run_label(n: int, compaction: bool) -> str:
    """A run folder's label: ``experiment3``, or ``baseline3`` for a run without compaction."""
    return f"experiment{n}" if compaction else f"baseline{n}"


def run_experiment(n: int, **options: Any) -> ExperimentResult:
    """Run experiment ``n`` (1, 2 or 3) in a fresh demo workspace, with ``Settings`` ``options``;
    never raises on refusal."""
    settings = Settings(n, **options)
    request = prompt(n)
    workspace, client, limits = settings.workspace(), settings.model(), settings.limits
    compactor = Compactor(workspace.root, limits, summarize=summarizer_for(client),
                          stages=STAGES if settings.compaction else (), functions=settings.stages)
    messages = [*settings.before, {"role": "user", "content": request}]
    log: list[str] = []
    turns: list[Turn] = []

    def record(turn: Turn) -> None:
        turns.append(turn)
        if settings.on_turn is not None:
            settings.on_turn(turn)

    result = ExperimentResult(settings.n, request, workspace.root, limits, settings.compaction, Trace(),
                              messages, log)
    try:
        result.trace = agent_loop(messages, request, client=client, compactor=compactor,
                                  workspace=workspace, log=log.append,
                                  options=LoopOptions(on_turn=record))
    except Exception as error:      # a refusal is a result; so is any stop a stage of yours caused
        if not (refused(error) or settings.stages):
            raise
        stopped(result, error, Trace(turns=turns, model=default_model(client)))
    return result


def refused(error: Exception) -> bool:      # the API's "prompt is too long" (or 413)
    return isinstance(error, anthropic.APIError) and is_prompt_too_long(error)


def stopped(result: ExperimentResult, error: Exception, trace: Trace) -> None:
    """Record a run that ended early: refused as too long, or (with a stage of yours) stopped."""
    result.trace = trace
    if refused(error):
        result.error = api_message(error)
        result.refused_size = estimate_size(result.messages)
        result.log.append(f"[refused] {result.error}")
        return
    detail = api_message(error) if isinstance(error, anthropic.APIError) else str(error)
    result.error = f"{type(error).__name__}: {detail}" if detail else type(error).__name__
    result.log.append(f"[stopped] {result.error}")


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
