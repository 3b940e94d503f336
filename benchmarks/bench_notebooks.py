"""The whole notebook suite, executed offline with nbclient: wall and CPU seconds per notebook.

CPU is this process plus its finished children (each notebook's kernel and what it starts), so
it stays meaningful when other jobs share the cores; the load average is printed beside it.
Runs happen in a temporary folder, so ``runs/`` never lands in the repository.

    python benchmarks/bench_notebooks.py [substring ...]     # e.g. 00 03 to time two notebooks
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(wanted: list[str]) -> None:
    os.environ.pop("ANTHROPIC_API_KEY", None)          # the suite's figures are the offline ones
    paths = [p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if not wanted or any(w in p.name for w in wanted)]
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'notebook':<40} {'wall s':>7} {'cpu s':>7}")
    start_wall, start_cpu = time.perf_counter(), cpu_seconds()
    with tempfile.TemporaryDirectory(prefix="bench-notebooks-") as folder:
        for path in paths:
            nb = nbformat.read(path, as_version=4)
            wall, cpu = time.perf_counter(), cpu_seconds()
            NotebookClient(nb, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": folder}}).execute()
            print(f"{path.name:<40} {time.perf_counter() - wall:>7.1f} {cpu_seconds() - cpu:>7.1f}",
                  flush=True)
    print(f"{'all ' + str(len(paths)) + ' notebooks':<40} {time.perf_counter() - start_wall:>7.1f} "
          f"{cpu_seconds() - start_cpu:>7.1f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
