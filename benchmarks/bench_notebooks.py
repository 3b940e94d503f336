"""The whole notebook suite, executed offline with nbclient: wall and CPU seconds per notebook.

CPU is this process plus its finished children (each notebook's kernel and what it waits for),
so it stays meaningful when other jobs share the cores; the load average is printed beside it.
It misses notebook 07's two study workers: they fork from a server process (``forkserver``)
that the kernel leaves to exit on its own, never waits for. Wall time is the measure.
Runs happen in a temporary folder, so ``runs/`` never lands in the repository.

    python benchmarks/bench_notebooks.py [substring ...]     # e.g. 00 03 to time two notebooks
    python benchmarks/bench_notebooks.py --jobs 2            # two kernels at a time, one per core

The English notebooks, then their Chinese translations (``notebooks/zh/``), each with its total.
With ``--jobs N``, N notebooks run at once (the study notebooks first, as they take longest):
each line is its wall time, the total is the suite's wall time on this machine's cores.

Before and after, a yardstick: the seconds a fresh Python takes to import the SDK (median of 3),
which every kernel pays. A shared machine has slow spells (on this one, the same import took
2.2 s in one hour and 1.3 s in the next): compare suites only beside yardsticks that agree.

The study's sessions are remembered (``compact/study/remembered.py``) in a folder that starts
empty, as on a fresh machine: the English 07 and 08 replay them, the Chinese ones load them.
``--cold`` turns remembering off, so every notebook replays what it shows.

    python benchmarks/bench_notebooks.py --jobs 2 --cold
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def yardstick() -> float:
    """Seconds a fresh Python takes to ``import anthropic``, the median of 3."""
    seconds = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import anthropic"], check=True)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def execute(path: Path, folder: str) -> float:
    """Run one notebook in a kernel of its own; its wall seconds."""
    nb = nbformat.read(path, as_version=4)
    wall = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": folder}}).execute()
    return time.perf_counter() - wall


def run(paths: list[Path], folder: str) -> None:
    """Execute each notebook in turn, printing its wall and CPU seconds, then the total."""
    start_wall, start_cpu = time.perf_counter(), cpu_seconds()
    for path in paths:
        cpu = cpu_seconds()
        wall = execute(path, folder)
        name = path.relative_to(NOTEBOOKS).as_posix()
        print(f"{name:<40} {wall:>7.1f} {cpu_seconds() - cpu:>7.1f}", flush=True)
    print(f"{'all ' + str(len(paths)) + ' notebooks':<40} {time.perf_counter() - start_wall:>7.1f} "
          f"{cpu_seconds() - start_cpu:>7.1f}")


def run_at_once(paths: list[Path], folder: str, jobs: int) -> None:
    """``jobs`` notebooks at a time, longest (the last, the study notebooks) first."""
    start_wall, start_cpu = time.perf_counter(), cpu_seconds()
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        running = {pool.submit(execute, p, folder): p for p in reversed(paths)}
        for done in as_completed(running):
            name = running[done].relative_to(NOTEBOOKS).as_posix()
            print(f"{name:<40} {done.result():>7.1f}       ·", flush=True)
    print(f"{'all ' + str(len(paths)) + f' notebooks, {jobs} at a time':<40} "
          f"{time.perf_counter() - start_wall:>7.1f} {cpu_seconds() - start_cpu:>7.1f}")


def main(wanted: list[str], jobs: int = 1, cold: bool = False) -> None:
    os.environ.pop("ANTHROPIC_API_KEY", None)          # the suite's figures are the offline ones
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"yardstick (a fresh `import anthropic`): {yardstick():.2f} s")
    print("study sessions: " + ("replayed by every notebook (--cold)" if cold else
                                "remembered in a new, empty folder (the first to replay one keeps it)"))
    print(f"{'notebook':<40} {'wall s':>7} {'cpu s':>7}")
    with tempfile.TemporaryDirectory(prefix="bench-notebooks-") as folder:
        os.environ["COMPACT_STUDY_CACHE"] = "off" if cold else str(Path(folder) / "study-cache")
        for language in (NOTEBOOKS, NOTEBOOKS / "zh"):
            paths = [p for p in sorted(language.glob("*.ipynb"))
                     if not wanted or any(w in p.name for w in wanted)]
            if jobs > 1:
                run_at_once(paths, folder, jobs)
            else:
                run(paths, folder)
    print(f"load average after: {os.getloadavg()[0]:.2f}; yardstick: {yardstick():.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wanted", nargs="*", help="substrings of the notebooks to time (all if none)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks run at once (default 1)")
    parser.add_argument("--cold", action="store_true", help="replay every study session (remember none)")
    arguments = parser.parse_args()
    main(arguments.wanted, arguments.jobs, arguments.cold)
