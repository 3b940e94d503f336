"""Predict, then see: ``reveal(my_guess, placeholders, why="why.03.placeholders")`` compares the guess
with what happened and says why (a ``why.`` key of the catalogs, its fields the other keyword arguments;
``<why>.otherwise`` if ``actual`` is not the claim, kept by key in ``locale/claims.json``, out of sight).
``stage=my_<stage>, found=...`` (where the learner's run and the package's part, empty if nowhere) adds
a check line: the worked solution ran, or the runs match, or ``why.NN.differs``, the pitfall."""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

from ..texts import known, say
from .show import number
from .solutions import MODULE as SOLUTIONS

CHECK_CLAIMS = "COMPACT_CHECK_CLAIMS"     # set by the test suite: a wrong claim fails the run
CLAIMS = json.loads((Path(__file__).parents[1] / "locale" / "claims.json").read_text(encoding="utf-8"))


def explanation(why: str, fields: dict[str, object]) -> str:
    """``why`` in the chosen language with ``fields`` (a field that is a key as its text), or as written."""
    if not known(why):
        return why
    return say(why, **{name: say(value, **fields) if isinstance(value, str) and known(value) else value
                       for name, value in fields.items()})


def is_solution(stage: object) -> bool:
    """Whether ``stage`` is the package's worked solution, not a function the learner wrote."""
    return getattr(stage, "__module__", None) == SOLUTIONS


def chosen(why: str, actual: object, expected: object) -> tuple[str, str]:
    """(the outcome: ``holds``, ``otherwise`` or ``unexpected``; the explanation's key)."""
    if not why or expected is Ellipsis or actual == expected:
        return "holds", why
    otherwise = f"{why}.otherwise"
    return ("otherwise", otherwise) if known(otherwise) else ("unexpected", "reveal.unexpected")


class Reveal:
    def __init__(self, guess: object, actual: object, why: str,
                 fields: dict[str, object] | None = None, expected: object = Ellipsis) -> None:
        self.guess, self.actual, self.check = guess, actual, None   # check: (outcome, hint key)
        self.fields = {"expected": expected, **(fields or {})}
        self.outcome, self.why = chosen(why, actual, expected)

    def lines(self) -> list[str]:
        guess, actual = self.guess, self.actual
        words = isinstance(guess, str) and isinstance(actual, str)      # a word: any case, any spaces
        right = guess.strip().lower() == actual.strip().lower() if words else guess == actual
        key = "reveal.none" if guess in (Ellipsis, None) else "reveal.right" if right else "reveal.wrong"
        shown = [say(key, guess=number(guess), actual=number(actual))]
        if self.why:
            shown.append(say("reveal.why", why=explanation(self.why, self.fields)))
        if self.check:
            shown.append(say(f"reveal.check.{self.check[0]}", hint=explanation(self.check[1], self.fields)))
        return shown

    def __str__(self) -> str:
        return "\n".join(self.lines())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        first, *rest = self.lines()
        colour = "#117733" if first.startswith("✓") else "#AA3377" if first.startswith("✗") else "#555"
        check = f" data-check='{self.check[0]}'" if self.check else ""
        return (f"<div class='reveal' data-outcome='{self.outcome}'{check} style='border-left:6px solid "
                f"{colour};padding:4px 10px'><b style='color:{colour}'>{html.escape(first)}</b>"
                + "".join(f"<div>{html.escape(line)}</div>" for line in rest) + "</div>")


def reveal(guess: object, actual: object, *, expected: object = Ellipsis, why: str = "",
           stage: object = None, **fields: object) -> Reveal:
    """The learner's ``guess`` beside ``actual``, and why; under the test suite, the claim checked."""
    expected = CLAIMS.get(why, Ellipsis) if expected is Ellipsis else expected
    if expected is not Ellipsis and os.environ.get(CHECK_CLAIMS) and actual != expected:
        raise AssertionError(say("reveal.claim", expected=expected, actual=actual))
    shown = Reveal(guess, actual, why, fields, expected)
    if stage is not None:     # the check line; its hint, why.NN.differs, is the notebook's pitfall
        outcome = "solution" if is_solution(stage) else "differs" if fields.get("found") else "same"
        shown.check = outcome, f"{why[:6]}.differs"
    return shown
