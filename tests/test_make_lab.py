"""The README's first command, `make lab`, reaches a JupyterLab that serves the notebooks."""

import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_lab_serves_the_notebooks(tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "MPLBACKEND")}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
        env[name] = str(tmp_path / name.lower())
    env["JUPYTERLAB_SETTINGS_DIR"] = str(tmp_path / "settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp_path / "workspaces")
    args = (f"--ServerApp.port={port} --ServerApp.port_retries=0 --ServerApp.ip=127.0.0.1 "
            f"--no-browser --IdentityProvider.token={token}")
    process = subprocess.Popen(["make", "--no-print-directory", "lab", f"LAB_ARGS={args}"],
                               cwd=REPO, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/api"
        status = None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"{url}/status?token={token}", timeout=2) as reply:
                    status = json.load(reply)
                    break
            except OSError:
                time.sleep(0.5)
        assert status is not None, "make lab did not answer /api/status within 90 s"
        with urllib.request.urlopen(f"{url}/contents?token={token}", timeout=5) as reply:
            names = {item["name"] for item in json.load(reply)["content"]}
        assert "06_lab.ipynb" in names and "00_context_window.ipynb" in names
        with urllib.request.urlopen(f"{url}/kernelspecs?token={token}", timeout=5) as reply:
            assert "python3" in json.load(reply)["kernelspecs"]
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
