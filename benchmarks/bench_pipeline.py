"""What the pipeline itself costs (no model): prepare() as history grows, and over a session.

1. prepare() on histories of 10 → 5,000 messages (up to ~20 MB of JSON), stub summariser.
2. A simulated 1,000-turn session (every turn adds a tool call and a result, then prepare()
   runs): cumulative compaction time at 125, 250, 500, 1,000 turns, and the fitted exponent
   k in time ∝ turns^k (1 = linear, 2 = quadratic).
"""

from __future__ import annotations

import json
import math
import statistics
import tempfile
import time

from compact import Compactor, estimate_size


def history(n_messages: int, result_chars: int) -> list:
    messages = [{"role": "user", "content": "refactor the billing module"}]
    k = 0
    while len(messages) < n_messages:
        messages += [
            {"role": "assistant", "content": [{"type": "text", "text": f"step {k}"},
                                              {"type": "tool_use", "id": f"t{k}", "name": "bash",
                                               "input": {"command": f"cat part{k}.log"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}",
                                          "content": f"line {k} " + "x" * result_chars}]},
        ]
        k += 1
    return messages[:n_messages] if n_messages % 2 else messages[: n_messages - 1] + [
        {"role": "assistant", "content": "done"}]


def summary(messages: list) -> str:
    return f"Goal: refactor. Findings: {len(messages)} messages."


def time_prepare(messages: list, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as workdir:
            compactor = Compactor(workdir, summarize=summary)
            start = time.perf_counter()
            compactor.prepare(messages, "refactor the billing module")
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def session(turns: int, result_chars: int = 3_000) -> list[float]:
    """Cumulative prepare() time after each turn of a session that keeps compacting."""
    with tempfile.TemporaryDirectory() as workdir:
        compactor = Compactor(workdir, summarize=summary)
        messages = [{"role": "user", "content": "refactor the billing module"}]
        spent, cumulative = 0.0, []
        for k in range(turns):
            messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": f"s{k}", "name": "bash", "input": {"command": f"c{k}"}}]})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"s{k}", "content": f"{k} " + "y" * result_chars}]})
            start = time.perf_counter()
            messages[:] = compactor.prepare(messages, "refactor the billing module")
            spent += time.perf_counter() - start
            messages.append({"role": "assistant", "content": f"noted turn {k}"})
            messages.append({"role": "user", "content": "go on"})
            cumulative.append(spent)
        return cumulative


def time_json(messages: list, repeats: int = 5) -> float:
    """json.dumps alone: the floor for any exact measure of the serialised size."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        json.dumps(messages, ensure_ascii=False, separators=(",", ":"))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"{'messages':>9}{'MB of JSON':>12}{'prepare ms':>12}{'json.dumps ms':>15}{'ratio':>7}")
    for n, chars in ((10, 4_000), (100, 4_000), (1_000, 4_000), (2_500, 4_000), (5_000, 1_000),
                     (5_000, 4_000), (5_000, 8_000)):
        messages = history(n, chars)
        mb = estimate_size(messages) / 1e6
        ours, floor = time_prepare(messages), time_json(messages)
        print(f"{n:>9,}{mb:>12.1f}{ours * 1000:>12.1f}{floor * 1000:>15.1f}{ours / floor:>7.2f}")
    cumulative = session(1_000)
    print(f"\n{'turns':>6}{'cumulative prepare s':>22}")
    points = [(t, cumulative[t - 1]) for t in (125, 250, 500, 1_000)]
    for turns, seconds in points:
        print(f"{turns:>6}{seconds:>22.3f}")
    xs = [math.log(t) for t, _ in points]
    ys = [math.log(s) for _, s in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    print(f"fitted exponent k (time ∝ turns^k): {k:.2f}  (1.00 = linear, 2.00 = quadratic)")


if __name__ == "__main__":
    main()
