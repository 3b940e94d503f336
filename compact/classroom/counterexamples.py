"""The lesson's two "why" rules, broken on purpose, so a notebook can show what goes wrong.

* Why the order is fixed: ``run_stages`` runs the stages in any order (optionally with the
  lesson's own ``micro_compact`` snippet), so swapping two shows what is lost.
* Why the compact tool waits for its batch: two wrong harnesses. ``compact_mid_batch``
  summarises when it meets the ``compact`` call and then appends the batch's results (their
  tool_use is gone: the API refuses the orphans); ``compact_dropping_batch`` summarises the
  history before the reply and drops the open turn (no orphans, but the record of the write is
  lost, so the model writes again). ``run_wrong_loop`` drives either with a real model.

Nothing in the package calls this module; ``compact.loop.run_tool_batch`` is the right way.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic

from ..client import default_model, is_offline
from ..loop import SYSTEM
from ..model_call import api_message, call_model
from ..pipeline import Compactor
from ..pipeline.formats import COMPACT_ACK
from ..pipeline.messages import estimate_size
from ..reply import assistant_message
from ..tools import TOOLS, Workspace

LESSON_ORDER = ("tool_result_budget", "snip_compact", "micro_compact", "compact_history")


def run_stages(messages: list, order: tuple[str, ...], compactor: Compactor, active_request: str,
               micro: Callable[[list], list] | None = None) -> list:
    """The stages in ``order``, each on the previous one's output; ``compact_history`` only if
    the context is over the limit when its turn comes. ``micro`` replaces the package's
    ``micro_compact`` (e.g. the lesson's snippet, run on a copy since it edits in place)."""
    unknown = set(order) - set(LESSON_ORDER)
    if unknown:
        raise ValueError(f"unknown stage(s) {sorted(unknown)}; choose from {LESSON_ORDER}")
    out = list(messages)
    for stage in order:
        if stage == "compact_history":
            if estimate_size(out) > compactor.limits.context_limit:
                out = compactor.compact_history(out, active_request)
        elif stage == "micro_compact" and micro is not None:
            out = micro(copy.deepcopy(out))
        else:
            out = getattr(compactor, stage)(out)
    return out


Batch = Callable[[list, Workspace, list, Compactor, str], None]


def compact_mid_batch(content: list, workspace: Workspace, messages: list, compactor: Compactor,
                      active_request: str) -> None:
    """WRONG: ``compact`` handled like any tool, in batch order. The history (its last message
    the still-open reply) is summarised the moment the call is met; then the batch's results
    are appended, answering tool_use blocks that the summary replaced."""
    results = []
    for block in content:
        if block.type != "tool_use":
            continue
        if block.name == "compact":
            messages[:] = compactor.compact_history(messages, active_request)
            output = COMPACT_ACK
        else:
            output = workspace.run(block.name, dict(block.input or {}))
        results.append({"type": "tool_result", "tool_use_id": block.id, "content": output})
    messages.append({"role": "user", "content": results})


def compact_dropping_batch(content: list, workspace: Workspace, messages: list,
                           compactor: Compactor, active_request: str) -> None:
    """WRONG: summarise what came before the reply as soon as it asks for ``compact``, run the
    batch, and drop the open turn (reply and results) so no result is orphaned. The write
    happened, but nothing in the context says so."""
    asked = any(b.type == "tool_use" and b.name == "compact" for b in content)
    if asked:
        messages[:] = compactor.compact_history(messages[:-1], active_request)
    results = [{"type": "tool_result", "tool_use_id": b.id,
                "content": COMPACT_ACK if b.name == "compact"
                else workspace.run(b.name, dict(b.input or {}))}
               for b in content if b.type == "tool_use"]
    if not asked:
        messages.append({"role": "user", "content": results})


@dataclass
class WrongRun:
    calls: list[list[str]] = field(default_factory=list)   # tool names called, per turn
    refusal: str | None = None                              # the API's message, if it refused
    messages: list = field(default_factory=list)

    def count(self, tool: str) -> int:
        return sum(turn.count(tool) for turn in self.calls)


def run_wrong_loop(messages: list, active_request: str, batch: Batch, *, client: Any,
                   workspace: Workspace, compactor: Compactor, max_turns: int = 3) -> WrongRun:
    """The lesson's loop on ``messages`` (changed in place, as ``agent_loop`` does) with
    ``batch`` handling each reply's tool calls; it stops at the first refusal (recorded, not
    raised) or after ``max_turns``. The automatic pipeline is left out (the ``compact`` tool is
    the only compaction here, and ``prepare`` would itself reject an orphan before sending: see
    ``validate_history``). ``max_tokens`` is one any model accepts."""
    run = WrongRun(messages=messages)
    workspace = workspace.for_run(offline=is_offline(client), request=active_request)  # as agent_loop
    for _ in range(max_turns):
        try:
            response = call_model(client, model=default_model(client), system=SYSTEM,
                                  tools=TOOLS, max_tokens=4_000, messages=messages)
        except anthropic.BadRequestError as error:
            run.refusal = api_message(error)
            break
        messages.append(assistant_message(response.content))
        names = [b.name for b in response.content if b.type == "tool_use"]
        run.calls.append(names)
        if not names:
            break
        batch(response.content, workspace, messages, compactor, active_request)
    return run
