"""`make lab`, `make notebook` and `make present` from a copy of the repository, driven in Chromium.

* After `make lab`, opening, running and saving a notebook leaves `git status` clean: the
  server shows the git-ignored working copy, and the saved outputs land there. No pop-up asks
  anything (the copy's own settings, not the test harness's), and the log has no warning.
* `make notebook` serves the same copy in Notebook 7, where the lab runs.
* `make present` serves the lab in Voilà, code hidden and the dashboard first; a click runs.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from repo_copy import git, snapshot

from .conftest import ARTIFACTS
from .jupyterlab import LAB_SETTINGS, LabServer, lab_env, open_notebook, run_all_cells, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]   # one worker: one Chromium
VENV = Path(sys.executable).parent.parent     # the venv running the tests: make must not rebuild it
NEWS = "official Jupyter news"                # JupyterLab's pop-up asking whether to fetch news
WINDOWING = "@jupyterlab/notebook-extension/tracker.jupyterlab-settings"


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return snapshot(tmp_path_factory.mktemp("clone"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_make(clone: Path, state: Path, target: str, variable: str, args: str,
               ready: str) -> tuple[subprocess.Popen, Path]:
    """``make <target>`` in the clone with this venv (its set-up steps marked done)."""
    log = state / f"make-{target}.log"
    env = lab_env(state)
    env.pop("JUPYTERLAB_SETTINGS_DIR")         # the copy's own settings, as a learner's make lab has
    settings = clone / "my-notebooks" / ".jupyter" / "settings" / WINDOWING
    settings.parent.mkdir(parents=True, exist_ok=True)   # every cell in the DOM, for the harness
    settings.write_text(json.dumps(LAB_SETTINGS[WINDOWING]))
    process = subprocess.Popen(
        ["make", "--no-print-directory", f"VENV={VENV}", "-o", f"{VENV}/.suite",
         "-o", f"{VENV}/.present", target, f"{variable}={args}"],
        cwd=clone, env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"make {target} exited:\n{log.read_text()}")
        try:
            urllib.request.urlopen(ready, timeout=2).close()
            return process, log
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"make {target} did not serve {ready} within 90 s:\n{log.read_text()}")


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.fixture
def served(clone: Path, tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen] = []

    def serve(target: str, variable: str, args: str, ready: str) -> Path:
        process, log = start_make(clone, tmp_path, target, variable, args, ready)
        started.append(process)
        return log

    yield serve
    for process in started:
        stop(process)


def test_make_lab_run_and_save_leaves_git_status_clean(clone, served, new_page, tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    committed = (clone / "notebooks" / "06_lab.ipynb").read_bytes()
    args = (f"--ServerApp.port={port} --ServerApp.port_retries=0 --ServerApp.ip=127.0.0.1 "
            f"--no-browser --IdentityProvider.token={token}")
    log = served("lab", "LAB_ARGS", args, f"http://127.0.0.1:{port}/api/status?token={token}")
    copy = clone / "my-notebooks"
    assert "my-notebooks/06_lab.ipynb: new" in log.read_text()
    assert "my-notebooks/runs/: 0 run folder(s), 0.0 MB" in log.read_text()
    lab = LabServer(subprocess.Popen(["true"]), port, token, copy, log, open(os.devnull, "wb"))
    names = {item["name"] for item in lab.api("/api/contents")["content"]}
    assert {"00_context_window.ipynb", "06_lab.ipynb"} <= names

    page = new_page()
    open_notebook(page, lab, "06_lab.ipynb")          # the learner's copy itself, no test copy
    run_all_cells(page)
    expect(page.locator(".compact-lab img.compact-plot").first).to_be_visible(timeout=30_000)
    expect(page.get_by_text(NEWS)).to_have_count(0)                # the pop-up shows after ~3 s
    setup = page.locator(".jp-Notebook .jp-CodeCell").first        # the set-up cell, collapsed
    expect(setup.locator(".jp-InputArea-editor")).to_have_count(0)
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        saved = json.loads((copy / "06_lab.ipynb").read_text(encoding="utf-8"))
        if any(cell.get("outputs") for cell in saved["cells"]):
            break
        page.wait_for_timeout(300)
    else:
        raise AssertionError("the notebook was not saved with its outputs")
    save_screenshot(page, ARTIFACTS / "make-lab-saved.png")

    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""
    assert (clone / "notebooks" / "06_lab.ipynb").read_bytes() == committed
    assert list((copy / "runs" / "lab").iterdir()), "the lab's runs go to the ignored copy"
    text = log.read_text()
    for alarm in ("*****", "without encryption", "Traceback"):
        assert alarm not in text, text[-3000:]


def test_make_notebook_serves_the_same_copy_in_notebook_7(clone, served, new_page):
    port, token = free_port(), secrets.token_hex(16)
    args = (f"--ServerApp.port={port} --ServerApp.port_retries=0 --ServerApp.ip=127.0.0.1 "
            f"--no-browser --IdentityProvider.token={token}")
    log = served("notebook", "LAB_ARGS", args, f"http://127.0.0.1:{port}/api/status?token={token}")
    assert "Starting Notebook 7 on my-notebooks/" in log.read_text()
    page = new_page({"width": 1280, "height": 720})
    page.goto(f"http://127.0.0.1:{port}/notebooks/06_lab.ipynb?token={token}", wait_until="domcontentloaded")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    deadline = time.monotonic() + 60                   # a kernel that exists and is idle (REST)
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/kernels?token={token}", timeout=5) as r:
            kernels = json.load(r)
        if kernels and all(k["execution_state"] == "idle" for k in kernels):
            break
        page.wait_for_timeout(300)
    else:
        raise AssertionError(f"no idle kernel in Notebook 7: {kernels}")
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^\s*Run\s*$")).click()
    page.locator(".lm-Menu-item", has_text=re.compile(r"^Run All Cells$")).first.click()
    dashboard = page.locator(".compact-lab").first
    expect(dashboard.locator("img.compact-plot")).to_be_visible(timeout=90_000)
    # Later cells run the lab again: wait until no cell is running or queued ([*]), or the run
    # counted here is not the last one before the click.
    expect(page.locator(".jp-InputPrompt", has_text="*")).to_have_count(0, timeout=180_000)
    expect(page.locator(".jp-InputPrompt", has_text=re.compile(r"\[\d+\]"))).not_to_have_count(0)
    state = dashboard.locator(".lab-state").first
    expect(state).to_contain_text(re.compile(r"Run \d+ · (?!running)"), timeout=60_000)
    number = int(re.search(r"Run (\d+)", state.inner_text()).group(1))
    dashboard.locator("button.widget-button", has_text="Experiment 3").first.click()
    expect(state).to_contain_text(re.compile(rf"Run {number + 1} · (?!running)"), timeout=30_000)
    expect(page.get_by_text(NEWS)).to_have_count(0)
    save_screenshot(page, ARTIFACTS / "make-notebook.png")
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""


def test_make_present_serves_the_lab_in_voila(clone, served, new_page):
    port, token = free_port(), secrets.token_hex(16)
    args = f"--port={port} --no-browser --Voila.ip=127.0.0.1 --Voila.token={token}"
    served("present", "PRESENT_ARGS", args, f"http://127.0.0.1:{port}/?token={token}")
    page = new_page({"width": 1280, "height": 720})
    # Voilà streams the page while the notebook runs: the document is complete only after the last
    # cell, so wait for the response only; the dashboard (near the top) is awaited below.
    page.goto(f"http://127.0.0.1:{port}/?token={token}", wait_until="commit")
    dashboard = page.locator(".compact-lab").first
    state = dashboard.locator(".lab-state").first
    expect(state).to_contain_text(re.compile(r"Run \d+ · "), timeout=90_000)
    expect(page.locator(".jp-InputArea-editor")).to_have_count(0)       # code hidden
    first_heading = page.locator("h2", has_text="One slider, one question").first
    assert dashboard.bounding_box()["y"] < first_heading.bounding_box()["y"]   # dashboard first
    number = int(re.search(r"Run (\d+)", state.inner_text()).group(1))
    page.locator("button.widget-button", has_text="Experiment 3").first.click()
    expect(state).to_contain_text(re.compile(rf"Run {number + 1} · (?!running)"), timeout=30_000)
    events = dashboard.locator(".widget-html", has_text="Stage events").first
    expect(events.locator("li[data-stage='compact_history']")).to_have_count(1)
    dashboard.evaluate("element => element.scrollIntoView({block: 'start'})")
    save_screenshot(page, ARTIFACTS / "present-voila.png")
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""
