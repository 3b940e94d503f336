"""Drive a real JupyterLab server from headless Chromium (Playwright, sync API).

Self-contained: no project imports. Typical use::

    lab = start_lab(notebook_dir, tmp)          # fresh server, isolated config dirs
    browser = launch_chromium(playwright)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    open_notebook(page, lab, lab.copy_notebook("06_lab.ipynb"))
    run_all_cells(page)                          # waits for the kernel and every cell
    lab.stop()

Why things are done the way they are:

* The kernel-ready race: the notebook toolbar's idle indicator is shown before a kernel
  exists, and "Run All" clicked then is silently dropped. We wait for the status-bar text
  ``<kernel name> | Idle`` instead.
* ``run_all_cells`` first clears all outputs, so that every execution count seen afterwards
  provably comes from this run (a saved notebook may carry old counts).
* Jupyter, JupyterLab, IPython and matplotlib get temp config/data/runtime dirs so nothing is
  written to ``~``. With ``JUPYTER_DATA_DIR`` redirected, the venv's kernelspec and lab
  extensions are still found because jupyter_core puts ``sys.prefix/share/jupyter`` first on
  the data path (``JUPYTER_PREFER_ENV_PATH``); ``start_lab`` checks both.
* Nothing waits a fixed time: a page waits with ``wait_for_function`` on a condition in the
  page, everything else polls its condition (``until``).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psutil

CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"

# User settings written into JUPYTERLAB_SETTINGS_DIR for every server.
LAB_SETTINGS: dict[str, dict[str, Any]] = {
    # No news / update pop-up (never click it away: it may appear late).
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
    # Every cell attached to the DOM, so prompts and outputs can be read wherever they are.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
_ENV_DIRS = {"JUPYTER_CONFIG_DIR": "jupyter-config", "JUPYTER_DATA_DIR": "jupyter-data",
             "JUPYTER_RUNTIME_DIR": "jupyter-runtime", "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
             "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces", "MPLCONFIGDIR": "mplconfig",
             "IPYTHONDIR": "ipython"}


class LabServerError(RuntimeError):
    """The JupyterLab server could not be started or is unusable."""


def until(condition: Callable[[], Any], timeout: float, failure: Callable[[], str]) -> Any:
    """``condition()``'s first truthy value, asked every 0.1 s; AssertionError(failure()) at the
    timeout."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(failure())
        time.sleep(0.1)
    return value


def answers(url: str, timeout: float = 5, read: bool = True) -> bytes | None:
    """What ``url`` serves (``read=False``: its status line, the body left unread), or None
    while nothing answers there."""
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
    """What ``url`` serves (``answers``) once ``process`` (its output in ``log``) serves it;
    AssertionError with the log if the process exits first or the timeout passes."""
    served = until(lambda: process.poll() is not None or answers(url, timeout, read), timeout,
                   lambda: f"nothing served at {url} within {timeout:.0f} s:\n{log.read_text()}")
    assert process.poll() is None, f"{process.args} exited:\n{log.read_text()}"
    return served


class LabServer:
    """A running ``jupyter lab`` subprocess; ``stop()`` ends it."""

    def __init__(self, proc: subprocess.Popen, port: int, token: str, root_dir: Path,
                 log_path: Path, log_file: Any) -> None:
        self.proc, self.port, self.token, self.root_dir = proc, port, token, root_dir
        self.log_path, self._log_file = log_path, log_file
        self.base_url = f"http://127.0.0.1:{port}"

    def url(self, path: str = "") -> str:
        """``/lab/workspaces/<new>/tree/<path>?reset&token=...``: a new, reset workspace per
        call, or JupyterLab restores the tabs an earlier page opened, and the status bar can
        show *their* kernel as idle before this notebook's kernel exists (Run All is dropped)."""
        workspace = f"page-{secrets.token_hex(4)}"
        return f"{self.base_url}/lab/workspaces/{workspace}/tree/{quote(path)}?reset&token={self.token}"

    def get(self, path: str, timeout: float = 5.0) -> bytes:
        request = urllib.request.Request(self.base_url + path,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()

    def api(self, path: str) -> Any:
        return json.loads(self.get(path))

    def kernelspecs(self) -> dict[str, Any]:
        return self.api("/api/kernelspecs")["kernelspecs"]

    def federated_extensions(self) -> list[str]:
        """Names of the prebuilt lab extensions the /lab page loads."""
        page = self.get(f"/lab?token={self.token}").decode()
        found = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                          page, re.S)
        if not found:
            raise LabServerError("no jupyter-config-data in /lab page")
        return [ext["name"] for ext in json.loads(found.group(1)).get("federated_extensions", [])]

    def copy_notebook(self, name: str) -> str:
        """A fresh copy of ``name`` (relative to the root), its relative path: open the copy,
        not the original, since JupyterLab autosaves what it opens."""
        src = self.root_dir / name
        new_name = (Path(name).parent / f"{src.stem}.run-{secrets.token_hex(3)}{src.suffix}").as_posix()
        shutil.copyfile(src, self.root_dir / new_name)
        return new_name

    def log_tail(self, lines: int = 60) -> str:
        if not self._log_file.closed:
            self._log_file.flush()
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else "<no log>"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM the server, then SIGKILL it and the kernels it started if they outlive it
        (each kernel runs in its own session, outside the server's process group)."""
        if self.proc.poll() is None:
            server = psutil.Process(self.proc.pid)
            family = [server, *server.children(recursive=True)]
            server.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
            for process in psutil.wait_procs(family, timeout=5)[1]:
                process.kill()
        self._log_file.close()


def lab_env(tmp: Path) -> dict[str, str]:
    """Environment for the server (and its kernels): every Jupyter/IPython/mpl dir in tmp, and
    LAB_SETTINGS."""
    env = dict(os.environ)
    for var, sub in _ENV_DIRS.items():
        (tmp / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(tmp / sub)
    env["JUPYTER_PREFER_ENV_PATH"] = "1"          # the venv's kernelspec and labextensions first
    env.pop("JUPYTER_PATH", None)
    env.pop("MPLBACKEND", None)                   # e.g. Agg would stop plt.show() displaying
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    for rel, value in LAB_SETTINGS.items():
        path = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=2))
    return env


def _launch(notebook_dir: Path, tmp: Path, env: dict[str, str], attempt: int) -> LabServer:
    port, token = free_port(), secrets.token_hex(24)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebook_dir}",
           "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
           *(["--allow-root"] if os.geteuid() == 0 else [])]
    log_path = tmp / "jupyterlab.log"
    log_file = open(log_path, "ab")               # closed by LabServer.stop
    log_file.write(f"\n=== attempt {attempt}: {' '.join(cmd)}\n".encode())
    log_file.flush()
    proc = subprocess.Popen(cmd, cwd=notebook_dir, env=env, stdin=subprocess.DEVNULL, stdout=log_file,
                            stderr=subprocess.STDOUT, start_new_session=True)  # Ctrl-C must not hit it
    return LabServer(proc, port, token, notebook_dir, log_path, log_file)


def _wait_ready(lab: LabServer, timeout: float) -> None:
    """Until ``/api/status`` answers or the server exits."""
    status = f"{lab.base_url}/api/status?token={lab.token}"
    until(lambda: lab.proc.poll() is not None or answers(status), timeout,
          lambda: f"/api/status did not answer within {timeout:.0f}s")


def start_lab(notebook_dir: Path, tmp: Path, timeout: float = 60.0) -> LabServer:
    """``jupyter lab`` serving ``notebook_dir`` on a free loopback port, its log in
    ``tmp/jupyterlab.log``. LabServerError (with the log's tail) if ``/api/status`` does not
    answer within ``timeout`` seconds, or the python3 kernelspec or the widgets extension is
    not visible to the server; a port taken between picking and binding is picked again."""
    notebook_dir, tmp = Path(notebook_dir).resolve(), Path(tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    env = lab_env(tmp)
    for attempt in range(3):
        lab = _launch(notebook_dir, tmp, env, attempt)
        try:
            _wait_ready(lab, timeout)
        except AssertionError as exc:
            lab.stop()
            raise LabServerError(f"{exc}; log tail:\n{lab.log_tail()}") from None
        if lab.proc.poll() is None:
            break
        lab.stop()
        if "already in use" not in lab.log_tail(200):
            raise LabServerError(f"jupyter lab exited with {lab.proc.returncode}; log tail:\n"
                                 f"{lab.log_tail()}")
    else:
        raise LabServerError(f"no free port in 3 attempts; log tail:\n{lab.log_tail()}")
    specs, extensions = lab.kernelspecs(), lab.federated_extensions()
    if "python3" not in specs or WIDGETS_EXTENSION not in extensions:
        lab.stop()
        raise LabServerError(f"kernelspecs {sorted(specs)}, lab extensions {extensions}: need python3 "
                             f"and {WIDGETS_EXTENSION}; log tail:\n{lab.log_tail()}")
    return lab


def chromium_env(home: Path) -> dict[str, str]:
    """Environment for Chromium: XDG dirs in ``home`` (else it writes ~/.config/chromium
    crash-report folders and ~/.cache/dconf even with a temporary profile)."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        folder = home / var.split("_")[1].lower()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        env[var] = str(folder)
    return env


def launch_chromium(playwright: Any, home: Path | None = None) -> Any:
    """Debian's Chromium, headless, never Playwright's own browsers; its XDG dirs in ``home``
    (a new temp folder if omitted)."""
    env = chromium_env(Path(home or tempfile.mkdtemp(prefix="chromium-xdg-")))
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


def notebook_state(page: Any) -> dict[str, Any]:
    """``{cells: [{count, runs, stderr}], idle}`` of the visible notebook."""
    return page.evaluate(_NOTEBOOK)


def wait_kernel_idle(page: Any, timeout: float = 60_000) -> None:
    """Wait for the status bar to read ``... | Idle`` (the kernel really exists then)."""
    page.wait_for_function(_IDLE, timeout=timeout, polling=100)


def run_menu_command(page: Any, menu: str, label: str, timeout: float = 10_000) -> None:
    """Click main menu ``menu`` (e.g. "Run"), then its enabled item labelled ``label``
    (labels: menus use wrapper command ids, such as ``runmenu:run-all``)."""
    page.locator("#jp-MainMenu .lm-MenuBar-item").filter(
        has_text=re.compile(rf"^\s*{re.escape(menu)}\s*$")).click(timeout=timeout)
    item = page.locator(".lm-Menu li.lm-Menu-item:not(.lm-mod-disabled):not(.lm-mod-hidden)").filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(label)}$")))
    item.first.click(timeout=timeout)
    page.locator(".lm-Menu").first.wait_for(state="hidden", timeout=timeout)


def run_all_cells(page: Any, timeout: float = 180_000, stall: float = 5.0) -> list[int]:
    """Clear outputs, Run → Run All Cells, wait until every code cell that runs has run; their
    execution counts. Raises if the run stalls (the kernel idle, nothing queued, some cells
    never ran: usually an exception stopped Run All) or times out."""
    wait_kernel_idle(page, timeout)
    run_menu_command(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(f"() => ({_NOTEBOOK})().cells.every(c => !c.count)", timeout=30_000)
    page.evaluate("() => { window.compactIdleSince = null; }")
    run_menu_command(page, "Run", "Run All Cells")
    if not [c for c in notebook_state(page)["cells"] if c["runs"]]:      # nothing to run
        wait_kernel_idle(page, timeout)
        return []
    try:
        ran = page.wait_for_function(_RAN, arg=stall * 1000, timeout=timeout, polling=100).json_value()
    except Exception as exc:                       # playwright's TimeoutError
        raise TimeoutError(f"Run All not done after {timeout / 1000:.0f}s: {describe(page)}") from exc
    if ran == "stalled":
        raise RuntimeError(f"Run All stalled (an error?): {describe(page)}")
    wait_kernel_idle(page, timeout)
    return [int(c["count"]) for c in notebook_state(page)["cells"] if c["runs"]]


def describe(page: Any) -> str:
    """Each code cell that runs: its prompt's count and its stderr."""
    lines = []
    for i, cell in enumerate(c for c in notebook_state(page)["cells"] if c["runs"]):
        lines.append(f"\n  code cell {i}: [{cell['count']}]")
        if cell["stderr"]:
            lines.append("\n    " + cell["stderr"].strip().replace("\n", "\n    "))
    return "".join(lines)


def painted(page: Any) -> None:
    """Wait two animation frames: what a scroll, resize or theme change laid out is painted."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def save_screenshot(page: Any, path: Path | str) -> Path:
    """Screenshot of the page (JupyterLab is one viewport: scroll the target into view)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    return path
