"""Predict, then see: ``reveal(my_guess, placeholders, expected=2, why="why.03.placeholders")``
compares the learner's guess with what happened, says why (a ``why.`` key of the catalogs, its fields
the other keyword arguments; ``<why>.otherwise`` when ``actual`` is not ``expected``,
``<why>.solution`` when ``stage=`` is still the worked solution), and, under test, checks the claim.
"""

from __future__ import annotations

import html
import os

from ..texts import known, say
from .solutions import MODULE as SOLUTIONS

CHECK_CLAIMS = "COMPACT_CHECK_CLAIMS"     # set by the test suite: a wrong claim fails the run


def _same(guess: object, actual: object) -> bool:
    if isinstance(guess, str) and isinstance(actual, str):
        return guess.strip().lower() == actual.strip().lower()
    return guess == actual


def explanation(why: str, fields: dict[str, object]) -> str:
    """``why`` in the chosen language, formatted with ``fields`` (a field that is a key shown as its
    text); ``why`` as written if it is no key."""
    if not known(why):
        return why
    shown = {name: say(value, **fields) if isinstance(value, str) and known(value) else value
             for name, value in fields.items()}
    return say(why, **shown)


def is_solution(stage: object) -> bool:
    """Whether ``stage`` is the package's worked solution, not a function the learner wrote."""
    return getattr(stage, "__module__", None) == SOLUTIONS


def chosen(why: str, actual: object, expected: object) -> tuple[str, str]:
    """(the outcome: ``holds``, ``otherwise`` or ``unexpected``; the explanation's key)."""
    if not why or expected is Ellipsis or actual == expected:
        return "holds", why
    if known(f"{why}.otherwise"):
        return "otherwise", f"{why}.otherwise"
    return "unexpected", "reveal.unexpected"


class Reveal:
    def __init__(self, guess: object, actual: object, why: str,
                 fields: dict[str, object] | None = None, expected: object = Ellipsis) -> None:
        self.guess, self.actual = guess, actual
        self.fields = {"expected": expected, **(fields or {})}
        self.outcome, self.why = chosen(why, actual, expected)

    def lines(self) -> list[str]:
        if self.guess is Ellipsis or self.guess is None:
            first = say("reveal.none", actual=self.actual)
        else:
            key = "reveal.right" if _same(self.guess, self.actual) else "reveal.wrong"
            first = say(key, guess=self.guess, actual=self.actual)
        return [first] + ([say("reveal.why", why=explanation(self.why, self.fields))] if self.why else [])

    def __str__(self) -> str:
        return "\n".join(self.lines())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        first, *rest = self.lines()
        colour = "#117733" if first.startswith("✓") else "#AA3377" if first.startswith("✗") else "#555"
        return (f"<div class='reveal' data-outcome='{self.outcome}' "
                f"style='border-left:6px solid {colour};padding:4px 10px'>"
                f"<b style='color:{colour}'>{html.escape(first)}</b>"
                + "".join(f"<div>{html.escape(line)}</div>" for line in rest) + "</div>")


def reveal(guess: object, actual: object, *, expected: object = Ellipsis, why: str = "",
           stage: object = None, **fields: object) -> Reveal:
    """The learner's ``guess`` beside ``actual``, and why (see the module doc); under the test suite
    (``COMPACT_CHECK_CLAIMS=1``) ``actual`` must equal ``expected``."""
    if expected is not Ellipsis and os.environ.get(CHECK_CLAIMS) and actual != expected:
        raise AssertionError(say("reveal.claim", expected=expected, actual=actual))
    if is_solution(stage) and known(f"{why}.solution") and (expected is Ellipsis or actual == expected):
        why = f"{why}.solution"      # the run used the worked solution: say so, not "your stage ..."
    return Reveal(guess, actual, why, fields, expected)
