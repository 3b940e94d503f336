"""The agent's tools on one workspace folder, plus the model-invoked compact tool. A tool
never raises into the loop: a refused or failed call becomes an ``Error: ...`` result the
model can read (SECURITY.md says exactly what holds)."""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .asking import ask_on_stdin, judge
from .fileio import ToolError, opened, read_text, replace_bytes, stored_spelling, write_whole
from .globbing import glob_files
from .shell import bubblewrap, describe_sandbox, run_command, sandbox_argv

COMPACT_TOOL = {"name": "compact",
                "description": "Summarize earlier conversation to free context space.",
                "input_schema": {"type": "object", "properties": {}}}


def tool_schema(name: str, description: str, required: list[str], **types: str) -> dict:
    properties = {key: {"type": kind} for key, kind in types.items()}
    return {"name": name, "description": description,
            "input_schema": {"type": "object", "properties": properties, "required": required}}


TOOLS = [
    tool_schema("bash", "Run a shell command in the workspace.", ["command"], command="string"),
    tool_schema("read_file", "Read a text file in the workspace.", ["path"],
                path="string", limit="integer"),
    tool_schema("write_file", "Write a text file in the workspace.", ["path", "content"],
                path="string", content="string"),
    tool_schema("edit_file", "Replace exact text once in a workspace file.",
                ["path", "old_text", "new_text"], path="string", old_text="string", new_text="string"),
    tool_schema("glob", "List workspace files matching a glob pattern.", ["pattern"], pattern="string"),
    COMPACT_TOOL,
]

SANDBOX_CHOICES = ("auto", "network", "off")
_NAMED = re.compile(r"`([^`]+)`")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")   # not valid Unicode text: never sent


def printable(text: str) -> str:
    """Tool output as encodable text: a lone surrogate (a byte of a non-UTF-8 file name) becomes
    ``\\xNN``, any other U+FFFD; one in a result would make every later request fail."""
    def escape(match: re.Match) -> str:
        code = ord(match.group())
        return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "\ufffd"
    return LONE_SURROGATE.sub(escape, text)


def _encoded(text: Any, name: str) -> bytes:
    if not isinstance(text, str):
        raise ToolError(f"{name} must be a string, got {type(text).__name__}")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolError(f"{name} holds a lone surrogate, which is not valid Unicode text; "
                        "nothing was written") from None


class Workspace:
    """File and shell tools rooted at ``root``: the file tools never reach outside it.

    ``sandbox``: ``"auto"`` runs bash in bubblewrap where it works (writes only inside the
    workspace, no network), ``"network"`` with the network, ``"off"`` as you. ``confirm(command)``
    is asked before a bash command that is not plainly read-only (``"auto"``: on stdin)."""

    glob_timeout = 10.0       # seconds a glob may search (set on an instance to change it)

    def __init__(self, root: str | Path, bash_timeout: float = 30.0,
                 max_output_chars: int = 1_000_000,
                 confirm: Callable[[str], bool] | str | None = "auto", *,
                 sandbox: str = "auto") -> None:
        if sandbox not in SANDBOX_CHOICES:
            raise ValueError(f"sandbox must be one of {SANDBOX_CHOICES}, got {sandbox!r}")
        self.root = Path(root).resolve()
        self.bash_timeout = bash_timeout
        self.max_output_chars = max_output_chars
        self.confirm = ask_on_stdin if confirm == "auto" else confirm
        self.sandboxed = sandbox != "off" and bubblewrap() is not None
        self.network = sandbox == "network" or not self.sandboxed
        self.named_commands: frozenset[str] = frozenset()

    def for_run(self, offline: bool, request: str) -> Workspace:
        """A copy for one run: offline, a command the request names in backticks runs unasked."""
        run = copy.copy(self)
        named = {c.strip() for c in _NAMED.findall(request)} \
            if offline and isinstance(request, str) else set()
        run.named_commands = frozenset(named)
        return run

    def describe(self) -> str:
        """One line on where bash runs (for the banner)."""
        return describe_sandbox(self.sandboxed, self.network)

    def path(self, relative: Any) -> Path:
        if not isinstance(relative, str) or not relative or "\x00" in relative:
            raise ToolError(f"invalid path {relative!r}: give a relative path inside the workspace")
        if Path(relative).is_absolute():
            raise ToolError(f"absolute path {relative!r} refused: use a path relative to the "
                            "workspace")
        target = (self.root / stored_spelling(self.root, relative)).resolve()
        if target != self.root and self.root not in target.parents:
            raise ToolError(f"path {relative!r} escapes the workspace (via '..' or a symlink); "
                            "only files inside it can be used")
        return target

    def _cap(self, text: str, unread: str | None = None) -> str:
        """``text`` cut at the cap; ``unread``: why the rest was never read (else its length)."""
        cap = self.max_output_chars
        if len(text) <= cap and unread is None:
            return text
        return text[:cap] + f"\n[... output truncated{unread or f': {len(text) - cap} more chars'}]"

    def read_file(self, path: str, limit: int | None = None) -> str:
        """The file's text, reading only what is shown: ``limit`` lines, at most the cap."""
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)
                                  or limit < 1):
            raise ToolError(f"limit must be a positive number of lines, got {limit!r}")
        with opened(self.root, self.path(path), path) as (_, fd):
            size = os.fstat(fd).st_size
            text, more = read_text(fd, self.max_output_chars, limit)
        if "\x00" in text:        # a binary file (or UTF-16): its "text" would fill the context with noise
            raise ToolError(f"{path!r} looks binary ({size:,} bytes, NUL bytes in its start); read_file "
                            "shows text only: look at it with bash (file, xxd | head; iconv for UTF-16)")
        if limit is not None and len(lines := text.splitlines(keepends=True)) > limit:
            return self._cap("".join(lines[:limit])) + (
                f"... (more lines follow; the file has {size:,} bytes: raise limit to read on)")
        if more or len(text) > self.max_output_chars:
            return self._cap(text, f" at {self.max_output_chars:,} chars; the file has {size:,} bytes "
                                   "and the rest was not read")
        return text

    def write_file(self, path: str, content: str) -> str:
        """The file becomes ``content``, whole or not at all."""
        data = _encoded(content, "content")
        target = self.path(path)
        if target == self.root:
            raise ToolError(f"{path!r} is the workspace folder itself, not a file")
        write_whole(self.root, target, path, data)
        return f"Wrote {len(content)} chars to {path}"

    def edit_file(self, path: str, old_text: str, new_text: str) -> str:
        """Replace ``old_text`` once in the file's bytes; nothing else in the file changes."""
        old, new = _encoded(old_text, "old_text"), _encoded(new_text, "new_text")
        if not old:
            raise ToolError("old_text is empty: give the exact text to replace")
        replace_bytes(self.root, self.path(path), path, old, new)
        return f"Edited {path}"

    def glob(self, pattern: str) -> str:
        if not isinstance(pattern, str) or not pattern.strip() or Path(pattern).is_absolute() \
                or ".." in pattern:
            raise ToolError(f"pattern {pattern!r} refused: use a relative pattern")
        hits, out_of_time = glob_files(self.root, pattern, self.glob_timeout)
        listing = "\n".join(hits) if hits else "(no matches)"
        if out_of_time:
            listing += (f"\n[glob stopped after {self.glob_timeout:g} s with {len(hits)} "
                        "match(es) so far: use a narrower pattern]")
        return listing

    def bash(self, command: str) -> str:
        if not isinstance(command, str) or not command.strip():
            raise ToolError("empty command")
        verdict = judge(command)
        if verdict.never:
            raise ToolError(f"dangerous command blocked: {command!r} ({verdict.never}); it is "
                            "never run, even if confirmed")
        must_ask = self.confirm is not None and command.strip() not in self.named_commands
        if verdict.ask and must_ask and not self.confirm(command):
            raise ToolError(f"command not confirmed by the user: {command!r} ({verdict.ask}); "
                            "do not retry it, ask the user or choose a non-destructive way")
        argv = sandbox_argv(command, self.root, self.network) if self.sandboxed else command
        done = run_command(argv, self.root, self.bash_timeout,
                           4 * self.max_output_chars + 4)   # enough bytes for the cap in UTF-8
        if done.timed_out:
            raise ToolError(f"command timed out after {self.bash_timeout:g} s and was stopped: "
                            f"{command!r}; run a shorter step, or raise Workspace.bash_timeout")
        output = done.output.decode("utf-8", errors="replace").strip()
        stopped = f" at {self.max_output_chars} chars; the command was stopped there"
        return self._cap(output or f"(no output, exit code {done.returncode})",
                         stopped if done.stopped else None)

    def run(self, name: str, tool_input: dict) -> str:
        """Run one tool call; refusals and failures come back as ``Error: ...`` text."""
        handler = {"bash": self.bash, "read_file": self.read_file, "write_file": self.write_file,
                   "edit_file": self.edit_file, "glob": self.glob}.get(name)
        if handler is None:
            return printable(f"Error: unknown tool {name!r}")
        try:
            output = handler(**(tool_input or {}))
        except ToolError as error:
            output = f"Error: {error}"
        except TypeError as error:
            output = f"Error: bad arguments for {name}: {error}"
        except OSError as error:
            output = f"Error: {name} failed: {error.strerror or error}"
        except Exception as error:     # a bug in a tool must not kill the turn (see SECURITY.md)
            output = (f"Error: {name} failed unexpectedly ({type(error).__name__}: {error}); "
                      "nothing else was run. Try another tool or approach, or report this.")
        return printable(output)     # every result is valid text, whatever a file name holds

