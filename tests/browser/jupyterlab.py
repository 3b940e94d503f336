"""Drive a real JupyterLab server from headless Chromium (Playwright, sync API); no project imports.

* The kernel-ready race: the toolbar's idle indicator shows before a kernel exists, and Run All
  clicked then is dropped, so we wait for the status bar's ``<kernel> | Idle`` instead.
* ``run_all_cells`` clears every output first: each execution count seen afterwards is this run's.
* Jupyter, JupyterLab, IPython and matplotlib get folders in a temporary one, nothing in ``~``;
  the venv's kernelspec and lab extensions are still found (``JUPYTER_PREFER_ENV_PATH``), and
  ``start_lab`` checks both.
* Nothing waits a fixed time: a page waits for a condition in the page, the rest polls (``until``).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import noto_cjk_sans_otc
import psutil
from playwright.sync_api import expect

CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"
# The system's fonts plus the suite's pip font of Chinese glyphs (Debian's Chromium has none here).
FONTS_CONF = ('<?xml version="1.0"?><fontconfig><include ignore_missing="yes">/etc/fonts/fonts.conf'
              '</include><dir>{folder}</dir></fontconfig>\n')
LAB_SETTINGS: dict[str, dict[str, Any]] = {   # written into JUPYTERLAB_SETTINGS_DIR for every server
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {   # no news pop-up
        "fetchNews": "false", "checkForUpdates": False},
    # Every cell attached to the DOM, so prompts and outputs can be read wherever they are.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
ENV_DIRS = {"JUPYTER_CONFIG_DIR": "jupyter-config", "JUPYTER_DATA_DIR": "jupyter-data",
            "JUPYTER_RUNTIME_DIR": "jupyter-runtime", "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
            "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces", "MPLCONFIGDIR": "mplconfig",
            "IPYTHONDIR": "ipython"}


def until(condition: Callable[[], Any], timeout: float, failure: Callable[[], str]) -> Any:
    """``condition()``'s first truthy value, asked every 0.1 s; AssertionError(failure()) at the timeout."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(failure())
        time.sleep(0.1)
    return value


def answers(url: str, timeout: float = 5, read: bool = True) -> bytes | None:
    """What ``url`` serves (``read=False``: its status line), or None while nothing answers there."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read() if read else f"{response.status} {response.reason}".encode()
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_served(url: str, process: subprocess.Popen, log: Path, timeout: float = 90,
                read: bool = True) -> bytes:
    """What ``url`` serves once ``process`` serves it; AssertionError with the log if it exits first."""
    served = until(lambda: process.poll() is not None or answers(url, timeout, read), timeout,
                   lambda: f"nothing served at {url} within {timeout:.0f} s:\n{log.read_text()}")
    assert process.poll() is None, f"{process.args} exited:\n{log.read_text()}"
    return served


@dataclass
class LabServer:
    """A running ``jupyter lab`` (``proc``), its output in ``log_path``."""

    proc: subprocess.Popen | None
    base_url: str
    token: str
    log_path: Path

    def url(self, path: str) -> str:
        """A new, reset workspace per call, or JupyterLab restores an earlier page's tabs and the
        status bar can show *their* kernel idle before this notebook's exists (Run All is dropped)."""
        workspace = f"page-{secrets.token_hex(4)}"
        return f"{self.base_url}/lab/workspaces/{workspace}/tree/{quote(path)}?reset&token={self.token}"

    def get(self, path: str) -> bytes:
        request = urllib.request.Request(self.base_url + path,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.read()

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """SIGTERM the server, then SIGKILL it and the kernels it started if they outlive it
        (each kernel runs in its own session, outside the server's process group)."""
        if self.proc.poll() is None:
            server = psutil.Process(self.proc.pid)
            family = [server, *server.children(recursive=True)]
            server.terminate()
            for process in psutil.wait_procs(family, timeout=20)[1]:
                process.kill()
            self.proc.wait(10)


def lab_env(tmp: Path) -> dict[str, str]:
    """Environment for a server and its kernels: every Jupyter/IPython/mpl folder in ``tmp``."""
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "MPLBACKEND")}  # Agg: no plots
    for var, sub in ENV_DIRS.items():
        (tmp / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(tmp / sub)
    env.update(JUPYTER_PREFER_ENV_PATH="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
    for rel, value in LAB_SETTINGS.items():
        path = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=2))
    return env


def start_lab(notebook_dir: Path, tmp: Path, timeout: float = 60.0) -> LabServer:
    """``jupyter lab`` serving ``notebook_dir`` on a free loopback port (picked again if taken
    before it binds), its log in ``tmp``, once it answers; RuntimeError (with the log's tail) if it
    does not, or does not see the python3 kernelspec and the widgets extension."""
    notebook_dir, env = Path(notebook_dir).resolve(), lab_env(tmp)
    for _ in range(3):
        port, token = free_port(), secrets.token_hex(24)
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebook_dir}",
               "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
               *(["--allow-root"] if os.geteuid() == 0 else [])]
        with open(tmp / "jupyterlab.log", "ab") as log:
            proc = subprocess.Popen(cmd, cwd=notebook_dir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)  # no Ctrl-C for it
        lab = LabServer(proc, f"http://127.0.0.1:{port}", token, tmp / "jupyterlab.log")
        try:
            status = f"{lab.base_url}/api/status?token={token}"
            until(lambda proc=proc, status=status: proc.poll() is not None or answers(status), timeout,
                  lambda: f"/api/status did not answer within {timeout:.0f}s")
        except AssertionError as exc:
            lab.stop()
            raise RuntimeError(f"{exc}; log tail:\n{lab.log_tail()}") from None
        if proc.poll() is None:
            break
        if "already in use" not in lab.log_tail(200):
            raise RuntimeError(f"jupyter lab exited with {proc.returncode}; log tail:\n{lab.log_tail()}")
    else:
        raise RuntimeError(f"no free port in 3 attempts; log tail:\n{lab.log_tail()}")
    specs = json.loads(lab.get("/api/kernelspecs"))["kernelspecs"]
    found = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                      lab.get(f"/lab?token={lab.token}").decode(), re.S)        # the lab extensions it loads
    extensions = [e["name"] for e in json.loads(found[1] if found else "{}").get("federated_extensions", [])]
    if "python3" not in specs or WIDGETS_EXTENSION not in extensions:
        lab.stop()
        raise RuntimeError(f"kernelspecs {sorted(specs)}, lab extensions {extensions}: need python3 "
                           f"and {WIDGETS_EXTENSION}; log tail:\n{lab.log_tail()}")
    return lab


def launch_chromium(playwright: Any, home: Path) -> Any:
    """Debian's Chromium, headless, never Playwright's own; its XDG folders in ``home`` (else it
    writes ~/.config/chromium and ~/.cache/dconf even with a temporary profile)."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        folder = home / var.split("_")[1].lower()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        env[var] = str(folder)
    env["FONTCONFIG_FILE"] = str(home / "fonts.conf")
    Path(env["FONTCONFIG_FILE"]).write_text(FONTS_CONF.format(folder=noto_cjk_sans_otc.FONT_PATH.parent))
    return playwright.chromium.launch(executable_path=CHROMIUM_PATH, headless=True,
                                      args=CHROMIUM_ARGS, env=env)


def open_notebook(page: Any, lab: LabServer, name: str, timeout: float = 60_000) -> None:
    """Open ``name`` (relative to the server root) and wait until its kernel is idle."""
    page.goto(lab.url(name), wait_until="domcontentloaded", timeout=timeout)
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.locator(".jp-Notebook .jp-Cell").first.wait_for(state="visible", timeout=timeout)
    wait_kernel_idle(page, timeout)


# JS: the visible notebook's code cells (their prompts' counts, whether they run at all: not
# empty, not collapsed like the set-up cell, and their stderr) and whether the kernel is idle.
_NOTEBOOK = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const status = document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-TextItem');
  const cells = Array.from(panel ? panel.querySelectorAll('.jp-Notebook .jp-CodeCell') : []).map(cell => {
    const prompt = (cell.querySelector('.jp-InputArea-prompt') || {}).textContent || '';
    const count = (prompt.trim().match(/^\\[(.*)\\]:?$/) || [null, prompt.trim()])[1].trim();
    const source = cell.querySelector('.jp-InputArea-editor .cm-content');
    const errs = cell.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]');
    return {count, runs: !!source && source.textContent.trim() !== '',
            stderr: Array.from(errs).map(e => e.textContent).join('\\n').slice(-2000)};
  });
  const idle = Array.from(status).some(e => /\\| Idle/.test(e.textContent) && e.getClientRects().length);
  return {cells, idle};
}"""
# JS: accept the kernel JupyterLab offers when it asks which to use; true once the kernel is idle.
_IDLE = f"""() => {{
  const dialogs = Array.from(document.querySelectorAll('.jp-Dialog'));
  const ask = dialogs.find(d => d.textContent.includes('Select Kernel'));
  if (ask) ask.querySelector('.jp-Dialog-button.jp-mod-accept').click();
  return ({_NOTEBOOK})().idle;
}}"""
# JS: "done" once every cell that runs has a count, "stalled" after the kernel has been idle with
# nothing queued for `stall` ms (an exception stopped Run All).
_RAN = f"""stall => {{
  const state = ({_NOTEBOOK})(), counts = state.cells.filter(c => c.runs).map(c => c.count);
  if (counts.length && counts.every(c => /^\\d+$/.test(c))) return "done";
  if (!state.idle || counts.includes("*")) {{ window.compactIdleSince = null; return false; }}
  window.compactIdleSince = window.compactIdleSince || Date.now();
  return Date.now() - window.compactIdleSince > stall && "stalled";
}}"""


def running_cells(page: Any) -> list[dict[str, Any]]:
    """``{count, runs, stderr}`` of each code cell of the visible notebook that runs."""
    return [c for c in page.evaluate(_NOTEBOOK)["cells"] if c["runs"]]


def wait_kernel_idle(page: Any, timeout: float = 60_000) -> None:
    page.wait_for_function(_IDLE, timeout=timeout, polling=100)


def run_menu_command(page: Any, menu: str, label: str, timeout: float = 10_000) -> None:
    """Click main menu ``menu``, then its enabled item labelled ``label``."""
    page.locator("#jp-MainMenu .lm-MenuBar-item").filter(
        has_text=re.compile(rf"^\s*{re.escape(menu)}\s*$")).click(timeout=timeout)
    item = page.locator(".lm-Menu li.lm-Menu-item:not(.lm-mod-disabled):not(.lm-mod-hidden)").filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(label)}$")))
    item.first.click(timeout=timeout)
    page.locator(".lm-Menu").first.wait_for(state="hidden", timeout=timeout)


def run_all_cells(page: Any, timeout: float = 180_000, stall: float = 5.0) -> list[int]:
    """Clear outputs, Run All Cells, wait until every code cell that runs has run; their counts.
    Raises if the run stalls (usually an exception stopped Run All) or times out."""
    wait_kernel_idle(page, timeout)
    run_menu_command(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(f"() => ({_NOTEBOOK})().cells.every(c => !c.count)", timeout=30_000)
    page.evaluate("() => { window.compactIdleSince = null; }")
    run_menu_command(page, "Run", "Run All Cells")
    if running_cells(page):
        try:
            ran = page.wait_for_function(_RAN, arg=stall * 1000, timeout=timeout, polling=100).json_value()
        except Exception as exc:                       # playwright's TimeoutError
            raise TimeoutError(f"Run All not done after {timeout / 1000:.0f}s: {describe(page)}") from exc
        if ran == "stalled":
            raise RuntimeError(f"Run All stalled (an error?): {describe(page)}")
    wait_kernel_idle(page, timeout)
    return [int(c["count"]) for c in running_cells(page)]


def describe(page: Any) -> str:
    return "".join(f"\n  code cell {i}: [{cell['count']}]" + (
        "\n    " + cell["stderr"].strip().replace("\n", "\n    ") if cell["stderr"] else "")
        for i, cell in enumerate(running_cells(page)))


def run_once(dashboard: Any, label: str) -> None:
    """Click the lab's ``label`` button; wait until its state line reports the next run done."""
    state = dashboard.locator(".lab-state").first
    number = int(re.search(r"(?:Run|第) (\d+)", state.inner_text() or "Run 0").group(1))
    dashboard.locator("button.widget-button", has_text=label).first.click()
    done = rf"(?:Run|第) {number + 1}(?: 次运行)? · (?!running|正在运行)"     # the English or Chinese lab
    expect(state).to_contain_text(re.compile(done), timeout=30_000)


def painted(page: Any) -> None:
    """Wait two animation frames: what a scroll, resize or theme change laid out is painted."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def save_screenshot(page: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    return path
