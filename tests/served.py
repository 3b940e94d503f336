"""The offline model served on a loopback port, for tests that drive it as a real client does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import anthropic
import pytest
from anthropic import beta_tool

from compact.offline import SERVE_WINDOW_TOKENS, OfflineModel
from compact.offline.server import make_server

README = "# Agent Loop\n\nThe loop that calls the model and runs its tools.\n"
GUIDE = "# Tool Use\n\nHow a tool call is answered.\n"


@dataclass
class Served:
    model: OfflineModel
    url: str

    def client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(api_key="dummy", base_url=self.url, max_retries=0)


@contextmanager
def serving(**options) -> Iterator[Served]:
    model = OfflineModel(window_tokens=SERVE_WINDOW_TOKENS)
    server = make_server(model, port=0, **options)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Served(model, f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        server.server_close()


def workspace(folder: Path) -> Path:
    (folder / "README.md").write_text(README, encoding="utf-8")
    (folder / "guide.md").write_text(GUIDE, encoding="utf-8")
    return folder


@pytest.fixture(params=["in-process", "over HTTP"], name="client")
def both_transports(request):
    """An SDK client of the offline model: in-process, then (the second run) over HTTP."""
    if request.param == "in-process":
        yield OfflineModel(window_tokens=200_000).client()
        return
    with serving() as served:
        yield served.client()


def readme_reader(root: Path):
    """A tool-runner tool that reads files under ``root``, which is given the README above."""
    (root / "README.md").write_text(README, encoding="utf-8")

    @beta_tool
    def read_file(path: str) -> str:
        """Read a file from the workspace."""
        return (root / path).read_text(encoding="utf-8")
    return read_file
