"""The offline model served on a loopback port or asked in-process, as real clients do."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import anthropic
import pytest
from anthropic import beta_tool

from compact.offline import MODEL_NAME, SERVE_WINDOW_TOKENS, OfflineModel
from compact.offline.server import make_server

README = "# Agent Loop\n\nThe loop that calls the model and runs its tools.\n"
GUIDE = "# Tool Use\n\nHow a tool call is answered.\n"
ASK_TITLE = "What is the title of README.md?"
TITLE = 'The title of README.md is "Agent Loop".'


@dataclass
class Served:
    model: OfflineModel
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(api_key="dummy", base_url=self.url, max_retries=0)


@contextmanager
def serving(model: OfflineModel | None = None, **options) -> Iterator[Served]:
    """``model`` (the served size unless given) on a free loopback port; ``options``: make_server's."""
    model = model or OfflineModel(window_tokens=SERVE_WINDOW_TOKENS)
    server = make_server(model, port=0, **options)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield Served(model, server.server_port)
    finally:
        server.shutdown()
        server.server_close()


def respond(payload: dict, headers: dict | None = None, path: str = "/v1/messages") -> tuple[int, dict]:
    """``payload`` (max_tokens 2,000 unless given) posted in-process to a fresh served-size model."""
    body = json.dumps({"model": MODEL_NAME, "max_tokens": 2_000, **payload}).encode()
    return OfflineModel(window_tokens=SERVE_WINDOW_TOKENS).answer("POST", path, body, headers)[:2]


def answered(payload: dict, headers: dict | None = None) -> dict:
    status, reply = respond(payload, headers)
    assert status == 200, reply
    return reply


def calls_of(reply: dict) -> list[tuple[str, dict]]:
    return [(b["name"], b["input"]) for b in reply["content"] if b["type"] == "tool_use"]


def text_of(reply: dict) -> str:
    return "".join(b.get("text", "") for b in reply["content"] if b["type"] == "text")


def workspace(folder: Path) -> Path:
    (folder / "README.md").write_text(README, encoding="utf-8")
    (folder / "guide.md").write_text(GUIDE, encoding="utf-8")
    return folder


@pytest.fixture(params=["in-process", "over HTTP"], name="client")
def both_transports(request):
    """An SDK client of the offline model: in-process, then (the second run) over HTTP."""
    if request.param == "in-process":
        yield OfflineModel(window_tokens=SERVE_WINDOW_TOKENS).client()
        return
    with serving() as served:
        yield served.client()


def title_runner(client: anthropic.Anthropic, root: Path, **options):
    """The SDK's tool runner asked README.md's title, with a tool reading files under ``root``."""
    (root / "README.md").write_text(README, encoding="utf-8")

    @beta_tool
    def read_file(path: str) -> str:
        """Read a file from the workspace."""
        return (root / path).read_text(encoding="utf-8")
    return client.beta.messages.tool_runner(model=MODEL_NAME, max_tokens=4_096, tools=[read_file],
                                            messages=[{"role": "user", "content": ASK_TITLE}],
                                            **options)
