"""The agent's tools, confined to one workspace folder, plus the model-invoked compact tool.

A tool never raises into the loop: a refused or failed call becomes an ``Error: ...``
tool result the model can read. Paths are resolved (symlinks included) and must stay
inside the workspace. ``bash`` runs with a timeout and an output cap; it is a convenience
for teaching, not a security boundary (see SECURITY.md).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .destructive import ask_on_stdin, is_destructive
from .pipeline.env import is_live
from .pipeline.errors import ToolError

COMPACT_TOOL = {"name": "compact",
                "description": "Summarize earlier conversation to free context space.",
                "input_schema": {"type": "object", "properties": {}}}

TOOLS = [
    {"name": "bash", "description": "Run a shell command in the workspace.",
     "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
                      "required": ["command"]}},
    {"name": "read_file", "description": "Read a text file in the workspace.",
     "input_schema": {"type": "object", "properties": {
         "path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]}},
    {"name": "write_file", "description": "Write a text file in the workspace.",
     "input_schema": {"type": "object", "properties": {
         "path": {"type": "string"}, "content": {"type": "string"}},
         "required": ["path", "content"]}},
    {"name": "edit_file", "description": "Replace exact text once in a workspace file.",
     "input_schema": {"type": "object", "properties": {
         "path": {"type": "string"}, "old_text": {"type": "string"},
         "new_text": {"type": "string"}}, "required": ["path", "old_text", "new_text"]}},
    {"name": "glob", "description": "List workspace files matching a glob pattern.",
     "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}},
                      "required": ["pattern"]}},
    COMPACT_TOOL,
]

DENIED = ("rm -rf /", "sudo ", "shutdown", "reboot", "mkfs", "> /dev/", ":(){")

class Workspace:
    """File and shell tools rooted at ``root``; nothing reaches outside it.

    ``confirm(command) -> bool`` is asked before a bash command that ``is_destructive``
    flags. The default ``"auto"`` asks on stdin (``ask_on_stdin``) in live mode
    (ANTHROPIC_API_KEY set) and asks nothing offline, where the embedded model runs only a
    command the user's request names in backticks. ``None`` never asks; a notebook can
    pass e.g. ``confirm=lambda cmd: True``.
    """

    def __init__(self, root: str | Path, bash_timeout: float = 30.0,
                 max_output_chars: int = 1_000_000,
                 confirm: Callable[[str], bool] | str | None = "auto") -> None:
        self.root = Path(root).resolve()
        self.bash_timeout = bash_timeout
        self.max_output_chars = max_output_chars
        if confirm == "auto":
            confirm = ask_on_stdin if is_live() else None
        self.confirm = confirm

    def path(self, relative: Any) -> Path:
        if not isinstance(relative, str) or not relative or "\x00" in relative:
            raise ToolError(f"invalid path {relative!r}: give a relative path inside the workspace")
        if Path(relative).is_absolute():
            raise ToolError(f"absolute path {relative!r} refused: use a path relative to the "
                            "workspace")
        target = (self.root / relative).resolve()
        if target != self.root and self.root not in target.parents:
            raise ToolError(f"path {relative!r} escapes the workspace (via '..' or a symlink); "
                            "only files inside it can be used")
        return target

    def _cap(self, text: str, stopped: bool = False) -> str:
        if len(text) <= self.max_output_chars and not stopped:
            return text
        if stopped:       # the command was stopped at the cap: the rest was never read
            return (text[: self.max_output_chars] + f"\n[... output truncated at "
                    f"{self.max_output_chars} chars; the command was stopped there]")
        return (text[: self.max_output_chars]
                + f"\n[... output truncated: {len(text) - self.max_output_chars} more chars]")

    def read_file(self, path: str, limit: int | None = None) -> str:
        target = self.path(path)
        if not target.is_file():
            raise ToolError(f"no file {path!r} in the workspace")
        text = target.read_bytes().decode("utf-8", errors="replace")
        if limit:
            lines = text.splitlines(keepends=True)
            if len(lines) > limit:
                text = "".join(lines[:limit]) + f"... ({len(lines) - limit} more lines)"
        return self._cap(text)

    def write_file(self, path: str, content: str) -> str:
        target = self.path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"Wrote {len(content)} chars to {path}"

    def edit_file(self, path: str, old_text: str, new_text: str) -> str:
        target = self.path(path)
        text = self.read_file(path)
        if old_text not in text:
            raise ToolError(f"text not found in {path}")
        target.write_text(text.replace(old_text, new_text, 1), encoding="utf-8")
        return f"Edited {path}"

    def glob(self, pattern: str) -> str:
        if not isinstance(pattern, str) or Path(pattern).is_absolute() or ".." in pattern:
            raise ToolError(f"pattern {pattern!r} refused: use a relative pattern")
        hits = sorted(p.relative_to(self.root).as_posix() for p in self.root.glob(pattern)
                      if p.is_file() and self.root in p.resolve().parents
                      and not any(part.startswith(".") for part in p.relative_to(self.root).parts))
        return "\n".join(hits) if hits else "(no matches)"

    def bash(self, command: str) -> str:
        if not isinstance(command, str) or not command.strip():
            raise ToolError("empty command")
        if any(bad in command for bad in DENIED):
            raise ToolError(f"dangerous command blocked: {command!r}")
        if self.confirm is not None and is_destructive(command, self.root) \
                and not self.confirm(command):
            raise ToolError(f"command not confirmed by the user: {command!r}; do not retry it, "
                            "ask the user or choose a non-destructive way")
        deadline = time.monotonic() + self.bash_timeout
        with subprocess.Popen(command, shell=True, cwd=self.root, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True) as process:
            data, timed_out, stopped = self._collect(process, deadline)
            if not (timed_out or stopped):
                try:                                   # output closed, shell still running?
                    process.wait(timeout=max(deadline - time.monotonic(), 0))
                except subprocess.TimeoutExpired:
                    timed_out = True
            if timed_out or stopped:
                _kill_group(process)
            returncode = process.wait()
        if timed_out:
            raise ToolError(f"command timed out after {self.bash_timeout:g} s and was stopped: "
                            f"{command!r}; run a shorter step, or raise Workspace.bash_timeout")
        output = data.decode("utf-8", errors="replace").strip()
        return self._cap(output or f"(no output, exit code {returncode})", stopped)

    def _collect(self, process: subprocess.Popen, deadline: float) -> tuple[bytes, bool, bool]:
        """Read output until EOF, the timeout or the cap: (data, timed out, stopped at cap).

        Why not ``communicate()``: it holds all output in memory (``yes`` fills gigabytes
        before a 30 s timeout) and waits for grandchildren that keep the pipe open.
        """
        limit = 4 * self.max_output_chars + 4      # enough bytes for the cap in any UTF-8
        chunks: list[bytes] = []
        size = 0
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return b"".join(chunks), True, False
                if not selector.select(left):
                    continue
                chunk = os.read(process.stdout.fileno(), 65_536)
                if not chunk:
                    return b"".join(chunks), False, False
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    return b"".join(chunks), False, True

    def run(self, name: str, tool_input: dict) -> str:
        """Run one tool call; refusals and failures come back as ``Error: ...`` text."""
        handler = {"bash": self.bash, "read_file": self.read_file, "write_file": self.write_file,
                   "edit_file": self.edit_file, "glob": self.glob}.get(name)
        if handler is None:
            return f"Error: unknown tool {name!r}"
        try:
            return handler(**(tool_input or {}))
        except ToolError as error:
            return f"Error: {error}"
        except TypeError as error:
            return f"Error: bad arguments for {name}: {error}"
        except OSError as error:
            return f"Error: {name} failed: {error.strerror or error}"
        except Exception as error:     # a bug in a tool must not kill the turn (see SECURITY.md)
            return (f"Error: {name} failed unexpectedly ({type(error).__name__}: {error}); "
                    "nothing else was run. Try another tool or approach, or report this.")


def _kill_group(process: subprocess.Popen) -> None:
    """Stop the shell and everything it started (it runs in its own session)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
