"""The lesson's three experiments, runnable by anyone, offline, with the default numbers.

Each run gets a fresh copy of the demo course workspace in its own folder, so the
``.transcripts/`` and ``.task_outputs/tool-results/`` it leaves behind can be inspected.
Notebooks pass ``runs_dir="runs"``: every run then lands in a numbered folder beside the
notebook (``runs/experiment3-1/``, ...), where JupyterLab's file browser shows it; the folder
stays bounded (``runs.py``: finished kernels' runs beyond the newest few per label go).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic

from ..client import default_model, make_client
from ..demo import make_workspace
from ..loop import Trace, Turn, agent_loop
from ..model_call import api_message, is_prompt_too_long
from ..offline import OfflineModel
from ..pipeline import STAGES, Compactor, Limits, StageEvent
from ..pipeline.messages import estimate_size
from ..pipeline.storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR
from ..tools import Workspace
from .runs import new_run

PROMPTS = {
    1: ("Read the README.md of the five lessons s01_agent_loop to s05_todo_write, compare "
        "their H1 titles, and summarise the naming pattern of these titles."),
    2: ("Analyse the data structure of web/src/data/generated/docs.json and explain which "
        "main fields a course record contains."),
    3: ("Compare s08_context_compact/code.py and s09_memory/code.py, and explain how each "
        "manages the current context and persistent memory."),
}
_REFUSAL = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum")
SHOWS = {
    1: "micro_compact: the 3 newest results stay whole, older long ones become a placeholder",
    2: "tool_result_budget: a result too big for the batch budget is persisted to disk",
    3: "compact_history: past 50,000 chars the history becomes one [Compacted] message",
}


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

    @property
    def refused_tokens(self) -> tuple[int, int] | None:
        """(tokens the refused request had, the window) as the API's message states them."""
        match = _REFUSAL.search(self.error or "")
        return (int(match.group(1)), int(match.group(2))) if match else None


def new_run_dir(runs_dir: str | Path, label: str) -> Path:
    """A new, empty folder ``<runs_dir>/<label>-<n>`` this process owns: runs never share one.

    Runs of finished kernels beyond the newest ``runs.KEEP`` per label are removed on the way,
    never a run another live kernel (a second lab on the same copy) owns (see ``runs``).
    """
    return new_run(runs_dir, label)


def run_experiment(n: int, limits: Limits = Limits(), client: Any = None,
                   workdir: str | Path | None = None, model: OfflineModel | None = None,
                   compaction: bool = True, max_turns: int = 40,
                   on_turn: Callable[[Turn], None] | None = None,
                   runs_dir: str | Path | None = None) -> ExperimentResult:
    """Run experiment ``n`` (1, 2 or 3) in a fresh demo workspace; never raises on refusal.

    ``compaction=False`` is the baseline: no stage runs, so the context grows until the
    model's window refuses it, as the real API would. ``on_turn`` sees each turn as it ends
    (the lab's progress bar). The workspace is ``workdir`` if given, else a new numbered
    folder in ``runs_dir`` (notebooks: ``"runs"``), else a temporary folder.
    """
    if n not in PROMPTS:
        raise ValueError(f"experiment {n} does not exist; choose 1, 2 or 3")
    if workdir is not None:
        root = Path(workdir)
    elif runs_dir is not None:
        root = new_run_dir(runs_dir, f"experiment{n}" if compaction else f"baseline{n}")
    else:
        root = Path(tempfile.mkdtemp(prefix=f"exp{n}-"))
    workspace = Workspace(make_workspace(root))
    if client is None:      # the offline model unless ANTHROPIC_API_KEY is set
        client = model.client() if model is not None else make_client(quiet=True)
    compactor = Compactor(workspace.root, limits, summarize=client, model=default_model(client),
                          stages=STAGES if compaction else ())
    prompt = PROMPTS[n]
    messages = [{"role": "user", "content": prompt}]
    log: list[str] = []
    turns: list[Turn] = []

    def record(turn: Turn) -> None:
        turns.append(turn)
        if on_turn is not None:
            on_turn(turn)

    result = ExperimentResult(n, prompt, workspace.root, limits, compaction, Trace(), messages, log)
    try:
        result.trace = agent_loop(messages, prompt, client=client, compactor=compactor,
                                  workspace=workspace, max_turns=max_turns, log=log.append,
                                  on_turn=record)
    except anthropic.BadRequestError as error:
        if not is_prompt_too_long(error):
            raise
        result.trace = Trace(turns=turns, model=default_model(client))
        result.error = api_message(error)
        result.refused_size = estimate_size(messages)
        log.append(f"[refused] {result.error}")
    return result
