"""What agent_loop returns: a record of every model call (``Turn``) and the run (``Trace``),
and what the context is made of (``composition``: characters per kind of content)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .pipeline import Compactor, Limits, StageEvent
from .pipeline.formats import PERSISTED_OPEN, PLACEHOLDER_PREFIX, parse_compacted, snipped_count
from .pipeline.messages import block_type, blocks_of, plain_text, result_size, result_text, to_plain
from .reply import Reply

KINDS = ("user text", "assistant text", "tool calls", "tool results", "persisted previews",
         "placeholders", "summaries", "markers")


def composition(messages: list) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    for message in messages:
        if not isinstance(message, dict) or not all(isinstance(b, dict) for b in blocks_of(message)):
            message = to_plain(message)     # SDK blocks; plain dicts are read as they are
        content = message.get("content")
        if isinstance(content, str) or (message.get("role") == "user" and not any(
                block_type(b) == "tool_result" for b in content or [])):
            text = plain_text(message)
            part = "markers" if snipped_count(message) is not None \
                else "summaries" if parse_compacted(text) else f"{message['role']} text"
            counts[part] += len(text)
            continue
        for block in content:
            kind = block_type(block)
            if kind == "text":
                counts[f"{message['role']} text"] += len(block.get("text", ""))
            elif kind == "tool_use":
                counts["tool calls"] += len(json.dumps(block.get("input", {}),
                                                       ensure_ascii=False)) + len(block["name"])
            elif kind == "tool_result":
                text = result_text(block)
                if text.startswith(PERSISTED_OPEN):
                    counts["persisted previews"] += len(text)
                elif text.startswith(PLACEHOLDER_PREFIX):
                    counts["placeholders"] += len(text)
                else:
                    counts["tool results"] += result_size(block)    # images: IMAGE_CHARS
    return counts


@dataclass
class Turn:
    turn: int
    messages_before: int
    size_before: int                  # estimate_size before the pipeline
    size_sent: int                    # estimate_size of what was sent
    input_tokens: int                 # the model's own count of what was sent
    output_tokens: int
    stages: list[str]                 # stages that fired this turn, in order
    events: list[StageEvent]
    tool_calls: list[tuple[str, dict]]
    composition: dict[str, int]
    text: str = ""                    # the model's text this turn
    refused: int = 0                  # prompt-too-long refusals this turn
    sent: list = field(default_factory=list, repr=False)   # the messages as sent
    stop_reason: str = "end_turn"     # the reply's: tool_use, end_turn, max_tokens, refusal, ...
    before: list = field(default_factory=list, repr=False)  # the history before the pipeline
    refusals: list[str] = field(default_factory=list)   # the API's message for each refusal survived


@dataclass(frozen=True)
class TurnStart:
    """Where a turn began: its number, the history then, the compactor's next event."""

    number: int
    history: list
    first_event: int
    refusals: list[str] = field(default_factory=list)   # the loop adds each refusal it survives


def record_turn(start: TurnStart, sent: list, reply: Reply, response: Any, compactor: Compactor) -> Turn:
    """The trace's record of one model call: what the pipeline did since the turn began, what
    was sent, the refusals before it was accepted."""
    events = compactor.events[start.first_event:]
    size_sent = compactor.measure(sent)
    fired = [e for e in events if e.fired]
    return Turn(start.number, len(start.history), events[0].size_before if events else size_sent,
                size_sent, response.usage.input_tokens, response.usage.output_tokens,
                [e.stage for e in fired], fired, [(b["name"], dict(b["input"])) for b in reply.calls],
                composition(sent), reply.text, refusals(start, compactor), sent, reply.stop,
                start.history, list(start.refusals))


def refusals(start: TurnStart, compactor: Compactor) -> int:
    """The prompt-too-long refusals since the turn began (each met by a reactive compaction)."""
    return sum(e.stage == "reactive_compact" for e in compactor.events[start.first_event:])


@dataclass
class Trace:
    turns: list[Turn] = field(default_factory=list)
    answer: str = ""
    model: str = ""
    stop_reason: str = ""             # why the final reply ended (end_turn, refusal, max_tokens)
    limits: Limits = field(default_factory=Limits)    # the compactor's: what its plot draws against

    @property
    def refusal(self) -> bool:
        """The model declined the request (``stop_reason: refusal``): the answer is not one."""
        return self.stop_reason == "refusal"

    @property
    def events(self) -> list[StageEvent]:
        return [e for t in self.turns for e in t.events]

    @property
    def rereads(self) -> int:
        """Tool calls that repeat an earlier call exactly (the cost of forgetting)."""
        seen, repeats = set(), 0
        for turn in self.turns:
            for name, tool_input in turn.tool_calls:
                key = (name, repr(sorted(tool_input.items())))
                repeats += key in seen
                seen.add(key)
        return repeats

    @property
    def input_tokens(self) -> int:
        return sum(t.input_tokens for t in self.turns)
