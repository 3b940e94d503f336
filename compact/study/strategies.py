"""Strategies compared on the same long session, each a configuration of the pipeline
(``STRATEGIES``: "micro only" is the client-side analogue of the API's ``clear_tool_uses``,
"summary only" of server-side compaction). Tool output is capped at 50,000 chars (this study's
cap), and every request is accounted plainly and cache-aware (``caching.py``)."""

from __future__ import annotations

import multiprocessing
import queue
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from ..client import summarizer_for
from ..extensions import ArchivingCompactor, CacheFriendlyCompactor, micro_compact_above, size_cached
from ..loop import agent_loop
from ..offline import OfflineModel
from ..pipeline import STAGES, Compactor, Limits
from ..pipeline.compactor import SUMMARY_STAGES
from ..tools import Workspace
from .caching import PRICES, CacheLedger, Pricing, RecordingClient
from .remembered import keep, recall
from .retention import PLACES, retention
from .workload import PROBES, make_long_workspace, session_turns

BIG_WINDOW = 10_000_000      # offline tokens: enough for the uncompacted session to finish
# The API's context editing triggers at 100,000 input tokens; the offline rule is 4 bytes a
# token, so the analogue waits for 400,000 chars (the workload is ASCII: a char is a byte).
CONTEXT_EDITING_TRIGGER_CHARS = 100_000 * 4
TOOL_OUTPUT_CAP = 50_000     # this study's cap on a tool's output, in chars (not the lesson's)
# The cache-friendly configuration: the lesson's 50,000 chars become a high-water mark;
# crossing it clears old results and, above 20,000 chars, summarises the new span into a
# merged summary of at most 6,000 chars.
CACHE_FRIENDLY = {"high_water_mark": 50_000, "low_water_mark": 20_000, "summary_max_chars": 6_000}
KIND = "strategy"             # how remembered.py files these sessions


class ArchivingCacheFriendly(CacheFriendlyCompactor, ArchivingCompactor):
    """Archiving, in large steps, with a merged bounded summary."""


@dataclass(frozen=True)
class Strategy:
    """A configuration of the pipeline (plain data, so a worker process can be sent one)."""

    name: str
    description: str
    limits: Limits = Limits()
    stages: tuple[str, ...] = STAGES
    kind: type[Compactor] = Compactor           # the core, or a variant from compact.extensions
    options: dict = field(default_factory=dict, hash=False)   # the variant's own settings

    def build(self, workdir: Path, client: Any) -> Compactor:
        return size_cached(self.kind(workdir, self.limits, summarize=summarizer_for(client),
                                     stages=self.stages, **self.options))


STRATEGIES = [
    Strategy("none", "no compaction (window large enough to finish)", stages=()),
    Strategy("pipeline", "the lesson's four stages, default numbers"),
    Strategy("micro only", "clear_tool_uses analogue: trigger 100k tokens, keep 3",
             stages=("micro_compact",), options={"functions": {"micro_compact": partial(
                 micro_compact_above, CONTEXT_EDITING_TRIGGER_CHARS)}}),
    Strategy("summary only", "compact_20260112 analogue: summarise above 150k tokens",
             Limits(context_limit=600_000), ("compact_history", "reactive_compact")),
    Strategy("archiving", "the pipeline, archiving whatever it removes", kind=ArchivingCompactor),
    Strategy("cache-friendly", "archiving, in large steps at 50k chars, merged summary ≤ 6k",   # no snip
             stages=tuple(s for s in STAGES if s != "snip_compact"), kind=ArchivingCacheFriendly,
             options=CACHE_FRIENDLY),
]


@dataclass
class SessionReport:
    strategy: str
    workdir: Path
    input_tokens: int                   # everything sent: agent calls + summary calls
    cumulative_tokens: list[int]        # after each user turn
    peak_size: int                      # largest context sent, in chars
    model_calls: int
    summary_calls: int
    rereads: int                        # tool calls repeating one made earlier in the same turn
    retention: dict[str, str]           # probe → context | archive | workspace | lost
    ledger: CacheLedger = field(repr=False, default_factory=CacheLedger)
    cumulative_cost: list[float] = field(default_factory=list)   # cache-aware, per user turn
    summaries: list[str] = field(repr=False, default_factory=list)   # after each compaction
    seconds: float = 0.0
    messages: list = field(repr=False, default_factory=list)
    summary_turns: list[int] = field(default_factory=list)   # the user turn of each summary
    remembered: str = ""                # the file it was loaded from, when not replayed (remembered.py)

    def places(self) -> dict[str, int]:
        return {p: list(self.retention.values()).count(p) for p in PLACES}

    def cost(self, pricing: Pricing = PRICES) -> float:
        """Cache-aware cost, in plain-token equivalents."""
        return self.ledger.cost(pricing)

    def floor(self, pricing: Pricing = PRICES) -> float:
        return self.ledger.floor(pricing)


def session_workspace(workdir: str | Path | None, prefix: str) -> Workspace:
    root = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix=prefix))
    return Workspace(make_long_workspace(root), max_output_chars=TOOL_OUTPUT_CAP)


def play(client: Any, compactor: Compactor, workspace: Workspace, requests: list[str],
         progress: Callable[[int, int], None] | None = None) -> SessionReport:
    """Every request through agent_loop with one client (a ``RecordingClient`` with a
    ``usage`` list), compactor and workspace; what it cost (the report is not named yet)."""
    start, history, cumulative, costs, summary_turns = time.perf_counter(), [], [], [], []
    peak = rereads = 0
    for done, request in enumerate(requests, 1):
        history.append({"role": "user", "content": request})
        first_event = len(compactor.events)
        trace = agent_loop(history, request, client=client, compactor=compactor,
                           workspace=workspace, log=lambda _line: None)
        summary_turns += [done] * sum(e.fired and e.stage in SUMMARY_STAGES
                                      for e in compactor.events[first_event:])
        peak = max([peak, *(t.size_sent for t in trace.turns)])
        rereads += trace.rereads
        cumulative.append(sum(tokens for _, tokens in client.usage))
        costs.append(client.ledger.cost(PRICES))
        if progress:
            progress(done, len(requests))
    summaries = [e.extra["summary"] for e in compactor.events if e.fired and e.stage in SUMMARY_STAGES]
    client.ledger.forget()              # the session is over: keep the requests, not the index
    return SessionReport(
        "", workspace.root, cumulative[-1] if cumulative else 0, cumulative, peak,
        len(client.usage), sum(kind != "agent" for kind, _ in client.usage), rereads,
        retention(PROBES, history, workspace.root), client.ledger, costs, summaries,
        time.perf_counter() - start, history, summary_turns)


def run_session(strategy: Strategy, workdir: str | Path | None = None,
                turns: list[str] | None = None,
                progress: Callable[[str, int, int], None] | None = None) -> SessionReport:
    """Drive the whole scripted session with one strategy, offline; measure what it cost
    (``progress(strategy, turns done, turns in all)`` after every user turn)."""
    workspace = session_workspace(workdir, "session-")
    model = OfflineModel(window_tokens=BIG_WINDOW)
    client = RecordingClient(model.client())
    client.usage = model.usage          # what play counts: (kind, input tokens) per call
    report = play(client, strategy.build(workspace.root, client), workspace, turns or session_turns(),
                  partial(progress, strategy.name) if progress else None)
    return replace(report, strategy=strategy.name)


def compare(workdir: str | Path | None = None, turns: list[str] | None = None,
            strategies: list[Strategy] = STRATEGIES,
            progress: Callable[[str, int, int], None] | None = None,
            workers: int = 1) -> list[SessionReport]:
    """Every strategy on the same session, in order (``workers`` > 1: in that many processes);
    the package's own strategies on the default session are remembered (``remembered.py``)."""
    root = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="compare-"))
    kept = [recall(KIND, s.name) if rememberable(s, turns) else None for s in strategies]
    for strategy, report in zip(strategies, kept, strict=True):
        if report is not None and progress:
            progress(strategy.name, len(report.cumulative_tokens), len(report.cumulative_tokens))
    jobs = [(s, root / s.name.replace(" ", "-"), turns)
            for s, report in zip(strategies, kept, strict=True) if report is None]
    replayed = iter(_replay(jobs, progress, workers))
    reports = [report if report is not None else next(replayed) for report in kept]
    for strategy, old, report in zip(strategies, kept, reports, strict=True):
        if old is None and rememberable(strategy, turns):
            keep(KIND, strategy.name, report)
    return reports


def rememberable(strategy: Strategy, turns: list[str] | None) -> bool:
    """One of the package's strategies (its code is in the key), on the default session."""
    return any(strategy is s for s in STRATEGIES) and (turns is None or turns == session_turns())


def _replay(jobs: list[tuple], progress: Callable[[str, int, int], None] | None,
            workers: int) -> list[SessionReport]:
    if workers <= 1 or len(jobs) <= 1:
        return [run_session(*job, progress=progress) for job in jobs]
    context = _workers_context()
    messages = context.Queue()
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context,
                             initializer=_listen, initargs=(messages,)) as pool:
        futures = [pool.submit(_run_in_worker, *job) for job in jobs]
        expected = sum(len(turns or session_turns()) for _, _, turns in jobs)
        received = 0
        while received < expected:          # one update per turn of every session
            try:
                update = messages.get(timeout=0.1)
            except queue.Empty:
                if any(f.done() and f.exception() for f in futures):
                    break                   # a session failed: result() raises it below
                continue
            received += 1
            if progress:
                progress(*update)
        return [f.result() for f in futures]


def _workers_context() -> Any:
    """Worker processes forked from a fresh server process that imported the package once (no
    fork of a threaded kernel, no import per worker); spawned where there is no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


_PROGRESS: Any = None


def _listen(messages: Any) -> None:
    global _PROGRESS
    _PROGRESS = messages


def _run_in_worker(strategy: Strategy, workdir: Path, turns: list[str] | None) -> SessionReport:
    return run_session(strategy, workdir, turns, progress=lambda *update: _PROGRESS.put(update))


__all__ = ["CACHE_FRIENDLY", "STRATEGIES", "SessionReport", "Strategy", "compare", "run_session"]
