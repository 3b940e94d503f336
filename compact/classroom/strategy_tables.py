"""The study's tables (notebooks 07 and 08): HTML in a notebook, aligned text in a terminal."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from functools import partial
from typing import Any

from ..pipeline import STAGES, Limits
from ..study.caching import PRICES, Pricing
from ..study.retention import PLACES
from ..study.workload import PROBES, Probe, session_turns
from ..texts import say, translated
from .show import Table

# The columns by their English names (``study.column.<name>`` in the catalogs).
COST_COLUMNS = ["strategy", "input tokens", "saved", "cache-aware cost", "saved (cache-aware)",
                "floor", "÷ floor", "read from cache", "peak chars", "summary calls", "re-reads", "probes"]
# What a projector shows first: the two costs, the summary calls and where the probes went.
BRIEF_COLUMNS = [COST_COLUMNS.index(c) for c in ("strategy", "input tokens", "cache-aware cost",
                                                 "summary calls", "probes")]
API_COLUMNS = ["strategy", "input tokens", "cache-aware cost", "summary calls", "peak chars", "probes"]


def description(strategy: Any) -> str:
    """What ``strategy`` is: one of the package's own in the chosen language, any other in its
    own words."""
    return translated(strategy.description, "study.strategy.")


def headers(names: list[str]) -> list[str]:
    """The columns, shown; "probes" names the places in the order its cells count them."""
    places = " / ".join(say(f"study.place.{p}") for p in PLACES)
    return [say(f"study.column.{name}", places=places) for name in names]


def _priced(key: str, pricing: Pricing) -> str:
    """The table's title (``title``) or note (``note``), with ``pricing``'s numbers."""
    return say(f"study.table.{key}", read=pricing.read, write=pricing.write, uncached=pricing.uncached)


def _places(report: Any) -> str:
    return " / ".join(str(n) for n in report.places().values())


def cost_table(reports: list, pricing: Pricing = PRICES) -> Table:
    """Plain and cache-aware cost of each ``SessionReport``, savings against the strategy "none",
    and where the probes went."""
    base = next((r for r in reports if r.strategy == "none"), None)
    rows = []
    for r in reports:
        cost, floor = r.cost(pricing), r.floor(pricing)
        saved = f"{1 - r.input_tokens / base.input_tokens:.1%}" if base else "—"
        saved_cached = f"{1 - cost / base.cost(pricing):.1%}" if base else "—"
        rows.append([r.strategy, f"{r.input_tokens:,}", saved, f"{cost:,.0f}", saved_cached,
                     f"{floor:,.0f}", f"{cost / floor:.2f}", f"{r.ledger.share_read():.0%}",
                     f"{r.peak_size:,}", f"{r.summary_calls:,}", f"{r.rereads:,}", _places(r)])
    return Table(headers(COST_COLUMNS), rows, title=_priced("title", pricing),
                 numeric=range(1, len(COST_COLUMNS) - 1), brief=BRIEF_COLUMNS)


def api_table(reports: dict, pricing: Pricing = PRICES) -> Table:
    """Notebook 08's runs by name: what each sent and paid, its summaries, the most the model
    was shown in one request, and where the probes went."""
    rows = [[translated(name, "study.name."), f"{r.input_tokens:,}", f"{r.cost(pricing):,.0f}",
             f"{r.summary_calls:,}", f"{r.peak_size:,}", _places(r)] for name, r in reports.items()]
    return Table(headers(API_COLUMNS), rows, title=_priced("title", pricing), numeric=range(1, 5))


def table(reports: list, pricing: Pricing = PRICES) -> str:
    """The cost table as text, for a terminal (``make bench``), with what its columns mean."""
    return f"{cost_table(reports, pricing)}\n{_priced('note', pricing)}"


def settings(strategy: Any) -> str:
    """What a strategy changes from the lesson's numbers: its Limits and its variant's options
    (a dash when it runs no stage: no number of it is used)."""
    if not strategy.stages:
        return "—"
    lesson = Limits()
    changed = [f"{f.name}={getattr(strategy.limits, f.name):,}" for f in fields(Limits)
               if getattr(strategy.limits, f.name) != getattr(lesson, f.name)]
    for name, value in strategy.options.items():
        if isinstance(value, int):
            changed.append(f"{name}={value:,}")
        elif isinstance(value, dict):          # stage functions by name
            changed += [f"{stage} = {_called(fn)}" for stage, fn in value.items()]
    return ", ".join(changed) or say("study.table.lesson_numbers")


def _called(fn: Any) -> str:
    if isinstance(fn, partial):
        arguments = ", ".join(f"{a:,}" if isinstance(a, int) else repr(a) for a in fn.args)
        return f"{fn.func.__name__}({arguments}, …)"
    return getattr(fn, "__name__", repr(fn))


def strategy_table(strategies: Iterable[Any]) -> Table:
    """The strategies compared (``Strategy`` objects): what each is, runs and changes."""
    return Table(headers(["strategy", "what it is", "stages it runs", "built with", "numbers"]),
                 [(s.name, description(s), _stages(s.stages), s.kind.__name__, settings(s))
                  for s in strategies], monospace=[3, 4])


def _stages(stages: Iterable[str]) -> str:
    if tuple(stages) == STAGES:
        return say("study.table.all_stages")
    return ", ".join(stages) or say("study.table.no_stage")


def probe_table(probes: list[Probe] = PROBES, turns: list[str] | None = None) -> Table:
    """The planted facts: at which user turn each enters the context, and how."""
    requests = turns or session_turns()
    return Table(headers(["turn", "the user's request at that turn", "the fact", "exact text looked for"]),
                 [(p.turn, requests[p.turn - 1], translated(p.name, "study.probe."), p.text) for p in probes],
                 monospace=[1, 3], numeric=[0])
