"""Context compaction: a four-step pipeline keeps the live message list under a size limit.

Lesson s08 of the course. The agent loop and the file and shell tools from the
earlier lessons are still here in a reduced form. What is new is `compact`,
which runs before every model call and makes sure the message list fits in the
budget given by CONTEXT_LIMIT.

The four steps, in the order they are tried:

    1. persist_large_output  - big tool results go to .outputs/ on disk and are
                               replaced by a preview and a path.
    2. snip_messages         - whole turns in the middle of the conversation are
                               dropped; the first request and the tail remain.
    3. replace_old_results   - tool results older than the last few turns are
                               replaced by a one-line placeholder.
    4. summarise_history     - the model writes a summary of the conversation and
                               the list is rebuilt around that summary.

The first step is lossless: a persisted output can be read back with the
`read_output` tool. The middle steps lose detail but never the original request
or the recent work: a snipped turn is gone, and a replaced result can only be
produced again by running the same tool. The summary rewrites everything else
and is used only when nothing cheaper was enough.

Every step works on whole turns. A turn starts with a user message that is not
a tool result and runs until the next such message. Cutting inside a turn could
separate a tool_use block from its tool_result, which the API rejects.

Run it:

    python code.py                 # interactive session
    python code.py --limit 20000   # smaller budget, so compaction fires sooner

Commands inside the session: /compact forces the full pipeline, /stats prints
the size of the message list, /quit leaves.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:  # The lesson runs without the SDK installed; only the loop needs it.
    from anthropic import Anthropic
except ImportError:  # pragma: no cover - exercised only without the SDK
    Anthropic = None  # type: ignore[assignment,misc]


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------

WORKDIR = Path(os.environ.get("AGENT_WORKDIR", Path.cwd())).resolve()
MODEL = os.environ.get("AGENT_MODEL", "claude-sonnet-4-5")
MAX_OUTPUT_TOKENS = 4096

# The budget for the live message list, measured in estimated tokens. Real
# context windows are far larger; a small number makes the lesson visible.
CONTEXT_LIMIT = int(os.environ.get("AGENT_CONTEXT_LIMIT", "60000"))

# Step 1: tool results larger than this many characters are written to disk.
PERSIST_THRESHOLD = 6000
PREVIEW_HEAD = 1200
PREVIEW_TAIL = 400
OUTPUT_DIR = WORKDIR / ".outputs"

# Step 2: how many recent turns survive a snip.
KEEP_TAIL_TURNS = 6

# Step 3: tool results in the last N turns are never replaced.
KEEP_RECENT_RESULT_TURNS = 3
PLACEHOLDER_TEMPLATE = "[old {tool} result removed to save space; run it again if needed]"

# Step 4: the summary call.
SUMMARY_MAX_TOKENS = 2000
SUMMARY_KEEP_TURNS = 2
SUMMARY_INPUT_CHARS = 80_000

# Rough conversion between characters and tokens. English prose and code both
# land close to four characters per token, which is plenty for a budget check.
CHARS_PER_TOKEN = 4

# Tool output limits that apply before compaction ever runs.
BASH_TIMEOUT = 120
BASH_MAX_CHARS = 50_000
READ_MAX_LINES = 2000

SYSTEM = f"""You are a coding agent working in {WORKDIR}.
Use the tools to inspect and change files. Keep your answers short.
Older tool results may be replaced by placeholders or moved to .outputs/;
use read_output to read a persisted result again instead of re-running
expensive commands. If the conversation starts with a summary, trust it as
your record of earlier work and continue from where it leaves off."""


# ---------------------------------------------------------------------------
# Size accounting
# ---------------------------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """Estimate the token count of a string (ceil of chars / CHARS_PER_TOKEN)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def block_text(block: Any) -> str:
    """Return the text that a content block contributes to the context."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        block = to_plain(block)
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    if kind == "tool_use":
        return block.get("name", "") + json.dumps(block.get("input", {}), sort_keys=True)
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            return "".join(block_text(part) for part in content)
        return str(content)
    if kind == "thinking":
        return block.get("thinking", "")
    return json.dumps(block, sort_keys=True, default=str)


def message_tokens(message: dict) -> int:
    """Estimate the tokens used by one message, including a small overhead."""
    content = message.get("content", "")
    if isinstance(content, str):
        return estimate_tokens(content) + 4
    return sum(estimate_tokens(block_text(block)) + 4 for block in content) + 4


def size_of(messages: list[dict]) -> int:
    """Estimate the tokens used by the whole message list."""
    return sum(message_tokens(message) for message in messages)


def to_plain(block: Any) -> dict:
    """Turn an SDK content block into a plain dict so it can be stored and copied."""
    if isinstance(block, dict):
        return block
    if hasattr(block, "model_dump"):
        return block.model_dump(exclude_none=True)
    return {"type": "text", "text": str(block)}


# ---------------------------------------------------------------------------
# Turn structure
# ---------------------------------------------------------------------------


def is_tool_result_message(message: dict) -> bool:
    """True when a user message carries tool results rather than a new request."""
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if not isinstance(content, list) or not content:
        return False
    return all(to_plain(block).get("type") == "tool_result" for block in content)


def split_turns(messages: list[dict]) -> list[list[dict]]:
    """Group messages into turns.

    A turn begins with a user message that is not a tool result and contains
    every assistant message and tool-result message that follows, up to the
    next real user message. Compaction steps only ever keep or drop whole
    turns, which keeps tool_use and tool_result blocks paired.
    """
    turns: list[list[dict]] = []
    for message in messages:
        starts_turn = message.get("role") == "user" and not is_tool_result_message(message)
        if starts_turn or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns


def join_turns(turns: Iterable[list[dict]]) -> list[dict]:
    """Flatten a list of turns back into a message list."""
    return [message for turn in turns for message in turn]


def tool_use_ids(message: dict) -> list[str]:
    """Ids of all tool_use blocks in an assistant message."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    ids = []
    for block in content:
        plain = to_plain(block)
        if plain.get("type") == "tool_use":
            ids.append(plain["id"])
    return ids


def tool_result_ids(message: dict) -> list[str]:
    """Ids referenced by the tool_result blocks in a user message."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [
        to_plain(block)["tool_use_id"]
        for block in content
        if to_plain(block).get("type") == "tool_result"
    ]


def validate_messages(messages: list[dict]) -> list[str]:
    """Return a list of problems that would make the API reject the list.

    An empty list means the messages are fine. The checks are the ones a
    compaction step is most likely to break: alternating roles, a user message
    first, and every tool_use answered by a tool_result in the next message.
    """
    problems = []
    if not messages:
        return ["message list is empty"]
    if messages[0].get("role") != "user":
        problems.append("first message is not from the user")
    for index, (before, after) in enumerate(zip(messages, messages[1:], strict=False)):
        if before.get("role") == after.get("role"):
            problems.append(f"messages {index} and {index + 1} have the same role")
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        wanted = set(tool_use_ids(message))
        if not wanted:
            continue
        following = messages[index + 1] if index + 1 < len(messages) else None
        got = set(tool_result_ids(following)) if following else set()
        missing = sorted(wanted - got)
        if missing:
            problems.append(f"message {index}: no result for tool calls {missing}")
    return problems


def tool_names_by_id(messages: list[dict]) -> dict[str, str]:
    """Map every tool_use id in the list to the name of the tool it called."""
    names: dict[str, str] = {}
    for message in messages:
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for block in message["content"]:
            plain = to_plain(block)
            if plain.get("type") == "tool_use":
                names[plain["id"]] = plain.get("name", "tool")
    return names


# ---------------------------------------------------------------------------
# Step 1: persist large tool output
# ---------------------------------------------------------------------------


def output_path_for(tool_use_id: str, text: str) -> Path:
    """Choose a stable file name for a persisted result."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "_", tool_use_id)[-24:]
    return OUTPUT_DIR / f"{safe_id}-{digest}.txt"


def make_preview(text: str, path: Path) -> str:
    """Build the text that replaces a persisted result in the message list."""
    lines = text.count("\n") + 1
    head = text[:PREVIEW_HEAD]
    tail = text[-PREVIEW_TAIL:] if len(text) > PREVIEW_HEAD + PREVIEW_TAIL else ""
    relative = path.relative_to(WORKDIR) if path.is_relative_to(WORKDIR) else path
    parts = [
        f"[output of {len(text)} characters, {lines} lines, saved to {relative}]",
        "--- first part ---",
        head,
    ]
    if tail:
        parts += ["--- last part ---", tail]
    parts.append(f"[use read_output with path={str(relative)!r} to see the rest]")
    return "\n".join(parts)


def persist_result_block(block: dict) -> tuple[dict, bool]:
    """Persist one tool_result block if it is large. Returns (block, changed)."""
    content = block.get("content", "")
    if isinstance(content, list):
        text = "".join(block_text(part) for part in content)
    else:
        text = str(content)
    if len(text) <= PERSIST_THRESHOLD or text.startswith("[output of "):
        return block, False
    path = output_path_for(block.get("tool_use_id", "result"), text)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    new_block = dict(block)
    new_block["content"] = make_preview(text, path)
    return new_block, True


def persist_large_output(messages: list[dict]) -> tuple[list[dict], int]:
    """Step 1. Move every oversized tool result to disk.

    Returns the new message list and the number of results that were moved.
    The original list is not modified. This step is always safe to run: the
    full text stays available through read_output, and the preview keeps the
    beginning and end of the output, which is where errors and summaries
    usually are.
    """
    moved = 0
    result = []
    for message in messages:
        if not is_tool_result_message(message):
            result.append(message)
            continue
        blocks = []
        for block in message["content"]:
            new_block, changed = persist_result_block(to_plain(block))
            moved += changed
            blocks.append(new_block)
        result.append({**message, "content": blocks})
    return result, moved


# ---------------------------------------------------------------------------
# Step 2: snip whole turns from the middle
# ---------------------------------------------------------------------------


SNIP_NOTICE = (
    "[{count} earlier turns were removed to keep the conversation short. "
    "The original request is above; recent work follows.]"
)


def snip_messages(messages: list[dict], keep_tail: int = KEEP_TAIL_TURNS) -> tuple[list[dict], int]:
    """Step 2. Drop whole turns between the first turn and the last `keep_tail`.

    The first turn holds the user's original request, which is the one thing
    the agent must not forget. The tail holds the work in progress. Everything
    in between is history that the agent has, in principle, already acted on.

    A notice is merged into the first message of the first kept tail turn so
    that the model knows something is missing. Merging, rather than inserting
    a new message, keeps the roles alternating.
    """
    turns = split_turns(messages)
    if len(turns) <= keep_tail + 1:
        return messages, 0
    head, middle, tail = turns[:1], turns[1:-keep_tail], turns[-keep_tail:]
    notice = SNIP_NOTICE.format(count=len(middle))
    first_tail = [prepend_text(tail[0][0], notice)] + tail[0][1:]
    return join_turns(head + [first_tail] + tail[1:]), len(middle)


def prepend_text(message: dict, text: str) -> dict:
    """Return a copy of a user message with a text block added at the front."""
    content = message.get("content", "")
    if isinstance(content, str):
        return {**message, "content": f"{text}\n\n{content}"}
    return {**message, "content": [{"type": "text", "text": text}, *content]}


# ---------------------------------------------------------------------------
# Step 3: replace old tool results with placeholders
# ---------------------------------------------------------------------------


def replace_old_results(
    messages: list[dict], keep_recent: int = KEEP_RECENT_RESULT_TURNS
) -> tuple[list[dict], int]:
    """Step 3. Replace tool results outside the last `keep_recent` turns.

    The tool_result block itself stays, with its tool_use_id, so the list is
    still valid. Only its content shrinks to a single line that names the tool.
    Results that are already placeholders are left alone, which makes the step
    idempotent: running it twice changes nothing the second time.
    """
    names = tool_names_by_id(messages)
    turns = split_turns(messages)
    cutoff = max(0, len(turns) - keep_recent)
    replaced = 0
    new_turns = []
    for turn_index, turn in enumerate(turns):
        if turn_index >= cutoff:
            new_turns.append(turn)
            continue
        new_turn = []
        for message in turn:
            if not is_tool_result_message(message):
                new_turn.append(message)
                continue
            blocks = []
            for block in message["content"]:
                plain = to_plain(block)
                tool = names.get(plain.get("tool_use_id", ""), "tool")
                placeholder = PLACEHOLDER_TEMPLATE.format(tool=tool)
                if plain.get("content") == placeholder:
                    blocks.append(plain)
                    continue
                blocks.append({**plain, "content": placeholder})
                replaced += 1
            new_turn.append({**message, "content": blocks})
        new_turns.append(new_turn)
    return join_turns(new_turns), replaced


# ---------------------------------------------------------------------------
# Step 4: summarise the history
# ---------------------------------------------------------------------------


SUMMARY_PROMPT = """Summarise the conversation below so that you can continue the
work with only this summary and the most recent messages. Include:
- the user's original request, in their words where possible;
- decisions made and why;
- files read or changed, with the important facts about each;
- commands run and what their results showed;
- what is finished, what is in progress, and what remains.
Write plain prose and short lists. Do not invent details."""

SUMMARY_HEADER = "[Summary of the conversation so far, written to save space]"


def render_for_summary(messages: list[dict]) -> str:
    """Render a message list as plain text for the summary request."""
    lines = []
    for message in messages:
        role = message.get("role", "?")
        content = message.get("content", "")
        if isinstance(content, str):
            lines.append(f"{role}: {content}")
            continue
        for block in content:
            plain = to_plain(block)
            kind = plain.get("type")
            if kind == "text":
                lines.append(f"{role}: {plain.get('text', '')}")
            elif kind == "tool_use":
                args = json.dumps(plain.get("input", {}), sort_keys=True)
                lines.append(f"{role} called {plain.get('name')}({args})")
            elif kind == "tool_result":
                text = block_text(plain)
                if len(text) > 2000:
                    text = text[:1500] + f"\n... [{len(text) - 1500} more characters]"
                lines.append(f"result: {text}")
    transcript = "\n".join(lines)
    if len(transcript) > SUMMARY_INPUT_CHARS:
        half = SUMMARY_INPUT_CHARS // 2
        transcript = transcript[:half] + "\n...[middle omitted]...\n" + transcript[-half:]
    return transcript


def offline_summary(messages: list[dict]) -> str:
    """A mechanical summary used when no model is available.

    It keeps the first request, the list of tools that were called and the
    last assistant text. It is much worse than a model-written summary but it
    lets the pipeline run in tests and without network access.
    """
    first = messages[0].get("content", "") if messages else ""
    first_text = (
        first
        if isinstance(first, str)
        else " ".join(block_text(block) for block in first if to_plain(block).get("type") == "text")
    )
    calls = []
    for message in messages:
        for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
            plain = to_plain(block)
            if plain.get("type") == "tool_use":
                calls.append(plain.get("name", "tool"))
    last_text = ""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            last_text = " ".join(
                block_text(block)
                for block in message.get("content", [])
                if to_plain(block).get("type") == "text"
            )
            if last_text:
                break
    counts = {name: calls.count(name) for name in sorted(set(calls))}
    used = ", ".join(f"{name} x{count}" for name, count in counts.items()) or "none"
    return (
        f"Original request: {first_text[:800]}\n"
        f"Tools used so far: {used}\n"
        f"Last reply: {last_text[:800]}"
    )


def summarise_history(
    messages: list[dict],
    summarise: Callable[[str], str] | None = None,
    keep_turns: int = SUMMARY_KEEP_TURNS,
) -> tuple[list[dict], bool]:
    """Step 4. Replace everything except the last `keep_turns` turns by a summary.

    `summarise` receives the rendered transcript and returns summary text;
    by default the model is asked. The summary becomes the first user message
    and the kept turns follow it. Because the first kept turn starts with a
    user message too, the summary is merged into it to keep roles alternating.
    """
    turns = split_turns(messages)
    if len(turns) <= keep_turns:
        return messages, False
    old, recent = turns[:-keep_turns], turns[-keep_turns:]
    old_messages = join_turns(old)
    if summarise is None:
        summary = offline_summary(old_messages)
    else:
        try:
            summary = summarise(render_for_summary(old_messages))
        except Exception as error:  # noqa: BLE001 - any failure falls back
            print(f"  (summary call failed: {error}; using offline summary)")
            summary = offline_summary(old_messages)
    note = f"{SUMMARY_HEADER}\n{summary.strip()}"
    first_recent = [prepend_text(recent[0][0], note)] + recent[0][1:]
    return join_turns([first_recent] + recent[1:]), True


def model_summariser(client: Any) -> Callable[[str], str]:
    """Build a summarise() function that asks the model."""

    def summarise(transcript: str) -> str:
        reply = client.messages.create(
            model=MODEL,
            max_tokens=SUMMARY_MAX_TOKENS,
            system="You write faithful, compact summaries of coding sessions.",
            messages=[{"role": "user", "content": f"{SUMMARY_PROMPT}\n\n{transcript}"}],
        )
        texts = [block.text for block in reply.content if block.type == "text"]
        return "\n".join(texts).strip() or "(empty summary)"

    return summarise


# ---------------------------------------------------------------------------
# The pipeline
# ---------------------------------------------------------------------------


@dataclass
class CompactionReport:
    """What one run of the pipeline did, for logging and for the lesson."""

    before: int
    after: int = 0
    persisted: int = 0
    snipped_turns: int = 0
    replaced: int = 0
    summarised: bool = False
    steps: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if not self.steps:
            return f"no compaction needed ({self.before} tokens)"
        return f"{' -> '.join(self.steps)}: {self.before} -> {self.after} tokens"


def compact(
    messages: list[dict],
    limit: int = CONTEXT_LIMIT,
    summarise: Callable[[str], str] | None = None,
    force: bool = False,
) -> tuple[list[dict], CompactionReport]:
    """Run the four steps in order, stopping as soon as the list fits.

    Step 1 always runs because it is cheap and lossless. The others run only
    while the list is over `limit`, or all of them when `force` is true. The
    function never returns a list that fails validate_messages; if a step
    would break the list, its result is discarded and the next step is tried.
    """
    report = CompactionReport(before=size_of(messages))

    current, moved = persist_large_output(messages)
    if moved:
        report.persisted = moved
        report.steps.append(f"persist({moved})")

    def over() -> bool:
        return force or size_of(current) > limit

    if over():
        candidate, dropped = snip_messages(current)
        if dropped and not validate_messages(candidate):
            current = candidate
            report.snipped_turns = dropped
            report.steps.append(f"snip({dropped})")

    if over():
        candidate, replaced = replace_old_results(current)
        if replaced and not validate_messages(candidate):
            current = candidate
            report.replaced = replaced
            report.steps.append(f"replace({replaced})")

    if over():
        candidate, done = summarise_history(current, summarise)
        if done and not validate_messages(candidate):
            current = candidate
            report.summarised = True
            report.steps.append("summarise")

    report.after = size_of(current)
    return current, report


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------


class ToolError(Exception):
    """Raised by a tool handler; the message is returned to the model."""


def safe_path(relative: str) -> Path:
    """Resolve a path inside WORKDIR, refusing anything that escapes it."""
    path = (WORKDIR / relative).resolve()
    if path != WORKDIR and not path.is_relative_to(WORKDIR):
        raise ToolError(f"path {relative!r} is outside the workspace")
    return path


def truncate(text: str, limit: int) -> str:
    """Cut text to `limit` characters, saying how much was removed."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [truncated {len(text) - limit} characters]"


def run_bash(command: str) -> str:
    """Run a shell command in the workspace and return its combined output."""
    dangerous = ["rm -rf /", "sudo ", "shutdown", "reboot", ":(){"]
    if any(pattern in command for pattern in dangerous):
        raise ToolError("command refused: it matches a dangerous pattern")
    try:
        completed = subprocess.run(
            command,
            shell=True,
            cwd=WORKDIR,
            capture_output=True,
            text=True,
            timeout=BASH_TIMEOUT,
        )
    except subprocess.TimeoutExpired as error:
        raise ToolError(f"command timed out after {BASH_TIMEOUT} seconds") from error
    output = (completed.stdout + completed.stderr).strip() or "(no output)"
    if completed.returncode != 0:
        output = f"[exit code {completed.returncode}]\n{output}"
    return truncate(output, BASH_MAX_CHARS)


def read_file(path: str, offset: int = 0, limit: int = READ_MAX_LINES) -> str:
    """Return numbered lines of a text file, starting at line `offset`."""
    target = safe_path(path)
    if not target.is_file():
        raise ToolError(f"no such file: {path}")
    lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
    chosen = lines[offset : offset + limit]
    numbered = [f"{offset + i + 1:6d}  {line}" for i, line in enumerate(chosen)]
    remaining = len(lines) - offset - len(chosen)
    if remaining > 0:
        numbered.append(f"... [{remaining} more lines; use offset={offset + len(chosen)}]")
    return "\n".join(numbered) or "(empty file)"


def write_file(path: str, content: str) -> str:
    """Create or overwrite a file."""
    target = safe_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"wrote {len(content)} characters to {path}"


def edit_file(path: str, old_text: str, new_text: str) -> str:
    """Replace exactly one occurrence of old_text with new_text."""
    target = safe_path(path)
    if not target.is_file():
        raise ToolError(f"no such file: {path}")
    text = target.read_text(encoding="utf-8")
    count = text.count(old_text)
    if count == 0:
        raise ToolError("old_text was not found; read the file again and copy it exactly")
    if count > 1:
        raise ToolError(f"old_text occurs {count} times; include more context")
    target.write_text(text.replace(old_text, new_text, 1), encoding="utf-8")
    return f"edited {path}"


def read_output(path: str, offset: int = 0, limit: int = 20_000) -> str:
    """Read back a result that step 1 moved to .outputs/."""
    target = safe_path(path)
    if OUTPUT_DIR not in target.parents:
        raise ToolError("read_output only reads files under .outputs/")
    if not target.is_file():
        raise ToolError(f"no persisted output at {path}")
    text = target.read_text(encoding="utf-8")
    chunk = text[offset : offset + limit]
    rest = len(text) - offset - len(chunk)
    if rest > 0:
        chunk += f"\n... [{rest} more characters; use offset={offset + len(chunk)}]"
    return chunk


# The compact tool lets the model ask for compaction itself, for example
# before starting a large new subtask. The loop notices the flag and runs the
# full pipeline before the next call.
COMPACT_REQUESTED = {"value": False}


def compact_tool(reason: str = "") -> str:
    COMPACT_REQUESTED["value"] = True
    return f"compaction scheduled before the next call{': ' + reason if reason else ''}"


HANDLERS: dict[str, Callable[..., str]] = {
    "bash": run_bash,
    "read_file": read_file,
    "write_file": write_file,
    "edit_file": edit_file,
    "read_output": read_output,
    "compact": compact_tool,
}


def schema(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required}


STRING = {"type": "string"}
INTEGER = {"type": "integer"}

TOOLS = [
    {
        "name": "bash",
        "description": "Run a shell command in the workspace. Output over 50k chars is cut.",
        "input_schema": schema({"command": STRING}, ["command"]),
    },
    {
        "name": "read_file",
        "description": "Read a text file with line numbers. Use offset/limit for big files.",
        "input_schema": schema({"path": STRING, "offset": INTEGER, "limit": INTEGER}, ["path"]),
    },
    {
        "name": "write_file",
        "description": "Create or overwrite a file with the given content.",
        "input_schema": schema({"path": STRING, "content": STRING}, ["path", "content"]),
    },
    {
        "name": "edit_file",
        "description": "Replace one exact occurrence of old_text with new_text in a file.",
        "input_schema": schema(
            {"path": STRING, "old_text": STRING, "new_text": STRING},
            ["path", "old_text", "new_text"],
        ),
    },
    {
        "name": "read_output",
        "description": "Read a tool result that was saved to .outputs/ to save context.",
        "input_schema": schema({"path": STRING, "offset": INTEGER, "limit": INTEGER}, ["path"]),
    },
    {
        "name": "compact",
        "description": "Ask for the conversation to be compacted before the next step.",
        "input_schema": schema({"reason": STRING}, []),
    },
]


def run_tool(block: Any) -> dict:
    """Run one tool_use block and return the matching tool_result block."""
    plain = to_plain(block)
    name, args, tool_id = plain.get("name", ""), plain.get("input", {}), plain.get("id", "")
    handler = HANDLERS.get(name)
    is_error = False
    if handler is None:
        output, is_error = f"error: unknown tool {name!r}", True
    else:
        try:
            output = handler(**args)
        except ToolError as error:
            output, is_error = f"error: {error}", True
        except TypeError as error:
            output, is_error = f"error: bad arguments for {name}: {error}", True
        except OSError as error:
            output, is_error = f"error: {error.strerror or error}", True
    result = {"type": "tool_result", "tool_use_id": tool_id, "content": output}
    if is_error:
        result["is_error"] = True
    return result


# ---------------------------------------------------------------------------
# The agent loop
# ---------------------------------------------------------------------------


@dataclass
class Session:
    """State that lives for one interactive session."""

    client: Any
    limit: int = CONTEXT_LIMIT
    messages: list[dict] = field(default_factory=list)
    reports: list[CompactionReport] = field(default_factory=list)
    calls: int = 0
    verbose: bool = True

    def log(self, text: str) -> None:
        if self.verbose:
            print(f"  {text}")

    def summariser(self) -> Callable[[str], str] | None:
        return model_summariser(self.client) if self.client is not None else None

    def compact_now(self, force: bool = False) -> CompactionReport:
        self.messages, report = compact(
            self.messages, self.limit, summarise=self.summariser(), force=force
        )
        self.reports.append(report)
        if report.steps:
            self.log(f"[compact] {report.describe()}")
        return report


def assistant_text(content: Iterable[Any]) -> str:
    return "\n".join(
        to_plain(block).get("text", "")
        for block in content
        if to_plain(block).get("type") == "text"
    ).strip()


def agent_loop(session: Session, max_steps: int = 50) -> str:
    """Run model calls and tool calls until the model stops asking for tools.

    Compared with s01 there is exactly one new line that matters: the call to
    session.compact_now() before every request. Everything the pipeline does
    happens there, invisible to the rest of the loop.
    """
    for _ in range(max_steps):
        session.compact_now(force=COMPACT_REQUESTED["value"])
        COMPACT_REQUESTED["value"] = False
        problems = validate_messages(session.messages)
        if problems:
            raise RuntimeError("message list is invalid: " + "; ".join(problems))
        reply = session.client.messages.create(
            model=MODEL,
            system=SYSTEM,
            messages=session.messages,
            tools=TOOLS,
            max_tokens=MAX_OUTPUT_TOKENS,
        )
        session.calls += 1
        content = [to_plain(block) for block in reply.content]
        session.messages.append({"role": "assistant", "content": content})
        text = assistant_text(content)
        if reply.stop_reason != "tool_use":
            return text
        if text:
            session.log(text)
        results = []
        for block in content:
            if block.get("type") != "tool_use":
                continue
            session.log(f"> {block.get('name')}")
            results.append(run_tool(block))
        session.messages.append({"role": "user", "content": results})
    return "(stopped: too many steps without a final answer)"


# ---------------------------------------------------------------------------
# Console
# ---------------------------------------------------------------------------


def print_stats(session: Session) -> None:
    turns = split_turns(session.messages)
    tokens = size_of(session.messages)
    share = 100 * tokens / session.limit if session.limit else 0
    print(f"  messages: {len(session.messages)}  turns: {len(turns)}")
    print(f"  estimated tokens: {tokens} / {session.limit} ({share:.0f}%)")
    compactions = sum(1 for report in session.reports if report.steps)
    print(f"  model calls: {session.calls}  compactions: {compactions}")
    persisted = sorted(OUTPUT_DIR.glob("*.txt")) if OUTPUT_DIR.is_dir() else []
    print(f"  persisted outputs: {len(persisted)}")


def handle_command(session: Session, line: str) -> bool:
    """Handle a /command. Returns False when the session should end."""
    command = line.strip().split()[0]
    if command in {"/quit", "/exit"}:
        return False
    if command == "/compact":
        report = session.compact_now(force=True)
        print(f"  {report.describe()}")
    elif command == "/stats":
        print_stats(session)
    else:
        print("  commands: /compact /stats /quit")
    return True


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="s08: an agent that compacts its context")
    parser.add_argument("--limit", type=int, default=CONTEXT_LIMIT, help="token budget")
    parser.add_argument("--quiet", action="store_true", help="hide tool calls")
    parser.add_argument("prompt", nargs="*", help="run a single prompt and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if Anthropic is None:
        print("The anthropic package is not installed; pip install anthropic")
        return 1
    session = Session(client=Anthropic(), limit=args.limit, verbose=not args.quiet)
    if args.prompt:
        session.messages.append({"role": "user", "content": " ".join(args.prompt)})
        print(agent_loop(session))
        return 0
    print(f"s08 agent in {WORKDIR} (budget {args.limit} tokens). /help for commands.")
    while True:
        try:
            line = input("s08 >> ")
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if not line.strip():
            continue
        if line.startswith("/"):
            if not handle_command(session, line):
                return 0
            continue
        session.messages.append({"role": "user", "content": line})
        print(agent_loop(session))


if __name__ == "__main__":
    sys.exit(main())
