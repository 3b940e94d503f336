"""The "write it yourself" checker: ``check("micro_compact", my_micro_compact)`` runs every case
of ``stage_cases`` and says, in plain words, which pass and, for each that fails, where the stage
went wrong: the pitfall it shows, if the lesson is known for it, the structure (message count,
head and tail kept, tool results changed), then the first message or block that differs.
"""

from __future__ import annotations

import copy
import html
import inspect
import json
import os
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..offline.markers import read_compacted, read_persisted, read_placeholder, read_snip
from ..pipeline import Context, Limits
from ..pipeline.formats import REFERENCE
from ..pipeline.messages import (
    has_tool_use,
    is_tool_result_message,
    iter_tool_results,
    joined_text,
    pairing_problems,
    plain_text,
)
from ..texts import say
from .reveal import CHECK_CLAIMS, is_solution
from .stage_cases import SIGNATURE, Case, cases

CONTEXT = 40


def describe(content: Any) -> str:
    """What a message's or a block's content is, in a few words."""
    if isinstance(content, list):
        return say("fb.kind.blocks", kinds=", ".join(
            str(b.get("type")) if isinstance(b, dict) else type(b).__name__ for b in content))
    text = content if isinstance(content, str) else repr(content)
    if read_placeholder(text):
        return say("fb.kind.placeholder")
    if read_persisted(text) is not None:
        return say("fb.kind.persisted", chars=len(text))
    if (snip := read_snip(text)) is not None:
        return say("fb.kind.snip", count=snip.count)
    if (compacted := read_compacted(text)) is not None:
        return say("fb.kind.compacted", label=f"[{compacted.label}]")
    return say("fb.kind.text", chars=len(text))


def _contrast(key: str, want: Any, got: Any, **where: int) -> str:
    """"expected X, got Y" for message or block ``where``; one phrase when X and Y read alike."""
    kinds = describe(want), describe(got)
    if kinds[0] == kinds[1]:
        return say("fb.same_kind", where=say(f"fb.where.{key}", **where), kind=kinds[0])
    return say(f"fb.{key}", want=kinds[0], got=kinds[1], **where)


def text_difference(want: str, have: str) -> str:
    """The first differing character of two texts, with CONTEXT characters on both sides."""
    at = next((k for k, (a, b) in enumerate(zip(want, have, strict=False)) if a != b),
              min(len(want), len(have)))
    start = max(at - CONTEXT, 0)
    return say("fb.text_at", at=at, want=repr(want[start:at + CONTEXT])[1:-1],
               got=repr(have[start:at + CONTEXT])[1:-1])


def _kept(given: list, out: list) -> tuple[int, int]:
    """How many of the input's first and last messages ``out`` keeps as they were."""
    shorter = min(len(given), len(out))
    head = next((k for k, (a, b) in enumerate(zip(given, out, strict=False)) if a != b), shorter)
    tail = next((k for k, (a, b) in enumerate(zip(reversed(given), reversed(out), strict=False))
                 if a != b), shorter)
    return min(head, len(out)), min(tail, len(out) - min(head, len(out)))


def changed(given: list, out: list) -> dict:
    """The input's tool results ``out`` changed: tool_use_id → (its number from 1, the new content)."""
    now = {b.get("tool_use_id"): b.get("content") for _, _, b in iter_tool_results(out)}
    return {b.get("tool_use_id"): (n, now[b.get("tool_use_id")])
            for n, (_, _, b) in enumerate(iter_tool_results(given), 1)
            if b.get("tool_use_id") in now and now[b.get("tool_use_id")] != b.get("content")}


def _changed(given: list, out: list) -> str:
    changes = [f"#{n} → {describe(content)}" for n, content in changed(given, out).values()]
    return say("fb.and").join(changes) or say("fb.none")


def structure(expected: list, got: list, given: list) -> list[str]:
    """The shape of the difference: message counts, what was kept, which results changed."""
    lines = [say("fb.count", got=len(got), want=len(expected))] if len(got) != len(expected) else []
    (head, tail), (got_head, got_tail) = _kept(given, expected), _kept(given, got)
    if (head, tail) != (got_head, got_tail) and len(expected) < len(given):
        line = say("fb.kept", head=head, tail=tail, got_head=got_head, got_tail=got_tail)
        for cut in (got_head, len(given) - got_tail):     # where yours cut the input
            if 0 < cut < len(given) and is_tool_result_message(given[cut]) \
                    and has_tool_use(given[cut - 1]):
                line += say("fb.pair", at=cut, before=cut - 1)
                break
        lines.append(line)
    want_changes, got_changes = _changed(given, expected), _changed(given, got)
    if want_changes != got_changes:
        lines.append(say("fb.results", want=want_changes, got=got_changes))
    return lines


def first_difference(expected: list, got: list) -> str:
    """The first message, or block, that differs; for text, where."""
    for i, (want, have) in enumerate(zip(expected, got, strict=False)):
        if want == have:
            continue
        wc = want.get("content") if isinstance(want, dict) else want
        hc = have.get("content") if isinstance(have, dict) else have
        if isinstance(wc, list) and isinstance(hc, list) and len(wc) == len(hc):
            j = next(j for j, (a, b) in enumerate(zip(wc, hc, strict=True)) if a != b)
            wt, ht = (joined_text(x.get("content", x.get("text"))) if isinstance(x, dict) else x
                      for x in (wc[j], hc[j]))
            return _contrast("block", wt, ht, i=i, j=j) + "\n" + text_difference(str(wt), str(ht))
        line = _contrast("message", wc, hc, i=i)
        both_text = isinstance(wc, str) and isinstance(hc, str)
        return line + ("\n" + text_difference(wc, hc) if both_text else "")
    return ""


def difference(expected: list, got: Any, given: list) -> str | None:
    """Where ``got`` differs from ``expected`` (both from the input ``given``), or None."""
    if not isinstance(got, list):
        return say("fb.not_list", kind=type(got).__name__)
    lines = [*structure(expected, got, given), first_difference(expected, got)]
    return None if got == expected else "\n".join(line for line in lines if line)


def unencoded(given: list, expected: list, got: list) -> str | None:
    """The reference state after the header is raw text, not one JSON string."""
    text = plain_text(got[0]) if got and isinstance(got[0], dict) else ""
    _, found, reference = text.partition(f"\n\n{REFERENCE}\n")
    try:
        wrong = bool(found) and not isinstance(json.loads(reference), str)
    except ValueError:
        wrong = True
    return say("mistake.unencoded") if wrong else None


def unpaired(given: list, expected: list, got: list) -> str | None:
    """A tool_use parted from its tool_result that the input kept together."""
    problems = pairing_problems(got) if not pairing_problems(given) else []
    return say("mistake.unpaired", problem=problems[0]) if problems else None


def wrong_end(given: list, expected: list, got: list) -> str | None:
    """The newest results replaced where the oldest should have been."""
    ids = [b.get("tool_use_id") for _, _, b in iter_tool_results(given)]
    want, have = list(changed(given, expected)), list(changed(given, got))
    if want and have and want != have and set(have) <= set(ids[len(ids) - len(have):]) \
            and set(want) <= set(ids[:len(want)]):
        return say("mistake.wrong_end")
    return None


# stage → the pitfalls the lesson is known for, in the order they are looked for
MISTAKES = {"tool_result_budget": (), "snip_compact": (unpaired,), "micro_compact": (wrong_end,),
            "compact_history": (unencoded,), "reactive_compact": (unencoded, unpaired)}


@dataclass(frozen=True)
class Outcome:
    case: Case
    passed: bool
    message: str = ""           # why it failed, in plain words


def run_case(stage: str, case: Case, fn: Callable[..., Any], workdir: Path) -> Outcome:
    """Run one case of ``stage`` in ``workdir`` (empty, so what lands on disk can be checked)."""
    history = case.history()
    given = copy.deepcopy(history)
    try:
        got = fn(history, Context(workdir, Limits(), case.request, case.summarize))
    except NotImplementedError:
        return Outcome(case, False, say("check.not_written"))
    except Exception as error:     # a learner's bug is a result to report, not a crash
        where = traceback.extract_tb(error.__traceback__)[-1]
        return Outcome(case, False, say("check.raised", kind=type(error).__name__, error=error,
                                        line=where.lineno, where=where.name))
    expected = got if case.expected is None else case.expected(given)   # None: disk only
    problem = difference(expected, got, given) if case.judge is None or not isinstance(got, list) \
        else case.judge(expected, got)
    named = [say("check.mutated")] if history != given else []
    if problem and isinstance(got, list):        # the pitfall it shows, named first
        named += [m for m in (find(given, expected, got) for find in MISTAKES[stage]) if m][:1]
    if problem is None and case.disk is not None:
        problem = case.disk(workdir, given)
    message = "\n".join([*named, *([problem] if problem else [])])
    return Outcome(case, not message, message)


@dataclass(frozen=True)
class Report:
    stage: str
    outcomes: tuple[Outcome, ...]
    solution: bool = False        # the function checked is the package's worked solution

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes)

    @property
    def failed(self) -> list[str]:
        return [o.case.name for o in self.outcomes if not o.passed]

    def _lines(self) -> list[tuple[bool, str, str]]:
        """(passed, ``[lesson] the rule`` in the chosen language, why it failed) of each case."""
        return [(o.passed, f"[{say(f'case.source.{o.case.source}')}] {say(f'case.{o.case.name}')}",
                 o.message) for o in self.outcomes]

    def headline(self) -> str:
        """How many cases pass; the lesson's cases and the fixes apart when a fix fails."""
        good = sum(o.passed for o in self.outcomes)
        stage = say("check.worked", stage=self.stage) if self.solution else self.stage
        verdict = say("check.all_pass") if self.passed else say("check.fail", count=len(self.outcomes) - good)
        fixes = [o for o in self.outcomes if o.case.source == "fix"]
        if self.passed or not fixes:
            return say("check.headline", stage=stage, good=good, total=len(self.outcomes),
                       verdict=verdict)
        lesson = [o for o in self.outcomes if o.case.source != "fix"]
        passing = sum(o.passed for o in lesson)
        verdict = say("check.all_pass") if passing == len(lesson) else say(
            "check.some_pass", good=passing, total=len(lesson), count=len(lesson) - passing)
        return say("check.split", stage=stage, lesson=len(lesson), verdict=verdict,
                   fixes=len(fixes), fixed=sum(o.passed for o in fixes))

    def __str__(self) -> str:
        lines = [self.headline()] + ([say("check.solution")] if self.solution else [])
        for ok, name, message in self._lines():
            lines.append(f"  {'✓' if ok else '✗'} {name}")
            if not ok:
                lines += [f"      {'→' if k == 0 else ' '} {line}"
                          for k, line in enumerate(message.splitlines())]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        pre = "color:black;white-space:pre-wrap;margin:2px 0 6px 1.2em;font-size:90%"
        items = "".join(
            f"<li style='color:{'#117733' if ok else '#AA3377'}'>{'✓' if ok else '✗'} "
            f"{html.escape(name)}" + ("" if ok else f"<pre style='{pre}'>→ {html.escape(message)}</pre>")
            + "</li>" for ok, name, message in self._lines())
        note = f"<br><i>{html.escape(say('check.solution'))}</i>" if self.solution else ""
        return (f"<div class='exercise-report'><b>{html.escape(self.headline())}</b>{note}"
                f"<ul style='list-style:none;padding-left:1em'>{items}</ul></div>")


def check(stage: str, fn: Callable[..., Any], strict: bool = True) -> Report:
    """Run every case of ``stage`` against ``fn``, each in its own empty folder; the report. Under the
    test suite (``COMPACT_CHECK_CLAIMS=1``) a failing one raises, unless ``strict=False``."""
    stage_cases = cases(stage)              # an unknown stage is a ValueError naming the known ones
    signature = SIGNATURE.format(stage=stage)
    if not callable(fn):
        raise TypeError(say("check.not_function", signature=signature, kind=type(fn).__name__))
    try:
        inspect.signature(fn).bind("messages", "ctx")
    except TypeError:
        raise TypeError(say("check.signature", name=getattr(fn, "__name__", say("check.this_function")),
                            actual=inspect.signature(fn), signature=signature)) from None
    except ValueError:          # a builtin without a signature: let the cases find out
        pass
    outcomes = []
    for case in stage_cases:
        with tempfile.TemporaryDirectory(prefix="check-") as folder:
            outcomes.append(run_case(stage, case, fn, Path(folder)))
    report = Report(stage, tuple(outcomes), is_solution(fn))
    if strict and os.environ.get(CHECK_CLAIMS) and not report.passed:   # notebooks under test
        raise AssertionError(str(report))
    return report
