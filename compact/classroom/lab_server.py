"""``make lab`` and ``make present``: serve a working copy of the notebooks, never the committed ones.

JupyterLab saves what it opens (autosave, metadata, outputs), so serving ``notebooks/`` would
change the repository. Both commands first refresh a git-ignored copy (``my-notebooks/``): a
notebook new or changed upstream is copied in, unless the learner edited its cells, in which
case their copy is kept and the command says so. Outputs alone are not edits. Then

* ``lab`` starts JupyterLab on the copy (``--allow-root`` only as root);
* ``present`` starts Voilà on the copy's lab notebook: code hidden, the dashboard first.

Extra arguments go to JupyterLab or Voilà unchanged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
from importlib.util import find_spec
from pathlib import Path

MANIFEST = ".synced-from-notebooks.json"      # name → hash of the committed cells last copied
PRESENTED = "06_lab.ipynb"


def cells_hash(path: Path) -> str:
    """The notebook's cells as a learner writes them: types and sources, not outputs or ids."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [(c.get("cell_type"), "".join(c.get("source", ""))) for c in nb.get("cells", [])]
    return hashlib.sha256(json.dumps(cells).encode()).hexdigest()


def sync(source: str | Path, copy: str | Path) -> dict[str, str]:
    """Refresh ``copy`` from the notebooks in ``source``; name → what happened to it."""
    source, copy = Path(source), Path(copy)
    notebooks = sorted(source.glob("*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"no notebooks in {source}: run this from the repository's top folder")
    copy.mkdir(parents=True, exist_ok=True)
    manifest_path = copy / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    report = {}
    for committed in notebooks:
        name, target = committed.name, copy / committed.name
        upstream = cells_hash(committed)
        if not target.exists():
            report[name] = "new"
        elif upstream == manifest.get(name):
            report[name] = "unchanged"
            continue
        elif cells_hash(target) in (manifest.get(name), upstream):
            report[name] = "updated"      # the learner changed no cell: only outputs would go
        else:
            report[name] = "kept: you edited it (delete or rename it to get the new version)"
            continue
        shutil.copyfile(committed, target)
        manifest[name] = upstream
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return report


def as_root() -> list[str]:
    return ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []


def lab_command(folder: str | Path, extra: list[str]) -> list[str]:
    """JupyterLab on the copy; hidden files allowed, so *View → Show Hidden Files* can show the
    ``.transcripts/`` and ``.task_outputs/`` an experiment leaves in its run folder."""
    return [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={Path(folder).resolve()}",
            "--ContentsManager.allow_hidden=True", *as_root(), *extra]


def present_command(folder: str | Path, extra: list[str]) -> list[str]:
    """Voilà on the lab notebook: sources stripped (its default), run in the copy's folder."""
    notebook = Path(folder).resolve() / PRESENTED
    return [sys.executable, "-m", "voila", str(notebook), "--strip_sources=True", *extra]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("mode", choices=["lab", "present"])
    parser.add_argument("--source", default="notebooks", help="the committed notebooks")
    parser.add_argument("--copy", default="my-notebooks", help="the git-ignored working copy")
    args, extra = parser.parse_known_args(argv)
    for name, what in sync(args.source, args.copy).items():
        if what != "unchanged":
            print(f"{args.copy}/{name}: {what}")
    if args.mode == "present":
        if find_spec("voila") is None:
            sys.exit("Voilà is not installed: `make present` installs it (pip install -e .[present])")
        command = present_command(args.copy, extra)
        print(f"Presenting {args.copy}/{PRESENTED} in Voilà: open the URL it prints.", flush=True)
    else:
        command = lab_command(args.copy, extra)
        print(f"Starting JupyterLab on {args.copy}/ (your copy; notebooks/ stays as committed): "
              "open the URL it prints. Offline model unless ANTHROPIC_API_KEY is set.", flush=True)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
