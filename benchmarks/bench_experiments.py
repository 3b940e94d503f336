"""Time each experiment end to end, offline (workspace copy + every model call + stages).

Prints the best and median of several runs; the target is under 2 s each on a 2-core machine.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from compact.classroom.experiments import run_experiment


def main(repeats: int = 5) -> None:
    print(f"{'experiment':<28}{'best s':>9}{'median s':>10}{'turns':>7}  stages fired")
    with tempfile.TemporaryDirectory() as scratch:
        cases = [("1 micro_compact", 1, True), ("2 tool_result_budget", 2, True),
                 ("3 compact_history", 3, True), ("3 baseline (no compaction)", 3, False)]
        for label, n, compaction in cases:
            times = []
            for k in range(repeats):
                start = time.perf_counter()
                result = run_experiment(n, compaction=compaction,
                                        workdir=Path(scratch) / f"{n}-{compaction}-{k}")
                times.append(time.perf_counter() - start)
            print(f"{label:<28}{min(times):>9.3f}{statistics.median(times):>10.3f}"
                  f"{len(result.trace.turns):>7}  {', '.join(result.fired) or result.error}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
