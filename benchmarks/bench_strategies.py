"""The strategy table on the 100-turn session (the numbers notebook 07 shows), with run times:
plain and cache-aware cost, savings against no compaction, the floor, where the probes went."""

from __future__ import annotations

import tempfile
from pathlib import Path

from machine import machine

from compact.classroom.strategy_tables import table
from compact.study.strategies import CACHE_FRIENDLY, STRATEGIES, run_session


def main() -> None:
    print(f"machine: {machine()}\n")
    reports = []
    with tempfile.TemporaryDirectory() as scratch:
        for strategy in STRATEGIES:
            report = run_session(strategy, Path(scratch) / strategy.name.replace(" ", "-"))
            reports.append(report)
            print(f"ran {strategy.name:<15} in {report.seconds:5.1f} s", flush=True)
    print()
    print(table(reports))
    by_name = {r.strategy: r for r in reports}
    for name in ("pipeline", "cache-friendly"):
        sizes = [len(s) for s in by_name[name].summaries]
        print(f"\n{name}: summary after each compaction (chars): "
              + ", ".join(f"{n:,}" for n in sizes))
    print(f"(cache-friendly cap: {CACHE_FRIENDLY['summary_max_chars']:,} chars)")


if __name__ == "__main__":
    main()
