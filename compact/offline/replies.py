"""One reply of the offline model, from what it is shown: a summary, or the task's next step.

``Replier(payload, ...).reply(prepared)`` writes the reply to a valid request whose context
management has been applied (``context_management.prepare``): the compaction block first
when the request compacts, then (unless it pauses there) the model's turn on what it sees,
with ``tool_choice`` honoured, cut at a stop sequence or at ``max_tokens``; usage, with
``usage.iterations`` when a compaction ran, and ``context_management.applied_edits``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .context_management import Prepared
from .conversation import summary_conversation
from .identity import MODEL_NAME
from .knowledge import offline_label
from .phrases import PHRASES, phrase
from .server_compaction import iteration, summary_block, visible_messages
from .skills import decide
from .summarizer import offline_summary
from .tokens import estimate_tokens
from .tool_choice import apply_tool_choice
from .tooling import WHAT, Toolbox
from .truncation import cut_at_max_tokens, cut_at_stop_sequence
from .view import read_view


@dataclass
class Replier:
    payload: dict
    usage: list                         # the model's ledger: (kind, input tokens) per call
    take_notes: bool
    count: Callable[[dict], int]        # the offline tokenizer, on a request
    digest: str                         # the request's, for the ids of the reply and its calls

    def reply(self, prepared: Prepared) -> dict:
        shown, iterations, content = prepared.messages, [], []
        if prepared.compaction:
            block = summary_block(shown, prepared.edit.get("instructions"))
            self.usage.append(("compaction", prepared.tokens))
            iterations.append(iteration("compaction", prepared.tokens, estimate_tokens(block["content"])))
            content.append(block)
            if prepared.compaction == "summarize" or prepared.edit.get("pause_after_compaction"):
                return self._message(content, "compaction", None, (0, 0), iterations, prepared)
            shown = visible_messages([{"role": "assistant", "content": [block]}])
        tokens = self.count({**self.payload, "messages": shown}) if iterations else prepared.tokens
        turn, stop = self._turn(shown, tokens)
        turn, sequence = cut_at_stop_sequence(turn, self.payload.get("stop_sequences"))
        stop = "stop_sequence" if sequence else stop
        turn, cut = cut_at_max_tokens(turn, self.payload["max_tokens"])
        output = self.payload["max_tokens"] if cut else estimate_tokens(turn)
        if iterations:
            iterations.append(iteration("message", tokens, output))
        return self._message(content + turn, "max_tokens" if cut else stop, sequence,
                             (tokens, output), iterations, prepared)

    def _message(self, content: list, stop: str, sequence: str | None, usage: tuple[int, int],
                 iterations: list, prepared: Prepared) -> dict:
        counts = {"input_tokens": usage[0], "output_tokens": usage[1],
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                  "service_tier": "standard"}
        reply = {"id": f"msg_off_{self.digest}", "type": "message", "role": "assistant",
                 "model": MODEL_NAME, "content": content, "stop_reason": stop,
                 "stop_sequence": sequence,
                 "usage": {**counts, **({"iterations": iterations} if iterations else {})}}
        if self.payload.get("context_management") is not None:
            reply["context_management"] = prepared.report
        return reply

    def _turn(self, messages: list, tokens: int) -> tuple[list, str]:
        shown = {**self.payload, "messages": messages}
        conversation = summary_conversation(shown)     # a summary request, by its shape
        self.usage.append(("summary" if conversation is not None else "agent", tokens))
        if conversation is not None:
            content = [{"type": "text", "text": offline_summary(conversation)}]
        else:
            content = self._agent_turn(messages)
        content = apply_tool_choice(content, self.payload.get("tool_choice"),
                                    self.payload.get("tools"), f"toolu_off_{self.digest}99")
        return content, "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"

    def _agent_turn(self, messages: list) -> list:
        """The next step of the task, its tool calls in the client's own tool names."""
        toolbox = Toolbox.from_request(self.payload.get("tools"))
        view = read_view(messages, frozenset(toolbox.tools), toolbox.roles_by_name)
        step = decide(view, take_notes=self.take_notes)
        planned = [(role, i) for role, i in step.calls if toolbox.has(role)]
        calls = [toolbox.call(role, i) for role, i in planned]
        content = [{"type": "text", "text": step.text}] if step.text else []
        content += [{"type": "tool_use", "id": f"toolu_off_{self.digest}{k:02d}", "name": name,
                     "input": tool_input} for k, (name, tool_input) in enumerate(calls)]
        if not calls and step.calls:
            lang = view.lang
            needed = ", ".join(phrase(f"can_{r}", lang) if f"can_{r}" in PHRASES else WHAT[r]
                               for r in toolbox.missing([r for r, _ in step.calls]))
            offered = ", ".join(toolbox.offered) or phrase("no_tools", lang)
            content = [{"type": "text", "text": offline_label(lang) + phrase(
                "needs_tool", lang, needed=needed, offered=offered)}]
        return content
