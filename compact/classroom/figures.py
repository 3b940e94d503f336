"""``make figures``: write each experiment's plot (and the baseline's) as PNG for the docs, and
the figures the docs quote from the same runs (``docs/generated/facts.json``, see ``facts.py``)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from .experiments import ExperimentResult, run_experiment
from .facts import all_facts
from .plot import plot_run

FACTS = Path("docs") / "generated" / "facts.json"


def clean_runs(scratch: Path) -> dict[str, ExperimentResult]:
    """The three experiments and the baseline, each in a fresh folder of ``scratch``."""
    runs = {f"experiment{n}": run_experiment(n, workdir=scratch / f"e{n}") for n in (1, 2, 3)}
    runs["baseline"] = run_experiment(3, compaction=False, workdir=scratch / "base")
    return runs


def facts_text(runs: dict[str, ExperimentResult]) -> str:
    return json.dumps(all_facts(runs), indent=1, ensure_ascii=False) + "\n"


def write_figures(folder: str | Path, facts: str | Path | None = None) -> list[Path]:
    """The PNGs written into ``folder`` (and ``facts``, when given, from the same runs)."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as scratch:
        runs = clean_runs(Path(scratch))
        for name, result in runs.items():
            fig = plot_run(result)
            path = out / f"{name}.png"
            fig.savefig(path, dpi=80, metadata={"Software": None})
            written.append(path)
        if facts is not None:
            Path(facts).parent.mkdir(parents=True, exist_ok=True)
            Path(facts).write_text(facts_text(runs), encoding="utf-8")
    return written


if __name__ == "__main__":
    facts_path = sys.argv[2] if len(sys.argv) > 2 else FACTS
    for path in write_figures(sys.argv[1] if len(sys.argv) > 1 else "docs/img", facts_path):
        print(path)
    print(facts_path)
