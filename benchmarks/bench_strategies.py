"""The strategy table on the 100-turn session (the same numbers notebook 07 shows), with run times."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from compact.study.strategies import STRATEGIES, run_session, table


def main() -> None:
    reports = []
    with tempfile.TemporaryDirectory() as scratch:
        for strategy in STRATEGIES:
            start = time.perf_counter()
            reports.append(run_session(strategy, Path(scratch) / strategy.name.replace(" ", "-")))
            print(f"ran {strategy.name:<13} in {time.perf_counter() - start:5.1f} s", flush=True)
    print()
    print(table(reports))


if __name__ == "__main__":
    main()
