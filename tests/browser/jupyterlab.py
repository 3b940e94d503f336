"""Drive a real JupyterLab server from headless Chromium (Playwright, sync API).

Self-contained: no project imports. Typical use::

    lab = start_lab(notebook_dir, tmp)          # fresh server, isolated config dirs
    browser = launch_chromium(playwright)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    open_notebook(page, lab, lab.copy_notebook("06_lab.ipynb"))
    run_all_cells(page)                          # waits for the kernel and every cell
    save_screenshot(page, Path("artifacts/browser/lab.png"))
    lab.stop()

Why things are done the way they are:

* The kernel-ready race: the notebook toolbar's idle indicator is shown before a
  kernel exists, and "Run All" clicked then is silently dropped. We wait for the
  status-bar text ``<kernel name> | Idle`` instead.
* ``run_all_cells`` first clears all outputs, so that every execution count seen
  afterwards provably comes from this run (a saved notebook may carry old counts).
* Jupyter, JupyterLab, IPython and matplotlib get temp config/data/runtime dirs so
  nothing is written to ``~``. With ``JUPYTER_DATA_DIR`` redirected, the venv's
  kernelspec and lab extensions are still found because jupyter_core puts
  ``sys.prefix/share/jupyter`` first on the data path (``JUPYTER_PREFER_ENV_PATH``,
  set explicitly below). ``start_lab`` checks both and fails loudly if either is missing.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"
STATUS_TEXT = "#jp-main-statusbar .jp-StatusBar-TextItem"
IDLE_RE = re.compile(r"\| Idle")

# User settings written into JUPYTERLAB_SETTINGS_DIR for every server.
LAB_SETTINGS: dict[str, dict[str, Any]] = {
    # No news / update pop-up (never click it away: it may appear late).
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    # Attach every cell to the DOM, so cell prompts/outputs can be queried and
    # screenshotted wherever they are on the page.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
    },
}

# Extra settings for a server in the dark theme: start_lab(..., settings=DARK_THEME).
DARK_THEME: dict[str, dict[str, Any]] = {
    "@jupyterlab/apputils-extension/themes.jupyterlab-settings": {"theme": "JupyterLab Dark"},
}

_ENV_DIRS = {
    "JUPYTER_CONFIG_DIR": "jupyter-config",
    "JUPYTER_DATA_DIR": "jupyter-data",
    "JUPYTER_RUNTIME_DIR": "jupyter-runtime",
    "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
    "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces",
    "MPLCONFIGDIR": "mplconfig",
    "IPYTHONDIR": "ipython",
}


class LabServerError(RuntimeError):
    """The JupyterLab server could not be started or is unusable."""


# --------------------------------------------------------------------------- server


class LabServer:
    """A running ``jupyter lab`` subprocess. Use as a context manager or call ``stop()``."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        port: int,
        token: str,
        root_dir: Path,
        log_path: Path,
        log_file: Any,
    ) -> None:
        self.proc = proc
        self.port = port
        self.token = token
        self.root_dir = root_dir
        self.log_path = log_path
        self._log_file = log_file

    # -- addresses
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "") -> str:
        """``/lab/workspaces/<new>/tree/<path>?reset&token=...`` (path relative to the root).

        A new, reset workspace per call: otherwise JupyterLab restores the tabs an earlier
        page opened, and the status bar can show *their* kernel as idle before this
        notebook's kernel exists (Run All is then dropped).
        """
        workspace = f"page-{secrets.token_hex(4)}"
        return (f"{self.base_url}/lab/workspaces/{workspace}/tree/{quote(path)}"
                f"?reset&token={self.token}")

    # -- REST helpers
    def get(self, path: str, timeout: float = 5.0) -> bytes:
        req = urllib.request.Request(
            self.base_url + path, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.read()

    def api(self, path: str) -> Any:
        return json.loads(self.get(path))

    def kernelspecs(self) -> dict[str, Any]:
        """Kernelspecs as seen by the server: name -> spec dict."""
        return self.api("/api/kernelspecs")["kernelspecs"]

    def federated_extensions(self) -> list[str]:
        """Names of prebuilt lab extensions the /lab page will load."""
        html = self.get(f"/lab?token={self.token}").decode()
        m = re.search(
            r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
            html,
            re.S,
        )
        if not m:
            raise LabServerError("no jupyter-config-data in /lab page")
        config = json.loads(m.group(1))
        return [ext["name"] for ext in config.get("federated_extensions", [])]

    # -- files
    def copy_notebook(self, name: str, new_name: str | None = None) -> str:
        """Copy ``name`` (relative to the root) to a fresh file; return its relative path.

        Open the copy, not the original: JupyterLab autosaves what it opens.
        """
        src = self.root_dir / name
        if new_name is None:
            new_name = f"{src.stem}.run-{secrets.token_hex(3)}{src.suffix}"
            new_name = str(Path(name).parent / new_name)
        shutil.copyfile(src, self.root_dir / new_name)
        return Path(new_name).as_posix()

    # -- diagnostics
    def log_tail(self, lines: int = 60) -> str:
        try:
            self._log_file.flush()
        except (ValueError, OSError):
            pass
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "<no log>"
        return "\n".join(text.splitlines()[-lines:])

    # -- lifecycle
    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM the server by its pid, wait, then SIGKILL; then reap leftover kernels.

        Kernels are started by the server in their own sessions. A clean SIGTERM makes
        the server shut them down; if it had to be killed, we kill the descendants we
        recorded before (by pid, after checking the pid was not reused).
        """
        proc = self.proc
        if proc.poll() is None:
            children = _descendants(proc.pid)
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            deadline = time.monotonic() + 5
            while children and time.monotonic() < deadline:
                children = [c for c in children if _same_process_alive(*c)]
                if children:
                    time.sleep(0.1)
            for pid, start in children:
                if _same_process_alive(pid, start):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        try:
            self._log_file.close()
        except OSError:
            pass

    def __enter__(self) -> LabServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _proc_stat(pid: int) -> tuple[int, int] | None:
    """(ppid, starttime) of a process from /proc, or None if gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[19])


def _descendants(root: int) -> list[tuple[int, int]]:
    """All descendant (pid, starttime) pairs of ``root`` (Linux /proc walk)."""
    parent: dict[int, tuple[int, int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _proc_stat(int(entry.name))
            if st:
                parent[int(entry.name)] = st
    found: list[tuple[int, int]] = []
    frontier = [root]
    while frontier:
        p = frontier.pop()
        for pid, (ppid, start) in parent.items():
            if ppid == p:
                found.append((pid, start))
                frontier.append(pid)
    return found


def _same_process_alive(pid: int, start: int) -> bool:
    st = _proc_stat(pid)
    return st is not None and st[1] == start


def lab_env(tmp: Path, settings: dict[str, dict[str, Any]] | None = None) -> dict[str, str]:
    """Environment for the server (and its kernels): every Jupyter/IPython/mpl dir in tmp;
    ``settings`` adds user settings files to LAB_SETTINGS."""
    env = dict(os.environ)
    for var, sub in _ENV_DIRS.items():
        d = tmp / sub
        d.mkdir(parents=True, exist_ok=True)
        env[var] = str(d)
    # sys.prefix/share/jupyter (the venv's kernelspec + labextensions) before the
    # redirected user dirs; this is jupyter_core's default in a venv, made explicit.
    env["JUPYTER_PREFER_ENV_PATH"] = "1"
    env.pop("JUPYTER_PATH", None)
    # A backend forced by the caller (e.g. Agg for headless tests) would stop the
    # kernel from using the inline backend, and plt.show() would display nothing.
    env.pop("MPLBACKEND", None)
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    settings_dir = Path(env["JUPYTERLAB_SETTINGS_DIR"])
    for rel, value in {**LAB_SETTINGS, **(settings or {})}.items():
        path = settings_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=2))
    return env


def start_lab(
    notebook_dir: Path,
    tmp: Path,
    *,
    timeout: float = 60.0,
    extra_args: tuple[str, ...] = (),
    settings: dict[str, dict[str, Any]] | None = None,
    require_kernel: str | None = "python3",
    require_extensions: tuple[str, ...] = (WIDGETS_EXTENSION,),
) -> LabServer:
    """Start ``jupyter lab`` serving ``notebook_dir`` on a free loopback port.

    Logs go to ``tmp/jupyterlab.log``. Raises LabServerError (with the log tail) if
    ``/api/status`` does not answer within ``timeout`` seconds, or if the required
    kernelspec / lab extensions are not visible to the server.
    """
    notebook_dir = Path(notebook_dir).resolve()
    tmp = Path(tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    env = lab_env(tmp, settings)
    log_path = tmp / "jupyterlab.log"
    last_error = ""
    for attempt in range(3):  # a port grabbed by someone else between pick and bind
        port = _free_port()
        token = secrets.token_hex(24)
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",  # ServerApp.token is deprecated
            f"--ServerApp.root_dir={notebook_dir}",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
            *extra_args,
        ]
        if os.geteuid() == 0:
            cmd.append("--allow-root")
        log_file = open(log_path, "ab")  # closed by LabServer.stop
        log_file.write(f"\n=== attempt {attempt}: {' '.join(cmd)}\n".encode())
        log_file.flush()
        proc = subprocess.Popen(
            cmd,
            cwd=notebook_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in the terminal must not hit it first
        )
        lab = LabServer(proc, port, token, notebook_dir, log_path, log_file)
        try:
            _wait_ready(lab, timeout)
        except LabServerError as exc:
            lab.stop()
            last_error = str(exc)
            if proc.returncode is not None and "already in use" in lab.log_tail(200):
                continue
            raise
        try:
            _check_discovery(lab, require_kernel, require_extensions)
        except BaseException:
            lab.stop()
            raise
        return lab
    raise LabServerError(last_error)


def _wait_ready(lab: LabServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if lab.proc.poll() is not None:
            raise LabServerError(
                f"jupyter lab exited with {lab.proc.returncode}; log tail:\n{lab.log_tail()}"
            )
        try:
            lab.api("/api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
            pass
        if time.monotonic() > deadline:
            raise LabServerError(
                f"/api/status did not answer within {timeout:.0f}s; log tail:\n{lab.log_tail()}"
            )
        time.sleep(0.25)


def _check_discovery(lab: LabServer, kernel: str | None, extensions: tuple[str, ...]) -> None:
    if kernel:
        specs = lab.kernelspecs()
        if kernel not in specs:
            raise LabServerError(
                f"kernelspec {kernel!r} not found by the server (have {sorted(specs)}); "
                f"log tail:\n{lab.log_tail()}"
            )
    if extensions:
        have = lab.federated_extensions()
        missing = [e for e in extensions if e not in have]
        if missing:
            raise LabServerError(
                f"lab extensions {missing} not loaded (have {have}); log tail:\n{lab.log_tail()}"
            )


# --------------------------------------------------------------------------- browser


def chromium_env(home: Path) -> dict[str, str]:
    """Environment for Chromium: XDG dirs in ``home`` (else it writes ~/.config/chromium
    crash-report folders and ~/.cache/dconf even with a temporary profile)."""
    env = dict(os.environ)
    for var, sub in {
        "XDG_CONFIG_HOME": "config",
        "XDG_CACHE_HOME": "cache",
        "XDG_DATA_HOME": "data",
        "XDG_RUNTIME_DIR": "runtime",
    }.items():
        d = home / sub
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        env[var] = str(d)
    return env


def launch_chromium(playwright: Any, home: Path | None = None, **kwargs: Any) -> Any:
    """Debian's Chromium, headless, with CHROMIUM_ARGS. Never Playwright's own browsers.

    ``home``: folder for Chromium's XDG dirs (a new temp folder if omitted).
    """
    if home is None:
        home = Path(tempfile.mkdtemp(prefix="chromium-xdg-"))
    kwargs.setdefault("env", chromium_env(Path(home)))
    return playwright.chromium.launch(
        executable_path=CHROMIUM_PATH, headless=True, args=list(CHROMIUM_ARGS), **kwargs
    )


def open_notebook(page: Any, lab: LabServer, name: str, timeout: float = 60_000) -> None:
    """Open ``name`` (relative to the server root) and wait until its kernel is idle."""
    page.goto(lab.url(name), wait_until="domcontentloaded", timeout=timeout)
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.locator(".jp-Notebook .jp-Cell").first.wait_for(state="visible", timeout=timeout)
    wait_kernel_idle(page, timeout)


def _accept_kernel_dialog(page: Any) -> bool:
    """If JupyterLab asks which kernel to use (no kernelspec metadata), accept the default."""
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    if dialog.count() and dialog.first.is_visible():
        dialog.first.locator(".jp-Dialog-button.jp-mod-accept").click()
        return True
    return False


def wait_kernel_idle(page: Any, timeout: float = 60_000) -> None:
    """Wait for the status bar to read ``... | Idle`` (the kernel really exists then)."""
    idle = page.locator(STATUS_TEXT, has_text=IDLE_RE)
    deadline = time.monotonic() + timeout / 1000
    while True:
        if idle.count() and idle.first.is_visible():
            return
        _accept_kernel_dialog(page)
        if time.monotonic() > deadline:
            texts = page.locator(STATUS_TEXT).all_inner_texts()
            raise TimeoutError(f"kernel not idle after {timeout / 1000:.0f}s; status bar: {texts}")
        page.wait_for_timeout(200)


def run_menu_command(page: Any, menu: str, label: str, timeout: float = 10_000) -> None:
    """Click main menu ``menu`` (e.g. "Run"), then its enabled item labelled ``label``.

    Labels, not ``data-command`` ids: menus use wrapper ids (``runmenu:run-all``,
    ``editmenu:clear-all``) that differ from the notebook command ids.
    """
    page.locator("#jp-MainMenu .lm-MenuBar-item").filter(
        has_text=re.compile(rf"^\s*{re.escape(menu)}\s*$")
    ).click(timeout=timeout)
    item = page.locator(".lm-Menu li.lm-Menu-item:not(.lm-mod-disabled):not(.lm-mod-hidden)")
    item = item.filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(label)}$"))
    )
    item.first.click(timeout=timeout)
    page.locator(".lm-Menu").first.wait_for(state="hidden", timeout=timeout)


# JS: one entry per code cell of the current notebook.
_CELL_STATE_JS = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!panel) return null;
  return Array.from(panel.querySelectorAll('.jp-Notebook .jp-CodeCell')).map(cell => {
    const prompt = cell.querySelector('.jp-InputArea-prompt');
    const src = cell.querySelector('.jp-InputArea-editor .cm-content');
    const collapsed = !cell.querySelector('.jp-InputArea-editor');
    const errs = cell.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]');
    return {
      prompt: prompt ? prompt.textContent.trim() : '',
      empty: src ? src.textContent.trim() === '' : false,
      collapsed: collapsed,
      stderr: Array.from(errs).map(e => e.textContent).join('\\n').slice(-2000),
    };
  });
}
"""


def cell_states(page: Any) -> list[dict[str, Any]]:
    """``[{prompt, empty, collapsed, stderr}]`` for every code cell of the visible notebook
    (a collapsed cell, such as the notebooks' set-up cell, shows no prompt to read)."""
    return page.evaluate(_CELL_STATE_JS) or []


def _count(prompt: str) -> str:
    m = re.fullmatch(r"\[(.*)\]:?", prompt)
    return m.group(1).strip() if m else prompt


def run_all_cells(page: Any, timeout: float = 180_000, stall: float = 5.0) -> list[int]:
    """Clear outputs, Run → Run All Cells, wait until every non-empty code cell ran.

    Returns the execution counts. Raises if the run stalls (kernel idle, nothing
    pending, some cells never ran: usually an exception stopped Run All) or times out.
    """
    wait_kernel_idle(page, timeout)
    run_menu_command(page, "Edit", "Clear Outputs of All Cells")
    deadline = time.monotonic() + 30
    while any(_count(c["prompt"]) for c in cell_states(page)):
        if time.monotonic() > deadline:
            raise TimeoutError(f"outputs not cleared: {cell_states(page)}")
        page.wait_for_timeout(100)

    if not [c for c in cell_states(page) if not c["empty"] and not c["collapsed"]]:  # nothing to run
        run_menu_command(page, "Run", "Run All Cells")
        wait_kernel_idle(page, timeout)
        return []
    run_menu_command(page, "Run", "Run All Cells")

    idle = page.locator(STATUS_TEXT, has_text=IDLE_RE)
    deadline = time.monotonic() + timeout / 1000
    stalled_since: float | None = None
    while True:
        states = [c for c in cell_states(page) if not c["empty"] and not c["collapsed"]]
        counts = [_count(c["prompt"]) for c in states]
        if states and all(c.isdigit() for c in counts):
            break
        pending = any(c == "*" for c in counts)
        now = time.monotonic()
        if not pending and idle.count():
            stalled_since = stalled_since or now
            if now - stalled_since > stall:
                raise RuntimeError(f"Run All stalled (an error?): {_describe(states)}")
        else:
            stalled_since = None
        if now > deadline:
            raise TimeoutError(f"Run All not done after {timeout / 1000:.0f}s: {_describe(states)}")
        page.wait_for_timeout(200)
    wait_kernel_idle(page, timeout)
    return [int(c) for c in counts]


def _describe(states: list[dict[str, Any]]) -> str:
    parts = []
    for i, c in enumerate(states):
        line = f"\n  code cell {i}: {c['prompt'] or '<no prompt>'}"
        if c["stderr"]:
            line += "\n    " + c["stderr"].strip().replace("\n", "\n    ")
        parts.append(line)
    return "".join(parts)


def save_screenshot(page: Any, path: Path | str, **kwargs: Any) -> Path:
    """Screenshot of the page (JupyterLab is one viewport: scroll the target into view)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), **kwargs)
    return path
