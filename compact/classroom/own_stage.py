"""A learner's own stage, run where the package's would run: where two runs part ways.

A learner's stage has the package's shape, ``my_micro_compact(messages, ctx) -> list``, so the
package's Compactor runs it as it is (``Compactor(functions={"micro_compact": my_micro_compact})``)
and records its event the same way. ``differences(mine, theirs)`` says where the experiment run
with it and the one with the package's stage part ways.
"""

from __future__ import annotations

from typing import Any

from ..texts import register, say

register({
    "own.same": {"en": "the same run: every turn sent the same messages, and the answer is the same",
                 "zh": "两次运行完全相同：每一轮发送的消息一样，回答也一样"},
    "own.turns": {"en": "turns: {mine} with yours, {theirs} with the package's",
                  "zh": "轮数：用你的是 {mine} 轮，用包里的是 {theirs} 轮"},
    "own.turn": {"en": "turn {turn}: yours sent {mine:,} chars, the package's {theirs:,}",
                 "zh": "第 {turn} 轮：你的发送了 {mine:,} 字符，包里的是 {theirs:,}"},
    "own.fired": {"en": "stages that fired: yours {mine}, the package's {theirs}",
                  "zh": "触发的步骤：你的 {mine}，包里的 {theirs}"},
    "own.answer": {"en": "the answers differ", "zh": "两次的回答不同"},
    "own.error": {"en": "yours ended with: {error}", "zh": "你的运行结束于：{error}"},
})


def differences(mine: Any, theirs: Any) -> list[str]:
    """Where two runs of one experiment differ (empty: the same run), in words."""
    a, b = mine.trace.turns, theirs.trace.turns
    found = [say("own.turns", mine=len(a), theirs=len(b))] if len(a) != len(b) else []
    found += [say("own.turn", turn=x.turn, mine=x.size_sent, theirs=y.size_sent)
              for x, y in zip(a, b, strict=False) if x.size_sent != y.size_sent][:3]
    if sorted(set(mine.fired)) != sorted(set(theirs.fired)):
        found.append(say("own.fired", mine=sorted(set(mine.fired)), theirs=sorted(set(theirs.fired))))
    if mine.answer != theirs.answer:
        found.append(say("own.answer"))
    if mine.error and mine.error != theirs.error:
        found.append(say("own.error", error=mine.error))
    return found
