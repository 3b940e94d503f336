"""``make figures``: write each experiment's plot (and the baseline's) as PNG for the README."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .experiments import run_experiment
from .plot import plot_run


def write_figures(folder: str | Path) -> list[Path]:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as scratch:
        runs = {f"experiment{n}": run_experiment(n, workdir=Path(scratch) / f"e{n}")
                for n in (1, 2, 3)}
        runs["baseline"] = run_experiment(3, compaction=False, workdir=Path(scratch) / "base")
        for name, result in runs.items():
            fig = plot_run(result)
            path = out / f"{name}.png"
            fig.savefig(path, dpi=80, metadata={"Software": None})
            written.append(path)
    return written


if __name__ == "__main__":
    for path in write_figures(sys.argv[1] if len(sys.argv) > 1 else "docs/img"):
        print(path)
