"""One reply's tool calls, run as a batch and answered by ONE user message.

The lesson's compact tool needs the batch closed first: every ``tool_use`` gets its
``tool_result`` (compact's only acknowledges), and only then is the closed turn summarised —
no orphan results, no repeated side effects. A call cut off by ``max_tokens`` is answered
with an error, not run; after a refusal none is run; Ctrl-C during a call answers it and the
calls after it as interrupted, then reaches the caller with the history valid.
"""

from __future__ import annotations

from .pipeline.formats import COMPACT_ACK
from .pipeline.messages import has_tool_use
from .reply import Reply
from .tools import Workspace

INTERRUPTED = ("Error: interrupted by the user (Ctrl-C): the call was stopped (a command and "
               "every process it started were killed). Ask the user before running it again.")
NOT_RUN_INTERRUPTED = "Error: not run: the user interrupted this batch (Ctrl-C) before this call."
NOT_RUN_REFUSED = "Error: not run: the model's reply ended in a refusal, so its tool calls were not run."


def result_block(call: dict, output: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call["id"], "content": output}


def cut_off_result(name: str, max_tokens: int) -> str:
    return (f"Error: this {name} call was cut off: the reply reached max_tokens={max_tokens} "
            "while writing it, so its input is incomplete and it was not run. Call it again "
            "with the whole input (split a long input into smaller steps).")


def run_tool_batch(reply: Reply, workspace: Workspace, messages: list, max_tokens: int) -> bool:
    """Run every call of ``reply`` and append the one message answering all of them; return
    whether the model called ``compact`` (the caller compacts once the batch is closed)."""
    results: list[dict] = []
    compact_requested = False
    try:
        for call in reply.calls:
            if call["id"] == reply.cut_id:
                output = cut_off_result(call["name"], max_tokens)
            elif reply.stop == "refusal":
                output = NOT_RUN_REFUSED
            elif call["name"] == "compact":
                output, compact_requested = COMPACT_ACK, True
            else:
                output = workspace.run(call["name"], dict(call["input"]))
            results.append(result_block(call, output))
    except BaseException:
        for k, call in enumerate(reply.calls[len(results):]):
            results.append(result_block(call, INTERRUPTED if k == 0 else NOT_RUN_INTERRUPTED))
        raise
    finally:
        messages.append({"role": "user", "content": results})
    return compact_requested


def answer_open_calls(messages: list, output: str = INTERRUPTED) -> None:
    """If the history ends with tool calls nobody answered, answer them with ``output``."""
    if messages and has_tool_use(messages[-1]):
        messages.append({"role": "user", "content": [
            result_block(b, output) for b in messages[-1]["content"] if b["type"] == "tool_use"]})
