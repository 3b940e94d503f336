"""``make lab``: start JupyterLab on the notebooks folder (``--allow-root`` only as root)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def command(notebook_dir: str | Path, port: int | None = None) -> list[str]:
    args = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={Path(notebook_dir).resolve()}"]
    if port is not None:
        args += [f"--ServerApp.port={port}", "--no-browser", "--ServerApp.ip=127.0.0.1"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-root")
    return args


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else "notebooks"
    args = command(folder) + sys.argv[2:]       # extra JupyterLab options pass through
    print("Starting JupyterLab on", folder, "- open the URL it prints (offline model unless "
          "ANTHROPIC_API_KEY is set).", flush=True)
    os.execv(args[0], args)


if __name__ == "__main__":
    main()
