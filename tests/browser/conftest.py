"""Fixtures for browser tests: one Chromium and one JupyterLab server per notebooks folder.

* ``chromium``: session-scoped Playwright browser (Debian's /usr/bin/chromium).
* ``lab_server``: session-scoped factory ``lab_server(src_dir) -> LabServer``; copies
  ``src_dir`` to a temp root and serves it (one fresh server per folder per session).
* ``browser_page``: a fresh page (own context) per test; on failure it saves a
  screenshot to ``artifacts/browser/`` and prints the lab server logs.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .jupyterlab import CHROMIUM_PATH, LabServer, launch_chromium, save_screenshot, start_lab

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"
VIEWPORT = {"width": 1400, "height": 1000}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not Path(CHROMIUM_PATH).exists():
        pytest.fail(f"{CHROMIUM_PATH} missing: run `make test` (it installs Debian's chromium) "
                    "or apt-get install -y --no-install-recommends chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_chromium(pw, home=tmp_path_factory.mktemp("chromium"))
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def lab_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[Path], LabServer]]:
    servers: dict[Path, LabServer] = {}

    def factory(src_dir: Path) -> LabServer:
        src_dir = Path(src_dir).resolve()
        if src_dir not in servers:
            tmp = tmp_path_factory.mktemp("lab")
            root = tmp / "root"
            shutil.copytree(
                src_dir,
                root,
                ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"),
            )
            servers[src_dir] = start_lab(root, tmp / "state")
        return servers[src_dir]

    factory.servers = servers  # type: ignore[attr-defined]  # read by browser_page
    yield factory
    for server in servers.values():
        server.stop()


@pytest.fixture
def browser_page(
    chromium: Any, lab_server: Callable[[Path], LabServer], request: pytest.FixtureRequest
) -> Iterator[Any]:
    context = chromium.new_context(viewport=VIEWPORT)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
    page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
    try:
        yield page
    finally:
        rep = getattr(request.node, "rep_call", None)
        if rep is not None and rep.failed:
            shot = ARTIFACTS / f"{request.node.name}-failure.png"
            try:
                save_screenshot(page, shot)
                print(f"failure screenshot: {shot}")
            except Exception as exc:  # the page may be gone
                print(f"could not save failure screenshot: {exc}")
            print("browser console (last 40):\n" + "\n".join(console[-40:]))
            for server in getattr(lab_server, "servers", {}).values():
                print(f"--- {server.log_path} (tail)\n{server.log_tail(40)}")
        context.close()
