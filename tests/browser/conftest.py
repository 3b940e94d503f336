"""One Chromium per session, one JupyterLab server on a copy of notebooks/ (``lab_server``), and
``new_page(viewport)``: on a failure each page's screenshot goes to ``artifacts/browser/`` and its
console and the server's log are printed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from .jupyterlab import CHROMIUM_PATH, launch_chromium, save_screenshot, start_lab

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep


def failed(request: pytest.FixtureRequest) -> bool:
    rep = getattr(request.node, "rep_call", None)
    return rep is not None and rep.failed


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    if not Path(CHROMIUM_PATH).exists():
        pytest.fail(f"{CHROMIUM_PATH} missing: run `make test` (it installs Debian's chromium) "
                    "or apt-get install -y --no-install-recommends chromium")
    with sync_playwright() as pw:
        browser = launch_chromium(pw, home=tmp_path_factory.mktemp("chromium"))
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    """JupyterLab on a copy of notebooks/ (it autosaves what it opens)."""
    tmp = tmp_path_factory.mktemp("lab")
    shutil.copytree(REPO_ROOT / "notebooks", tmp / "root",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "runs"))
    server = start_lab(tmp / "root", tmp / "state")
    yield server
    server.stop()


@pytest.fixture
def new_page(chromium, request):
    opened = []

    def make(viewport: dict[str, int] | None = None):
        context = chromium.new_context(viewport=viewport or {"width": 1400, "height": 1000})
        page, console = context.new_page(), []
        page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
        page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
        opened.append((context, page, console))
        return page

    yield make
    for index, (context, shown, console) in enumerate(opened):
        if failed(request):
            shot = save_screenshot(shown, ARTIFACTS / f"{request.node.name}-{index}-failure.png")
            print(f"failure screenshot: {shot}\nbrowser console (last 40):\n" + "\n".join(console[-40:]))
        context.close()
