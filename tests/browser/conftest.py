"""Fixtures for browser tests: one Chromium and one JupyterLab server per notebooks folder.

* ``chromium``: session-scoped Playwright browser (Debian's /usr/bin/chromium).
* ``lab_server``: session-scoped factory ``lab_server(src_dir, settings=None) -> LabServer``;
  copies ``src_dir`` to a temp root and serves it (one fresh server per folder and settings
  per session; ``settings=DARK_THEME`` for the dark theme).
* ``browser_page``: a fresh page (own context) per test; ``new_page(viewport=..., **options)``
  makes more (another size, ``device_scale_factor``). On failure each saves a screenshot to
  ``artifacts/browser/`` and the lab server logs are printed.
"""

from __future__ import annotations

import json
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
    servers: dict[tuple[Path, str], LabServer] = {}

    def factory(src_dir: Path, settings: dict[str, Any] | None = None) -> LabServer:
        key = (Path(src_dir).resolve(), json.dumps(settings, sort_keys=True))
        if key not in servers:
            tmp = tmp_path_factory.mktemp("lab")
            root = tmp / "root"
            shutil.copytree(
                key[0],
                root,
                ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "runs"),
            )
            servers[key] = start_lab(root, tmp / "state", settings=settings)
        return servers[key]

    factory.servers = servers  # type: ignore[attr-defined]  # read by browser_page
    yield factory
    for server in servers.values():
        server.stop()


@pytest.fixture
def new_page(
    chromium: Any, lab_server: Callable[[Path], LabServer], request: pytest.FixtureRequest
) -> Iterator[Callable[..., Any]]:
    opened: list[tuple[Any, Any, list[str]]] = []

    def factory(viewport: dict[str, int] | None = None, **options: Any) -> Any:
        context = chromium.new_context(viewport=viewport or VIEWPORT, **options)
        page = context.new_page()
        console: list[str] = []
        page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
        page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
        opened.append((context, page, console))
        return page

    try:
        yield factory
    finally:
        rep = getattr(request.node, "rep_call", None)
        failed = rep is not None and rep.failed
        for index, (context, page, console) in enumerate(opened):
            if failed:
                shot = ARTIFACTS / f"{request.node.name}-{index}-failure.png"
                try:
                    save_screenshot(page, shot)
                    print(f"failure screenshot: {shot}")
                except Exception as exc:  # the page may be gone
                    print(f"could not save failure screenshot: {exc}")
                print("browser console (last 40):\n" + "\n".join(console[-40:]))
            context.close()
        if failed:
            for server in getattr(lab_server, "servers", {}).values():
                print(f"--- {server.log_path} (tail)\n{server.log_tail(40)}")


@pytest.fixture
def browser_page(new_page: Callable[..., Any]) -> Any:
    return new_page()
