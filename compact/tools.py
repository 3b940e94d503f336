"""The agent's tools, confined to one workspace folder, plus the model-invoked compact tool.

A tool never raises into the loop: a refused or failed call becomes an ``Error: ...``
tool result the model can read. Paths are resolved (symlinks included) and must stay
inside the workspace. ``bash`` runs with a timeout and an output cap; it is a convenience
for teaching, not a security boundary (see SECURITY.md).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import ToolError

COMPACT_TOOL = {"name": "compact",
                "description": "Summarize earlier conversation to free context space.",
                "input_schema": {"type": "object", "properties": {}}}
COMPACT_ACK = "[Compaction requested. This completed turn will be summarized.]"

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
    """File and shell tools rooted at ``root``; nothing reaches outside it."""

    def __init__(self, root: str | Path, bash_timeout: float = 30.0,
                 max_output_chars: int = 1_000_000,
                 confirm: Callable[[str], bool] | None = None) -> None:
        self.root = Path(root).resolve()
        self.bash_timeout = bash_timeout
        self.max_output_chars = max_output_chars
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

    def _cap(self, text: str) -> str:
        if len(text) <= self.max_output_chars:
            return text
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
        if self.confirm is not None and not self.confirm(command):
            raise ToolError(f"command not confirmed by the user: {command!r}")
        try:
            done = subprocess.run(command, shell=True, cwd=self.root, capture_output=True,
                                  timeout=self.bash_timeout)
        except subprocess.TimeoutExpired:
            raise ToolError(f"command timed out after {self.bash_timeout:g} s: {command!r}") \
                from None
        output = (done.stdout + done.stderr).decode("utf-8", errors="replace").strip()
        return self._cap(output or f"(no output, exit code {done.returncode})")

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
