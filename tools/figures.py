"""``make figures``: the docs' PNGs and the figures they quote (``docs/generated/facts.json``,
see ``facts.py``), from the same runs. Each experiment's plot (and the baseline's), and one
stage picture per stage, each drawn on a real history (``stage_examples``):

- tool_result_budget: experiment 2's history as the model refused it without compaction
  (the whole docs.json in one result);
- snip_compact: a hand-built history of 31 tool rounds (64 messages, over the 50 allowed);
- micro_compact: experiment 1's last request without compaction (six results, three old);
- compact_history: experiment 3's history as the model refused it without compaction;
- reactive_compact: experiment 1's whole history without compaction (the last 5 stay).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from compact.classroom.experiments import PROMPTS, ExperimentResult, run_experiment
from compact.classroom.plot import plot_run
from compact.classroom.stage_cases import tool_turn
from compact.classroom.stage_picture import plot_stage, run_stage
from compact.client import summarizer_for
from compact.offline import OfflineModel
from compact.pipeline import STAGES, Compactor, StageEvent

from .facts import all_facts

DPI = 80
FACTS = Path("docs") / "generated" / "facts.json"
SNIP_REQUEST = "Read the thirty notes in notes/ and list the open questions."


def long_history(rounds: int = 31) -> list:
    """The request, then ``rounds`` tool rounds reading notes of different lengths, then the
    assistant's reply: 2 × rounds + 2 messages."""
    messages: list = [{"role": "user", "content": SNIP_REQUEST}]
    for k in range(rounds):
        text = f"# note {k:02d}\n" + "an open question, and what is known about it.\n" * (3 + 7 * k % 19)
        messages += tool_turn((f"toolu_note{k:02d}", f"notes/{k:02d}.md", text))
    messages.append({"role": "assistant", "content": "I have read all thirty notes."})
    return messages


def _histories(scratch: Path) -> dict[str, tuple[list, str]]:
    """stage → (the real history it acts on, the active request)."""
    first = run_experiment(1, compaction=False, workdir=scratch / "b1")
    second = run_experiment(2, compaction=False, workdir=scratch / "b2")
    third = run_experiment(3, compaction=False, workdir=scratch / "b3")
    return {"tool_result_budget": (second.messages, PROMPTS[2]),
            "snip_compact": (long_history(), SNIP_REQUEST),
            "micro_compact": (first.trace.turns[-1].sent, PROMPTS[1]),
            "compact_history": (third.messages, PROMPTS[3]),
            "reactive_compact": (first.messages, PROMPTS[1])}


def stage_examples(folder: str | Path) -> dict[str, tuple[list, list, StageEvent]]:
    """stage → (before, after, its event): each of the five stages run once, on its real
    history, by a Compactor working in ``folder`` (the offline model summarises)."""
    folder = Path(folder)
    histories = _histories(folder)
    found = {}
    for stage in STAGES:
        before, request = histories[stage]
        (folder / stage).mkdir(parents=True, exist_ok=True)
        compactor = Compactor(folder / stage, summarize=summarizer_for(OfflineModel().client()))
        found[stage] = run_stage(compactor, stage, before, request)
    return found

def clean_runs(scratch: Path) -> dict[str, ExperimentResult]:
    """The three experiments and the baseline, each in a fresh folder of ``scratch``."""
    runs = {f"experiment{n}": run_experiment(n, workdir=scratch / f"e{n}") for n in (1, 2, 3)}
    runs["baseline"] = run_experiment(3, compaction=False, workdir=scratch / "base")
    return runs


def write_figures(folder: str | Path, facts: str | Path) -> list[Path]:
    """Write the PNGs into ``folder`` and ``facts``, from the same runs; the PNGs written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as scratch:
        runs = clean_runs(Path(scratch))
        figures = {name: plot_run(result) for name, result in runs.items()}
        for stage, (before, after, event) in stage_examples(Path(scratch) / "stages").items():
            figures[f"stage-{stage}"] = plot_stage(before, after, event)
        for name, fig in figures.items():
            path = out / f"{name}.png"
            fig.savefig(path, dpi=DPI, metadata={"Software": None})
            written.append(path)
        text = json.dumps(all_facts(runs), indent=1, ensure_ascii=False) + "\n"   # reads the runs' files
    Path(facts).parent.mkdir(parents=True, exist_ok=True)
    Path(facts).write_text(text, encoding="utf-8")
    return written


if __name__ == "__main__":
    facts_path = sys.argv[2] if len(sys.argv) > 2 else FACTS
    for path in [*write_figures(sys.argv[1] if len(sys.argv) > 1 else "docs/img", facts_path), facts_path]:
        print(path)
