"""`make lab`, `make notebook` (Notebook 7) and `make present` (Voilà) from a copy of the
repository, driven in Chromium: each serves the git-ignored working copy, the lab runs there, and
`git status` stays clean; no pop-up asks anything (the copy's own settings, not the harness's)."""

from __future__ import annotations

import html
import json
import os
import re
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from repo_copy import git, snapshot

from .conftest import ARTIFACTS
from .jupyterlab import (
    LAB_SETTINGS,
    LabServer,
    answers,
    free_port,
    lab_env,
    open_notebook,
    run_all_cells,
    run_once,
    save_screenshot,
    until,
    wait_served,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]   # one worker: one Chromium
VENV = Path(sys.executable).parent.parent     # the venv running the tests: make must not rebuild it
NEWS = "official Jupyter news"                # JupyterLab's pop-up asking whether to fetch news
WINDOWING = "@jupyterlab/notebook-extension/tracker.jupyterlab-settings"
PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return snapshot(tmp_path_factory.mktemp("clone"))


@pytest.fixture
def served(clone: Path, tmp_path: Path) -> Iterator[Any]:
    """``served(target) -> (base URL, token, log)``: `make <target>` in the clone with this venv
    (its set-up steps marked done), serving on a free port."""
    started: list[subprocess.Popen] = []
    env = lab_env(tmp_path)
    env.pop("JUPYTERLAB_SETTINGS_DIR")         # the copy's own settings, as a learner's make lab has
    settings = clone / "my-notebooks" / ".jupyter" / "settings" / WINDOWING
    settings.parent.mkdir(parents=True, exist_ok=True)   # every cell in the DOM, for the harness
    settings.write_text(json.dumps(LAB_SETTINGS[WINDOWING]))

    def serve(target: str, *variables: str) -> tuple[str, str, Path]:
        port, token, log = free_port(), secrets.token_hex(16), tmp_path / f"make-{target}.log"
        present = target == "present"
        args = (f"PRESENT_ARGS=--port={port} --Voila.ip=127.0.0.1 --Voila.token={token}" if present
                else f"LAB_ARGS=--ServerApp.port={port} --ServerApp.port_retries=0 --ServerApp.ip=127.0.0.1 "
                f"--IdentityProvider.token={token}")
        started.append(subprocess.Popen(
            ["make", "--no-print-directory", f"VENV={VENV}", "-o", f"{VENV}/.suite", "-o", f"{VENV}/.present",
             target, *variables, f"{args} --no-browser"], cwd=clone, env=env, stdout=open(log, "wb"),
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True))
        base, ready = f"http://127.0.0.1:{port}", "/" if present else "/api/status"
        wait_served(f"{base}{ready}?token={token}", started[-1], log, read=False)
        return base, token, log

    yield serve
    for process in started:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def saved_outputs(path: Path) -> bool:
    """The notebook on disk holds outputs; a file JupyterLab is still writing is not saved yet."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except json.JSONDecodeError:
        return False
    return any(cell.get("outputs") for cell in cells)


def test_make_lab_run_and_save_leaves_git_status_clean(clone, served, new_page):
    committed = (clone / "notebooks" / "06_lab.ipynb").read_bytes()
    base, token, log = served("lab")
    copy = clone / "my-notebooks"
    assert "my-notebooks/06_lab.ipynb: new" in log.read_text()
    assert "my-notebooks/runs/: 0 run folder(s), 0.0 MB" in log.read_text()
    lab = LabServer(None, base, token, log)
    names = {item["name"]: item["type"] for item in json.loads(lab.get("/api/contents"))["content"]}
    assert names.keys() >= {"00_context_window.ipynb", "06_lab.ipynb"} and names["zh"] == "directory"
    assert {"00_context_window.ipynb", "06_lab.ipynb"} <= {   # the Chinese notebooks, and where they are
        item["name"] for item in json.loads(lab.get("/api/contents/zh"))["content"]}
    chinese = json.loads(lab.get("/api/contents/zh/06_lab.ipynb"))
    assert chinese["type"] == "notebook" and any('language("zh")' in cell["source"]
                                                 for cell in chinese["content"]["cells"])
    assert b"JupyterLab" in lab.get(f"/lab/tree/zh/06_lab.ipynb?token={token}")
    said = log.read_text()
    assert "中文 notebook 在 my-notebooks/zh/" in said and "the zh folder of the file browser" in said

    page = new_page()
    open_notebook(page, lab, "06_lab.ipynb")          # the learner's copy itself, no test copy
    run_all_cells(page)
    expect(page.locator(".compact-lab img.compact-plot").first).to_be_visible(timeout=30_000)
    expect(page.get_by_text(NEWS)).to_have_count(0)                # the pop-up shows after ~3 s
    setup = page.locator(".jp-Notebook .jp-CodeCell").first        # the set-up cell, collapsed
    expect(setup.locator(".jp-InputArea-editor")).to_have_count(0)
    page.keyboard.press("Control+s")
    until(lambda: saved_outputs(copy / "06_lab.ipynb"), 30, lambda: "not saved with its outputs")
    save_screenshot(page, ARTIFACTS / "make-lab-saved.png")

    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""
    assert (clone / "notebooks" / "06_lab.ipynb").read_bytes() == committed
    assert list((copy / "runs" / "lab").iterdir()), "the lab's runs go to the ignored copy"
    text = log.read_text()
    for alarm in ("*****", "without encryption", "Traceback"):
        assert alarm not in text, text[-3000:]


def test_make_notebook_serves_the_same_copy_in_notebook_7(clone, served, new_page):
    base, token, log = served("notebook")
    assert "Starting Notebook 7 on my-notebooks/" in log.read_text()
    page = new_page(PROJECTOR)
    page.goto(f"{base}/notebooks/06_lab.ipynb?token={token}", wait_until="domcontentloaded")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    kernels = f"{base}/api/kernels?token={token}"                      # one that exists and is idle
    until(lambda: (found := json.loads(answers(kernels) or b"[]")) and
          all(k["execution_state"] == "idle" for k in found), 60, lambda: f"not idle: {answers(kernels)}")
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
    run_once(dashboard, "Experiment 3")
    expect(page.get_by_text(NEWS)).to_have_count(0)
    save_screenshot(page, ARTIFACTS / "make-notebook.png")
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""


def test_make_present_serves_the_lab_in_voila(clone, served, new_page):
    base, token, _ = served("present")
    page = new_page(PROJECTOR)
    # Voilà streams the page while the notebook runs: the document is complete only after the last
    # cell, so wait for the response only; the dashboard (near the top) is awaited below.
    page.goto(f"{base}/?token={token}", wait_until="commit")
    dashboard = page.locator(".compact-lab").first
    state = dashboard.locator(".lab-state").first
    expect(state).to_contain_text(re.compile(r"Run \d+ · "), timeout=90_000)
    expect(page.locator(".jp-InputArea-editor")).to_have_count(0)       # code hidden
    first_heading = page.locator("h2", has_text="One slider, one question").first
    assert dashboard.bounding_box()["y"] < first_heading.bounding_box()["y"]   # dashboard first
    run_once(dashboard, "Experiment 3")
    events = dashboard.locator(".widget-html", has_text="Stage events").first
    expect(events.locator("li[data-stage='compact_history']")).to_have_count(1)
    dashboard.evaluate("element => element.scrollIntoView({block: 'start'})")
    save_screenshot(page, ARTIFACTS / "present-voila.png")
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""


def test_make_present_in_chinese_serves_the_chinese_lab_in_voila(served):
    base, token, log = served("present", "COMPACT_LANG=zh")
    page = html.unescape(answers(f"{base}/?token={token}", timeout=120).decode())   # once it has run
    assert "实验台：现场运行课程的三个实验" in page                        # the Chinese lab, run
    assert "application/vnd.jupyter.widget-view+json" in page            # its dashboard
    assert "One slider, one question" not in page                        # not the English one
    said = log.read_text(encoding="utf-8")
    assert "Presenting my-notebooks/zh/06_lab.ipynb in Voilà" in said
    assert "`make present COMPACT_LANG=en` presents" in said
