"""A learner's own stage, run where the package's would run: in a Compactor, in an experiment.

The learner writes a stage the way the lesson does — ``my_micro_compact(messages, limits)``
returns the new list — and ``as_stage`` gives the Compactor what it expects of a stage function,
``(messages, Change)``, the Change read off the difference: whether anything changed, which
tool results became a placeholder or a preview, which files appeared on disk. The classroom's
``Compactor`` is the package's, taking such functions by name. ``differences(mine, theirs)``
then says where two runs of an experiment part ways.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import pipeline
from ..pipeline.events import Change
from ..pipeline.formats import parse_compacted
from ..pipeline.messages import iter_tool_results, plain_text
from ..pipeline.storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR
from ..texts import register, say
from .exercises import SOLUTIONS

register({
    "own.detail": {"en": "your {stage} ran", "zh": "你写的 {stage} 运行了"},
    "own.detail_solution": {"en": "the worked solution's {stage} ran (delete its import line to run yours)",
                            "zh": "运行的是参考答案的 {stage}（删掉那行 import，运行的才是你写的）"},
    "own.not_list": {"en": "your {stage} returned {kind}, not a list of messages: return the new list",
                     "zh": "你写的 {stage} 返回的是 {kind}，不是消息列表：请返回新的列表"},
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


def _on_disk(arguments: tuple) -> set[Path]:
    """The files under the workdir's transcript and tool-result folders (a Path argument),
    the folders' own ``.gitignore`` aside."""
    workdir = next((a for a in arguments if isinstance(a, Path)), None)
    if workdir is None:
        return set()
    return {p.relative_to(workdir) for folder in (TRANSCRIPT_DIR, TOOL_RESULTS_DIR)
            for p in (workdir / folder).glob("*") if p.is_file() and not p.name.startswith(".")}


def as_stage(stage: str, function: Callable[..., list]) -> Callable[..., tuple[list, Change]]:
    """``function`` (the lesson's shape: it returns the new list) as a Compactor stage. It is
    given a copy of the history: a stage that edits in place, as the lesson's snippets do, can
    neither change the run's record of it nor hide what it changed."""
    solution = getattr(function, "__module__", None) == SOLUTIONS
    detail = "own.detail_solution" if solution else "own.detail"

    def run(messages: list, *arguments: Any) -> tuple[list, Change]:
        before = _on_disk(arguments)
        result = function(copy.deepcopy(messages), *arguments)
        if not isinstance(result, list):
            raise TypeError(say("own.not_list", stage=stage, kind=type(result).__name__))
        written = tuple(sorted(p.as_posix() for p in _on_disk(arguments) - before))
        old = {b.get("tool_use_id"): b.get("content") for _, _, b in iter_tool_results(messages)}
        changed = sum(1 for _, _, b in iter_tool_results(result)
                      if b.get("tool_use_id") in old and old[b.get("tool_use_id")] != b.get("content"))
        parsed = parse_compacted(plain_text(result[0])) if result else None
        extra = {"summary": parsed[1]} if parsed else {}
        extra.update(transcript=next((w for w in written if w.startswith(TRANSCRIPT_DIR)), None),
                     worked_solution=solution)
        return result, Change(say(detail, stage=stage), written, changed, extra,
                              fired=result != messages)
    return run


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


class Compactor(pipeline.Compactor):
    """The package's Compactor; ``functions`` are stages as the lesson writes them (each returns
    the new list), e.g. ``Compactor(functions={"micro_compact": my_micro_compact})``."""

    def __init__(self, *args: Any, functions: dict[str, Callable] | None = None, **kwargs: Any) -> None:
        own = {name: as_stage(name, fn) for name, fn in (functions or {}).items()}
        super().__init__(*args, functions=own, **kwargs)
