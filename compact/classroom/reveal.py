"""Predict, then see: the learner writes a guess into a variable, the next cell runs the thing
and ``reveal`` compares, says why, and — when the notebooks run under test — checks the claim.

    my_guess = ...                       # the learner's cell, right after "Predict"
    ...run it...
    reveal(my_guess, placeholders, expected=2, why="the three newest stay; VERSION is short")
"""

from __future__ import annotations

import html
import os

from ..texts import register, say

CHECK_CLAIMS = "COMPACT_CHECK_CLAIMS"     # set by the test suite: a wrong claim fails the run

register({
    "reveal.right": {"en": "✓ You predicted {guess}: it is {actual}.",
                     "zh": "✓ 你预测的是 {guess}：结果正是 {actual}。"},
    "reveal.wrong": {"en": "✗ You predicted {guess}: it is {actual}.",
                     "zh": "✗ 你预测的是 {guess}：实际结果是 {actual}。"},
    "reveal.none": {"en": "You made no prediction (the variable is still ...): it is {actual}.",
                    "zh": "你还没有写下预测（变量仍是 ...）：结果是 {actual}。"},
    "reveal.why": {"en": "Why: {why}", "zh": "原因：{why}"},
    "reveal.claim": {"en": "the notebook says it is {expected!r}, the run gave {actual!r}",
                     "zh": "笔记本说结果应为 {expected!r}，运行得到 {actual!r}"},
})


def _same(guess: object, actual: object) -> bool:
    if isinstance(guess, str) and isinstance(actual, str):
        return guess.strip().lower() == actual.strip().lower()
    return guess == actual


class Reveal:
    def __init__(self, guess: object, actual: object, why: str) -> None:
        self.guess, self.actual, self.why = guess, actual, why

    def lines(self) -> list[str]:
        if self.guess is Ellipsis or self.guess is None:
            first = say("reveal.none", actual=self.actual)
        else:
            key = "reveal.right" if _same(self.guess, self.actual) else "reveal.wrong"
            first = say(key, guess=self.guess, actual=self.actual)
        return [first] + ([say("reveal.why", why=self.why)] if self.why else [])

    def __str__(self) -> str:
        return "\n".join(self.lines())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        first, *rest = self.lines()
        colour = "#117733" if first.startswith("✓") else "#AA3377" if first.startswith("✗") else "#555"
        return (f"<div class='reveal' style='border-left:6px solid {colour};padding:4px 10px'>"
                f"<b style='color:{colour}'>{html.escape(first)}</b>"
                + "".join(f"<div>{html.escape(line)}</div>" for line in rest) + "</div>")


def reveal(guess: object, actual: object, *, expected: object = Ellipsis, why: str = "") -> Reveal:
    """The learner's ``guess`` beside what happened (``actual``), and why. Under the test suite
    (``COMPACT_CHECK_CLAIMS=1``) ``actual`` must equal ``expected``, the notebook's own claim."""
    if expected is not Ellipsis and os.environ.get(CHECK_CLAIMS) and actual != expected:
        raise AssertionError(say("reveal.claim", expected=expected, actual=actual))
    return Reveal(guess, actual, why)
