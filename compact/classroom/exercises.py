"""The "write it yourself" checker: a learner's stage function against the stage's own cases.

``check("micro_compact", my_micro_compact)`` runs every case of ``stage_cases`` (the same
ones the package's tests run its stages through) and says, in plain words, which pass and,
for each that fails, what was expected and what came back. ``PACKAGE`` holds the package's
own stages in the same signatures, so the tests can show they pass the very same cases.
"""

from __future__ import annotations

import copy
import html
import inspect
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..pipeline.compact_history import compact_history, reactive_compact
from ..pipeline.micro_compact import micro_compact
from ..pipeline.snip_compact import snip_compact
from ..pipeline.tool_result_budget import tool_result_budget
from .stage_cases import SIGNATURES, Case, cases

PACKAGE: dict[str, Callable[..., list]] = {
    "tool_result_budget": lambda m, workdir, limits: tool_result_budget(m, Path(workdir), limits)[0],
    "snip_compact": lambda m, limits: snip_compact(m, limits)[0],
    "micro_compact": lambda m, limits: micro_compact(m, limits)[0],
    "compact_history": lambda m, request, workdir, summarize:
        compact_history(m, request, Path(workdir), summarize)[0],
    "reactive_compact": lambda m, request, workdir, summarize, limits:
        reactive_compact(m, request, Path(workdir), summarize, limits)[0],
}


def _call(case: Case, fn: Callable[..., Any], messages: list, workdir: Path) -> Any:
    if case.stage == "tool_result_budget":
        return fn(messages, workdir, case.limits)
    if case.stage in ("snip_compact", "micro_compact"):
        return fn(messages, case.limits)
    if case.stage == "compact_history":
        return fn(messages, case.request, workdir, case.summarize)
    return fn(messages, case.request, workdir, case.summarize, case.limits)


def _text(value: Any, width: int = 60) -> str:
    """A string quoted and cut, with its length when cut; anything else as its repr."""
    if not isinstance(value, str):
        return f"{value!r:.{width}}"
    shown = repr(value[:width] + ("…" if len(value) > width else ""))
    return f"{shown} ({len(value):,} chars)" if len(value) > width else shown


def _message(message: Any) -> str:
    if not isinstance(message, dict):
        return f"a {type(message).__name__}"
    role = message.get("role")
    article = "an" if role == "assistant" else "a"
    content = message.get("content")
    if isinstance(content, str):
        return f"{article} {role} message {_text(content)}"
    kinds = ", ".join(str(b.get("type")) if isinstance(b, dict) else type(b).__name__
                      for b in content or [])
    return f"{article} {role} message with blocks [{kinds}]"


def difference(expected: list, got: Any) -> str | None:
    """Where ``got`` first differs from ``expected``, in words; None when they are equal."""
    if not isinstance(got, list):
        return f"it returned {type(got).__name__} {_text(got)}, not a list of messages"
    if got == expected:
        return None
    for i, (want, have) in enumerate(zip(expected, got, strict=False)):
        if want == have:
            continue
        wc, hc = want.get("content"), have.get("content") if isinstance(have, dict) else None
        if isinstance(wc, list) and isinstance(hc, list) and len(wc) == len(hc) \
                and want.get("role") == have.get("role"):
            for j, (wb, hb) in enumerate(zip(wc, hc, strict=True)):
                if wb != hb:
                    key = "content" if wb.get("type") == "tool_result" else None
                    if key and isinstance(hb, dict) and wb.get("type") == hb.get("type"):
                        return (f"message {i}, block {j} (a tool_result): expected "
                                f"{_text(wb.get(key))}, got {_text(hb.get(key))}")
                    return f"message {i}, block {j}: expected {wb!r:.120}, got {hb!r:.120}"
        return f"message {i}: expected {_message(want)}, got {_message(have)}"
    shorter = "fewer" if len(got) < len(expected) else "more"
    return (f"it returned {len(got)} messages, {shorter} than the {len(expected)} expected"
            + (f"; the first missing is {_message(expected[len(got)])}" if len(got) < len(expected)
               else f"; the first extra is {_message(got[len(expected)])}"))


@dataclass(frozen=True)
class Outcome:
    case: Case
    passed: bool
    message: str = ""           # why it failed, in plain words


def run_case(case: Case, fn: Callable[..., Any], workdir: str | Path) -> Outcome:
    """Run one case in ``workdir`` (empty, so what lands on disk can be checked)."""
    workdir = Path(workdir)
    history = case.history()
    given = copy.deepcopy(history)
    try:
        got = _call(case, fn, history, workdir)
    except NotImplementedError:
        return Outcome(case, False, "not written yet (it raises NotImplementedError)")
    except Exception as error:     # a learner's bug is a result to report, not a crash
        where = traceback.extract_tb(error.__traceback__)[-1]
        return Outcome(case, False, f"it raised {type(error).__name__}: {error} "
                                    f"(line {where.lineno} of {where.name})")
    problem = difference(case.expected(given), got)
    if problem is None and history != given:
        problem = ("it changed the list it was given; build and return a new list (copy a "
                   "message or block before changing it), so a failing step loses nothing")
    if problem is None and case.disk is not None:
        problem = case.disk(workdir, given)
    return Outcome(case, problem is None, problem or "")


@dataclass(frozen=True)
class Report:
    stage: str
    outcomes: tuple[Outcome, ...]

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes)

    @property
    def failed(self) -> list[str]:
        """The names of the cases that failed."""
        return [o.case.name for o in self.outcomes if not o.passed]

    def _lines(self) -> list[tuple[bool, str, str]]:
        return [(o.passed, f"[{o.case.source}] {o.case.name}", o.message) for o in self.outcomes]

    def headline(self) -> str:
        good = sum(o.passed for o in self.outcomes)
        verdict = "all pass" if self.passed else f"{len(self.outcomes) - good} fail"
        return f"{self.stage}: {good} of {len(self.outcomes)} cases pass ({verdict})"

    def __str__(self) -> str:
        lines = [self.headline()]
        for ok, name, message in self._lines():
            lines.append(f"  {'✓' if ok else '✗'} {name}")
            if not ok:
                lines.append(f"      → {message}")
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        items = "".join(
            f"<li style='color:{'#117733' if ok else '#AA3377'}'>{'✓' if ok else '✗'} "
            f"{html.escape(name)}" + ("" if ok else f"<br><span style='color:black'>→ "
                                      f"{html.escape(message)}</span>") + "</li>"
            for ok, name, message in self._lines())
        return (f"<div class='exercise-report'><b>{html.escape(self.headline())}</b>"
                f"<ul style='list-style:none;padding-left:1em'>{items}</ul></div>")


def check(stage: str, fn: Callable[..., Any]) -> Report:
    """Run every case of ``stage`` against ``fn`` (signature in ``SIGNATURES``), each in its own
    empty folder; return the report (display it, then ``assert report.passed, report``)."""
    stage_cases = cases(stage)              # an unknown stage is a ValueError naming the known ones
    if not callable(fn):
        raise TypeError(f"check needs a function {SIGNATURES[stage]}, got {type(fn).__name__}")
    wanted = SIGNATURES[stage].split("(", 1)[1].split(")", 1)[0].split(", ")
    try:
        inspect.signature(fn).bind(*wanted)
    except TypeError:
        raise TypeError(f"{getattr(fn, '__name__', 'this function')}{inspect.signature(fn)} cannot "
                        f"be called as {SIGNATURES[stage]}; give it those parameters") from None
    except ValueError:          # a builtin without a signature: let the cases find out
        pass
    outcomes = []
    for case in stage_cases:
        with tempfile.TemporaryDirectory(prefix="check-") as folder:
            outcomes.append(run_case(case, fn, folder))
    return Report(stage, tuple(outcomes))
