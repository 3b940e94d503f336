"""``validate_history``: the Messages API's rules for a history, checked before any stage runs;
anything else raises ``HistoryError`` naming the first problem and what to do."""

from __future__ import annotations

from typing import Any

from .context import HistoryError
from .messages import block_type, estimate_size, has_tool_use, to_plain, tool_result_ids, tool_use_ids

RESULT_BLOCKS = ("text", "image", "document", "search_result")   # what a tool_result may hold


def validate_history(messages: Any, start: int = 0) -> None:
    """Shape and pairing, from ``start`` on (the messages before it are known to be valid)."""
    if not isinstance(messages, list):
        raise HistoryError(f"a history must be a list of messages, got {type(messages).__name__}")
    for index in range(start, len(messages)):
        problem = message_problem(messages[index], f"message {index}")
        if problem:
            raise HistoryError(problem)
    for problem in pairing_problems(messages, max(start - 1, 0)):
        raise HistoryError(f"{problem}; every tool_result must answer a tool_use of the message "
                           "right before it")


def checked_size(messages: Any) -> int:         # estimate_size of a history the API would take
    validate_history(messages)
    return estimate_size(messages)


def message_problem(message: Any, where: str) -> str | None:
    if not isinstance(message, dict):
        return f"{where} is a {type(message).__name__}, expected a dict with 'role' and 'content'"
    role, content = message.get("role"), message.get("content")
    if role not in ("user", "assistant"):
        return (f"{where} has role {role!r}; only 'user' and 'assistant' are allowed (put system "
                "text in the system prompt)")
    if not isinstance(content, (str, list)):
        return f"{where} has content of type {type(content).__name__}; expected a string or a list of blocks"
    return next((p for j, b in enumerate(content if isinstance(content, list) else ())
                 if (p := block_problem(b, role, f"{where}, block {j}"))), None)


def block_problem(block: Any, role: str, where: str) -> str | None:
    kind = block_type(block)
    if not isinstance(kind, str):
        return f"{where} has no 'type'"
    if not isinstance(block, dict) and not hasattr(block, "model_dump"):
        return f"{where} is a {type(block).__name__}; expected a dict (or an SDK content block)"
    belongs = {"tool_result": "user", "tool_use": "assistant"}.get(kind)
    if belongs and role != belongs:
        return f"{where}: {kind} blocks belong in {belongs} messages"
    if kind == "tool_result" and not isinstance(block.get("tool_use_id"), str):
        return f"{where}: tool_result needs a string tool_use_id"
    if kind == "tool_use" and not isinstance(to_plain(block).get("id"), str):
        return f"{where}: tool_use needs a string id"
    return result_content_problem(block) if kind == "tool_result" else None


def result_content_problem(block: dict) -> str | None:
    content = block.get("content", "")
    where = f"tool_result {block.get('tool_use_id')!r}"
    if not isinstance(content, (str, list)):
        return (f"{where} has content of type {type(content).__name__}; expected a string or a "
                "list of text/image blocks. Decode bytes to str (or wrap them as text) before "
                "adding the result.")
    for k, item in enumerate(content if isinstance(content, list) else ()):
        kind, source = (item.get("type"), item.get("source")) if isinstance(item, dict) else (None, None)
        if kind not in RESULT_BLOCKS:
            return (f"{where}, content block {k} is a {kind or type(item).__name__!r}; expected "
                    f"one of {', '.join(RESULT_BLOCKS)}")
        if kind == "text" and not isinstance(item.get("text"), str):
            return f"{where}, content block {k}: a text block needs a string 'text'"
        if kind == "image" and not (isinstance(source, dict) and (
                isinstance(source.get("data"), str) or isinstance(source.get("url"), str))):
            return (f"{where}, content block {k}: an image block needs a 'source' with base64 "
                    "'data' or a 'url'")
        if kind in ("document", "search_result") and not (isinstance(source, dict) or isinstance(
                item.get("content"), list)):
            return f"{where}, content block {k}: a {kind} block needs a 'source' or a 'content' list"
    return None


def pairing_problems(messages: list, start: int = 0) -> list[str]:
    """What the API would reject about tool_use/tool_result pairing, from ``start`` on."""
    problems = []
    for index in range(start, len(messages)):
        message, before = messages[index], messages[index - 1] if index else {}
        orphans = sorted(set(tool_result_ids(message))
                         - set(tool_use_ids(before) if has_tool_use(before) else ()))
        if orphans:
            problems.append(f"message {index} holds tool_result(s) {orphans} with no matching "
                            "tool_use in the message before")
        if has_tool_use(message) and index + 1 < len(messages):
            missing = sorted(set(tool_use_ids(message)) - set(tool_result_ids(messages[index + 1])))
            if missing:
                problems.append(f"message {index} has tool_use(s) {missing} not answered by the "
                                "next message")
    return problems
