"""The figures the README and ``docs/`` quote, computed from the code and from real runs.

``make figures`` writes them to ``docs/generated/facts.json`` (beside the plots, from the same
runs); a test recomputes them and fails when the file is stale, and another fails when a page
quotes a number that is not one of them (or of the other generated pages). Keep this list short:
a figure nobody quotes does not belong here.
"""

from __future__ import annotations

from dataclasses import asdict

from compact.classroom.experiments import ExperimentResult
from compact.offline import AGENT_MAX_TOKENS, DEFAULT_WINDOW_TOKENS, SERVE_WINDOW_TOKENS, count_tokens
from compact.offline.api import MAX_OUTPUT_TOKENS, MAX_THREADS
from compact.offline.server import REQUEST_DEADLINE
from compact.pipeline import Limits
from compact.pipeline.messages import IMAGE_TOKENS
from compact.pipeline.summary import SummaryInput
from compact.study.caching import LOOKBACK_BLOCKS, MIN_CACHE_TOKENS
from compact.study.strategies import CACHE_FRIENDLY, TOOL_OUTPUT_CAP
from compact.study.workload import PROBES, session_turns


def fired_at(result: ExperimentResult, stage: str) -> tuple[int, int, int]:
    """(turn, size before, size after) of the first time ``stage`` fired."""
    for turn in result.trace.turns:
        for event in turn.events:
            if event.fired and event.stage == stage:
                return turn.turn, event.size_before, event.size_after
    raise ValueError(f"{stage} never fired in experiment {result.n}")


def experiment_facts(runs: dict[str, ExperimentResult]) -> dict[str, object]:
    """What each experiment shows, in the numbers its run produced (``runs``: as ``make
    figures`` names them: experiment1..3 and baseline)."""
    one, two, three, base = (runs[k] for k in ("experiment1", "experiment2", "experiment3", "baseline"))
    turn, before, after = fired_at(three, "compact_history")
    persisted = len(two.tool_results[0].read_text(encoding="utf-8")) if two.tool_results else 0
    tokens, window = base.refused_tokens or (0, 0)
    return {
        "experiment1.fired": sorted(set(one.fired)),
        "experiment1.turns": len(one.trace.turns),
        "experiment2.persisted_chars": persisted,
        "experiment3.compacted_at_turn": turn,
        "experiment3.size_before": before,
        "experiment3.size_after": after,
        "experiment3.turns": len(three.trace.turns),
        "baseline.refused_tokens": tokens,
        "baseline.window_tokens": window,
    }


def code_facts() -> dict[str, object]:
    """The numbers that are the code's own: the lesson's limits and the offline model's."""
    limits = {f"limits.{name}": value for name, value in asdict(Limits()).items() if isinstance(value, int)}
    limits |= {f"summary.{name}": value for name, value in asdict(SummaryInput()).items()}
    return {**limits, "offline.window_tokens": DEFAULT_WINDOW_TOKENS,
            "offline.serve_window_tokens": SERVE_WINDOW_TOKENS, "offline.max_tokens": MAX_OUTPUT_TOKENS,
            "offline.agent_max_tokens": AGENT_MAX_TOKENS, "offline.bytes_per_token": bytes_per_token(),
            "offline.image_tokens": IMAGE_TOKENS, "offline.request_deadline_seconds": int(REQUEST_DEADLINE),
            "offline.threads_kept": MAX_THREADS,
            "study.turns": len(session_turns()), "study.probes": len(PROBES),
            "study.cache_lookback_blocks": LOOKBACK_BLOCKS, "study.cache_min_tokens": MIN_CACHE_TOKENS,
            "study.tool_output_cap": TOOL_OUTPUT_CAP,
            **{f"study.cache_friendly.{name}": CACHE_FRIENDLY[name]
               for name in ("high_water_mark", "low_water_mark", "summary_max_chars")}}


def bytes_per_token() -> int:
    """What the offline tokenizer counts as one token, measured on a long ASCII request."""
    text = "a" * 400_000
    return round(len(text) / count_tokens({"messages": [{"role": "user", "content": text}]}))


def all_facts(runs: dict[str, ExperimentResult]) -> dict[str, object]:
    return dict(sorted({**experiment_facts(runs), **code_facts()}.items()))
