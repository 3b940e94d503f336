"""Fixtures for browser tests: one Chromium and one JupyterLab server per notebooks folder.

* ``chromium``: session-scoped Playwright browser (Debian's /usr/bin/chromium).
* ``lab_server``: session-scoped factory ``lab_server(src_dir) -> LabServer``; copies
  ``src_dir`` to a temp root and serves it (one fresh server per folder per session).
* ``new_page(viewport=None)``: a fresh page (own context) per call; ``browser_page`` is one. On
  failure each saves a screenshot to ``artifacts/browser/`` and the lab servers' logs are printed.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from .jupyterlab import CHROMIUM_PATH, LabServer, launch_chromium, save_screenshot, start_lab

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"
VIEWPORT = {"width": 1400, "height": 1000}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep


def failed(request: pytest.FixtureRequest) -> bool:
    rep = getattr(request.node, "rep_call", None)
    return rep is not None and rep.failed


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not Path(CHROMIUM_PATH).exists():
        pytest.fail(f"{CHROMIUM_PATH} missing: run `make test` (it installs Debian's chromium) "
                    "or apt-get install -y --no-install-recommends chromium")
    with sync_playwright() as pw:
        browser = launch_chromium(pw, home=tmp_path_factory.mktemp("chromium"))
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def lab_servers() -> Iterator[dict[Path, LabServer]]:
    """The servers this session started, by the folder they serve a copy of."""
    servers: dict[Path, LabServer] = {}
    yield servers
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory,
               lab_servers: dict[Path, LabServer]) -> Callable[[Path], LabServer]:
    def factory(src_dir: Path) -> LabServer:
        key = Path(src_dir).resolve()
        if key not in lab_servers:
            tmp = tmp_path_factory.mktemp("lab")
            shutil.copytree(key, tmp / "root",
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "runs"))
            lab_servers[key] = start_lab(tmp / "root", tmp / "state")
        return lab_servers[key]
    return factory


@pytest.fixture
def new_page(chromium: Any, lab_servers: dict[Path, LabServer],
             request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    opened: list[tuple[Any, Any, list[str]]] = []

    def factory(viewport: dict[str, int] | None = None) -> Any:
        context = chromium.new_context(viewport=viewport or VIEWPORT)
        page, console = context.new_page(), []
        page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
        page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
        opened.append((context, page, console))
        return page

    yield factory
    for index, (context, page, console) in enumerate(opened):
        if failed(request):
            shot = save_screenshot(page, ARTIFACTS / f"{request.node.name}-{index}-failure.png")
            print(f"failure screenshot: {shot}")
            print("browser console (last 40):\n" + "\n".join(console[-40:]))
        context.close()
    for server in lab_servers.values() if failed(request) else ():
        print(f"--- {server.log_path} (tail)\n{server.log_tail(40)}")


@pytest.fixture
def browser_page(new_page: Callable[..., Any]) -> Any:
    return new_page()
