"""Hand-built histories for the notebooks and tests: a tool round without spelling out blocks."""

from __future__ import annotations

from ..pipeline.messages import iter_tool_results, result_text


def tool_turn(*calls: tuple[str, str, str], name: str = "read_file") -> list[dict]:
    """A tool round: the assistant's tool_use blocks and the user's results, for ``calls``
    of ``(tool_use_id, path, result_text)``."""
    return [{"role": "assistant", "content": [
                {"type": "tool_use", "id": i, "name": name, "input": {"path": p}} for i, p, _ in calls]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": i, "content": t} for i, _, t in calls]}]


def results(messages: list) -> list[str]:
    """The text of every tool_result, oldest first."""
    return [result_text(block) for _, _, block in iter_tool_results(messages)]


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}
