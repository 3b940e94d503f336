"""A plain-text view of a history: one row per content block, for notebooks and the REPL."""

from __future__ import annotations

from ..pipeline.messages import block_type, to_plain


def rows(messages: list, start: int = 0, preview: int = 60) -> list[tuple[int, str, str, int, str]]:
    """(message index, role, block type, chars, preview) for every block."""
    table = []
    for index, message in enumerate(to_plain(messages), start):
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            body = block.get("text", block.get("content", f"{block.get('name')}({block.get('input')})"))
            table.append((index, message.get("role", "?"), block_type(block) or "?",
                          len(str(body)), str(body)[:preview]))
    return table


def show(messages: list, start: int = 0) -> None:
    """Print the history as a table: what each message holds and how big it is."""
    print(f'{"#":>3}  {"role":<9}  {"block":<11} {"chars":>8}  preview')
    for index, role, kind, chars, preview in rows(messages, start):
        print(f"{index:>3}  {role:<9}  {kind:<11} {chars:>8,}  {preview!r}")
