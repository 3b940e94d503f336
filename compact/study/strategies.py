"""Strategies compared on the same long session: each is a configuration of the pipeline.

    none            no stage runs (the model's window must be large enough to finish)
    pipeline        the lesson's four stages with the lesson's numbers
    micro only      micro_compact alone, waiting for a trigger, keep 3 — the client-side
                    analogue of the API's context editing ``clear_tool_uses_20250919``
                    (trigger 100,000 input tokens, keep 3 tool uses; the API also has
                    ``exclude_tools`` and ``clear_at_least``, left at their defaults here)
    summary only    summarise everything above a token trigger — the analogue of server-side
                    compaction ``compact_20260112`` (trigger 150,000 tokens)
    archiving       the pipeline, but whatever leaves the context is written to disk first
                    and the context keeps the path: nothing lost, only moved
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..loop import agent_loop
from ..offline import OfflineModel
from ..pipeline import Compactor, Limits
from ..tools import Workspace
from .retention import retention
from .workload import PROBES, Probe, make_long_workspace, session_turns

BIG_WINDOW = 10_000_000      # offline tokens: enough for the uncompacted session to finish
# The API's context editing triggers at 100,000 input tokens; the offline rule is 4 bytes a
# token, so the analogue waits for 400,000 chars (the workload is ASCII: a char is a byte).
CONTEXT_EDITING_TRIGGER_CHARS = 100_000 * 4


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    build: Callable[[Path, Any], Compactor]


STRATEGIES = [
    Strategy("none", "no compaction (window large enough to finish)",
             lambda ws, client: Compactor(ws, summarize=client, stages=())),
    Strategy("pipeline", "the lesson's four stages, default numbers",
             lambda ws, client: Compactor(ws, summarize=client)),
    Strategy("micro only", "clear_tool_uses analogue: trigger 100k tokens, keep 3",
             lambda ws, client: Compactor(
                 ws, Limits(micro_compact_above=CONTEXT_EDITING_TRIGGER_CHARS), summarize=client,
                 stages=("micro_compact",))),
    Strategy("summary only", "compact_20260112 analogue: summarise above 150k tokens",
             lambda ws, client: Compactor(ws, Limits(context_limit=600_000), summarize=client,
                                          stages=("compact_history", "reactive_compact"))),
    Strategy("archiving", "the pipeline, archiving whatever it removes",
             lambda ws, client: Compactor(ws, summarize=client, archive=True)),
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
    retention: dict[str, str]           # probe → context | disk | lost
    messages: list = field(repr=False, default_factory=list)

    def kept(self, where: tuple[str, ...] = ("context", "disk")) -> int:
        return sum(v in where for v in self.retention.values())


def run_session(strategy: Strategy, workdir: str | Path | None = None,
                turns: list[str] | None = None, probes: list[Probe] = PROBES) -> SessionReport:
    """Drive the whole scripted session with one strategy, offline; measure what it cost."""
    root = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="session-"))
    workspace = Workspace(make_long_workspace(root))
    model = OfflineModel(window_tokens=BIG_WINDOW)
    client = model.client()
    compactor = strategy.build(workspace.root, client)
    history: list = []
    cumulative, peak, rereads = [], 0, 0
    for request in turns or session_turns():
        history.append({"role": "user", "content": request})
        trace = agent_loop(history, request, client=client, compactor=compactor,
                           workspace=workspace, log=lambda _line: None)
        peak = max([peak, *(t.size_sent for t in trace.turns)])
        rereads += trace.rereads
        cumulative.append(sum(tokens for _, tokens in model.usage))
    return SessionReport(
        strategy.name, workspace.root, cumulative[-1] if cumulative else 0, cumulative, peak,
        len(model.usage), sum(kind == "summary" for kind, _ in model.usage), rereads,
        retention(probes, history, workspace.root), history)


def compare(workdir: str | Path | None = None, turns: list[str] | None = None,
            strategies: list[Strategy] = STRATEGIES) -> list[SessionReport]:
    root = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="compare-"))
    return [run_session(s, root / s.name.replace(" ", "-"), turns) for s in strategies]


def table(reports: list[SessionReport]) -> str:
    base = next((r.input_tokens for r in reports if r.strategy == "none"), None)
    head = (f"{'strategy':<14}{'input tokens':>14}{'saved':>8}{'peak chars':>12}{'calls':>7}"
            f"{'summaries':>11}{'re-reads':>10}  probes kept (context+disk / lost)")
    rows = [head, "-" * len(head)]
    for r in reports:
        saved = f"{1 - r.input_tokens / base:.1%}" if base else "—"
        counts = {k: list(r.retention.values()).count(k) for k in ("context", "disk", "lost")}
        rows.append(f"{r.strategy:<14}{r.input_tokens:>14,}{saved:>8}{r.peak_size:>12,}"
                    f"{r.model_calls:>7}{r.summary_calls:>11}{r.rereads:>10}  "
                    f"{counts['context']}+{counts['disk']} / {counts['lost']}")
    return "\n".join(rows)


__all__ = ["STRATEGIES", "SessionReport", "Strategy", "compare", "run_session", "table"]
