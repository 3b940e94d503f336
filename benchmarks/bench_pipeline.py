"""What the pipeline itself costs per turn (no model), side by side with one json.dumps.

1. A caller that keeps its whole history (1,000 / 5,000 / 20,000 messages; tool results a
   realistic mix from 100 B to 200 KB): one more turn — two messages appended, then what
   agent_loop does around the model call: ``prepare`` the history (which measures it first),
   measure and describe what is sent — against one ``json.dumps`` of the history, and against the same turn
   through a fresh Compactor (nothing remembered: the cost before the size cache). Sizes
   are checked equal to ``estimate_size``.
2. Peak memory (tracemalloc) of that turn and of one json.dumps, and what the cache holds.
3. Growth: cumulative time over a 1,000-turn session and its fitted exponent k (time ∝
   turns^k; 1 = linear, 2 = quadratic) for a caller that keeps its whole history (with and
   without the cache) and for agent_loop itself (its history compacted as it goes).
"""

from __future__ import annotations

import gc
import json
import math
import random
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from anthropic.types import Message, TextBlock, ToolUseBlock, Usage
from machine import machine

from compact import Compactor, LoopOptions, TurnLimitError, Workspace, agent_loop, composition, estimate_size
from compact.extensions import size_cached
from compact.pipeline.summary import SUMMARY_SYSTEM

REQUEST = "refactor the billing module"


def result_sizes(rng: random.Random, count: int, mean: float) -> list[int]:
    """Sizes from 100 B to 200 KB: mostly small (log-uniform 100 B–2 KB), some large
    (log-uniform 2 KB–200 KB), the share of large ones chosen to give ``mean``."""
    small_mean, large_mean = 1_900 / math.log(20), 198_000 / math.log(100)
    share = min(max((mean - small_mean) / (large_mean - small_mean), 0.0), 1.0)
    return [int(math.exp(rng.uniform(math.log(2_000), math.log(200_000)))) if rng.random() < share
            else int(math.exp(rng.uniform(math.log(100), math.log(2_000)))) for _ in range(count)]


def tool_round(k: int, size: int) -> list[dict]:
    return [{"role": "assistant", "content": [
                {"type": "text", "text": f"Step {k}: reading the next part."},
                {"type": "tool_use", "id": f"t{k}", "name": "bash",
                 "input": {"command": f"cat part{k}.log"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}",
                                          "content": f"part {k}\n" + "x" * size}]}]


def history(n_messages: int, megabytes: float, seed: int = 1) -> list:
    rng = random.Random(seed)
    rounds = (n_messages - 1) // 2
    mean = megabytes * 1e6 / rounds - 170
    messages = [{"role": "user", "content": REQUEST}]
    for k, size in enumerate(result_sizes(rng, rounds, mean)):
        messages += tool_round(k, size)
    return messages


def summary(messages: list) -> str:
    return f"Goal: refactor. Findings: {len(messages)} messages."


def one_turn(compactor: Compactor, messages: list) -> tuple[int, int]:
    """What agent_loop does around a model call: prepare the history (measured first), measure
    what is sent and what it is made of (the trace's composition)."""
    first = len(compactor.events)
    sent = compactor.prepare(messages, REQUEST)
    composition(sent)
    size_sent = compactor.measure(sent)
    return (compactor.events[first].size_before if len(compactor.events) > first else size_sent,
            size_sent)


def time_json(messages: list, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        json.dumps(messages, ensure_ascii=False, separators=(",", ":"))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def per_turn(n: int, megabytes: float, turns: int = 7) -> dict:
    """Median cost of one more turn with a warm Compactor, and with a fresh one."""
    rng = random.Random(n)
    messages = history(n, megabytes)
    with tempfile.TemporaryDirectory() as workdir:
        warm = size_cached(Compactor(workdir, summarize=summary))
        one_turn(warm, messages)                       # it has seen the history before
        warm_times, cold_times, exact, fired = [], [], True, set()
        for k in range(turns):
            messages += tool_round(10**6 + k, result_sizes(rng, 1, 4_000)[0])
            first = len(warm.events)
            gc.collect()
            start = time.perf_counter()
            size, _ = one_turn(warm, messages)
            warm_times.append(time.perf_counter() - start)
            fired |= {e.stage for e in warm.events[first:] if e.fired}
            exact &= size == estimate_size(messages)
            cold = Compactor(workdir, summarize=summary)
            start = time.perf_counter()
            one_turn(cold, messages)
            cold_times.append(time.perf_counter() - start)
        return {"n": len(messages), "mb": estimate_size(messages) / 1e6,
                "json": time_json(messages), "warm": statistics.median(warm_times),
                "cold": statistics.median(cold_times), "exact": exact,
                "fired": ", ".join(sorted(fired)), "messages": messages}


def peak_memory(messages: list) -> tuple[float, float, float]:
    """MB: peak of one more turn (warm), peak of one json.dumps, what the cache holds."""
    with tempfile.TemporaryDirectory() as workdir:
        tracemalloc.start()
        compactor = size_cached(Compactor(workdir, summarize=summary))
        one_turn(compactor, messages)
        held = tracemalloc.get_traced_memory()[0]
        messages = messages + tool_round(2 * 10**6, 4_000)
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        one_turn(compactor, messages)
        turn_peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        json.dumps(messages, ensure_ascii=False, separators=(",", ":"))
        json_peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    return turn_peak / 1e6, json_peak / 1e6, held / 1e6


def exponent(points: list[tuple[int, float]]) -> float:
    xs = [math.log(t) for t, _ in points]
    ys = [math.log(s) for _, s in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


CHECKPOINTS = (125, 250, 500, 1_000)


def whole_history_session(turns: int, remember: bool) -> list[float]:
    """Cumulative seconds of one_turn over a session whose caller keeps every message."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as workdir:
        compactor = size_cached(Compactor(workdir, summarize=summary))
        messages = [{"role": "user", "content": REQUEST}]
        spent, cumulative = 0.0, []
        for k, size in enumerate(result_sizes(rng, turns, 4_000)):
            messages += tool_round(k, size)
            if not remember:
                compactor = Compactor(workdir, summarize=summary)
            start = time.perf_counter()
            one_turn(compactor, messages)
            spent += time.perf_counter() - start
            cumulative.append(spent)
        return cumulative


class ScriptedClient:
    """A Messages-API stand-in that always asks for one more file (summaries on request),
    so agent_loop's own cost is what is timed, not a model's."""

    def __init__(self, files: int) -> None:
        self.calls, self.files, self.messages = 0, files, self

    def create(self, **request) -> Message:
        self.calls += 1
        usage = Usage(input_tokens=1, output_tokens=1)
        if request.get("system") == SUMMARY_SYSTEM:
            return Message(id="m", type="message", role="assistant", model="scripted",
                           content=[TextBlock(type="text", text="Goal: read. Findings: many.")],
                           stop_reason="end_turn", usage=usage)
        path = f"part{self.calls % self.files}.log"
        return Message(id="m", type="message", role="assistant", model="scripted",
                       content=[TextBlock(type="text", text=f"Reading {path}."),
                                ToolUseBlock(type="tool_use", id=f"toolu_{self.calls}",
                                             name="read_file", input={"path": path})],
                       stop_reason="tool_use", usage=usage)


def agent_loop_session(turns: int) -> list[float]:
    """Cumulative seconds of agent_loop over ``turns`` tool calls (the stand-in answers in
    microseconds), through the default pipeline."""
    rng = random.Random(9)
    with tempfile.TemporaryDirectory() as workdir:
        root = Path(workdir)
        for k, size in enumerate(result_sizes(rng, 64, 4_000)):
            (root / f"part{k}.log").write_text("y" * size)
        client = ScriptedClient(64)
        compactor = size_cached(Compactor(root, summarize=summary))
        messages = [{"role": "user", "content": REQUEST}]
        cumulative, start = [], time.perf_counter()
        try:
            agent_loop(messages, REQUEST, client=client, compactor=compactor,
                       workspace=Workspace(root), log=lambda _: None,
                       options=LoopOptions(model="scripted", max_turns=turns, on_turn=lambda _:
                                           cumulative.append(time.perf_counter() - start)))
        except TurnLimitError:                     # the stand-in never stops asking
            pass
        return cumulative


def main() -> None:
    print(f"machine: {machine()}")
    print("\n1. One more turn for a caller that keeps its whole history (median of 7 turns):\n")
    print(f"{'messages':>9}{'MB':>7}{'json.dumps ms':>15}{'turn ms':>9}{'÷ json':>8}"
          f"{'no cache ms':>13}{'÷ json':>8}  sizes = estimate_size   stages that fired")
    rows = [per_turn(1_000, 2), per_turn(5_000, 10), per_turn(20_000, 20)]
    for r in rows:
        print(f"{r['n']:>9,}{r['mb']:>7.1f}{r['json'] * 1e3:>15.1f}{r['warm'] * 1e3:>9.1f}"
              f"{r['warm'] / r['json']:>8.2f}{r['cold'] * 1e3:>13.1f}{r['cold'] / r['json']:>8.2f}"
              f"  {'yes' if r['exact'] else 'NO':<22}{r['fired']}")
    print("\n2. Peak memory (tracemalloc) of one more turn and of one json.dumps:\n")
    print(f"{'messages':>9}{'MB':>7}{'turn peak MB':>14}{'json.dumps peak MB':>20}{'cache holds MB':>16}")
    for r in rows:
        turn, dumps, held = peak_memory(r["messages"])
        print(f"{r['n']:>9,}{r['mb']:>7.1f}{turn:>14.1f}{dumps:>20.1f}{held:>16.1f}")
    print("\n3. Cumulative time over a 1,000-turn session (2 messages a turn):\n")
    sessions = {"whole history, size cache": whole_history_session(1_000, True),
                "whole history, no cache": whole_history_session(1_000, False),
                "agent_loop (history compacted)": agent_loop_session(1_000)}
    print(f"{'':<32}" + "".join(f"{t:>9} t" for t in CHECKPOINTS) + "   exponent k")
    for name, cumulative in sessions.items():
        points = [(t, cumulative[t - 1]) for t in CHECKPOINTS]
        print(f"{name:<32}" + "".join(f"{s:>10.2f}s" for _, s in points)
              + f"   {exponent(points):>10.2f}")


if __name__ == "__main__":
    main()
