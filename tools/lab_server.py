"""``make lab``, ``make notebook`` and ``make present``: serve a working copy of the notebooks,
never the committed ones.

JupyterLab saves what it opens (autosave, metadata, outputs), so serving ``notebooks/`` would
change the repository. Each command first refreshes a git-ignored copy (``my-notebooks/``, the
Chinese notebooks of ``notebooks/zh/`` in its ``zh/``): a notebook new or changed upstream is
copied in, unless the learner edited its cells, in which case their copy is kept and the command
says so. Outputs alone are not edits. A notebook that is not valid JSON is left alone with a
message, and so is a damaged record of what was copied (both are written atomically, so an
interrupted refresh leaves neither half-written). Then

* ``lab`` starts JupyterLab on the copy (``--allow-root`` only as root), and says where the
  Chinese notebooks are (``zh/`` in its file browser);
* ``notebook`` starts Notebook 7 on the same copy;
* ``present`` starts Voilà on the copy's lab notebook: code hidden, the dashboard first; the
  Chinese lab (``zh/06_lab.ipynb``) with ``--language zh`` (``make present COMPACT_LANG=zh``; the
  default is the language ``compact.texts`` takes from the environment).

JupyterLab and Notebook 7 read their settings from the copy (``.jupyter/settings``), seeded so
that no news pop-up asks the learner anything; the runs kept in the copy are counted on start.
Extra arguments go to JupyterLab, Notebook 7 or Voilà unchanged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from importlib.util import find_spec
from pathlib import Path

import zmq

from compact.classroom.runs import prune, usage
from compact.fileio import write_atomically
from compact.texts import LANGUAGES
from compact.texts import language as default_language

MANIFEST = ".synced-from-notebooks.json"      # name → hash of the committed cells last copied
PRESENTED = "06_lab.ipynb"
TRANSLATIONS = {"zh": "zh"}                   # language → its folder, beside the English notebooks
SETTINGS = Path(".jupyter") / "settings"      # the copy's JupyterLab and Notebook 7 user settings
# Seeded once (a learner's later choice stays): no "official Jupyter news?" pop-up, no update check.
SEEDED_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
}
RUNS = ("runs", "runs/lab", *(f"{folder}/{runs}" for folder in TRANSLATIONS.values()
                              for runs in ("runs", "runs/lab")))   # notebooks' and labs' run folders


class NotNotebook(ValueError):
    """A file that should be a notebook is not valid notebook JSON."""


def cells_hash(path: Path) -> str:
    """The notebook's cells as a learner writes them: types and sources, not outputs or ids."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = [(c.get("cell_type"), "".join(c.get("source", ""))) for c in nb.get("cells", [])]
    except (UnicodeDecodeError, json.JSONDecodeError, AttributeError, TypeError) as error:
        raise NotNotebook(f"not valid notebook JSON ({error})") from None
    return hashlib.sha256(json.dumps(cells).encode()).hexdigest()


def cells_hash_or_none(path: Path) -> str | None:
    try:
        return cells_hash(path)
    except NotNotebook:
        return None


def read_manifest(path: Path) -> tuple[dict[str, str], str | None]:
    """What was last copied, and a message when the record is damaged (then nothing is known:
    every notebook already in the copy counts as edited, so nothing of the learner's is lost)."""
    if not path.exists():
        return {}, None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        manifest, reason = None, str(error)
    else:
        reason = "not a JSON object"
    if isinstance(manifest, dict) and all(isinstance(v, str) for v in manifest.values()):
        return manifest, None
    return {}, f"damaged ({reason}): rewritten; the notebooks already in the copy are kept as they are"


def committed_notebooks(source: Path) -> list[str]:
    """The notebooks to copy, as paths relative to ``source``: the English ones, then each
    translation's (``zh/00_context_window.ipynb``)."""
    names = [path.name for path in sorted(source.glob("*.ipynb"))]
    for folder in TRANSLATIONS.values():
        names += [f"{folder}/{path.name}" for path in sorted((source / folder).glob("*.ipynb"))]
    return names


def sync(source: str | Path, copy: str | Path) -> dict[str, str]:
    """Refresh ``copy`` from the notebooks in ``source`` and its translations' folders; the
    notebook's path in the copy → what happened to it (the key ``MANIFEST`` says why the record
    of past copies was ignored, when it was)."""
    source, copy = Path(source), Path(copy)
    notebooks = committed_notebooks(source)
    if not any("/" not in name for name in notebooks):
        raise FileNotFoundError(f"no notebooks in {source}: run this from the repository's top folder")
    copy.mkdir(parents=True, exist_ok=True)
    manifest, damaged = read_manifest(copy / MANIFEST)
    report = {MANIFEST: damaged} if damaged else {}
    for name in notebooks:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        report[name] = refresh_one(source / name, copy / name, manifest, name)
    data = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    try:
        write_atomically(copy / MANIFEST, data.encode())
    except OSError as error:
        report[MANIFEST] = f"not saved ({error}); the next refresh keeps every notebook in the copy"
    return report


def refresh_one(committed: Path, target: Path, manifest: dict[str, str], key: str) -> str:
    """Copy one committed notebook into the copy unless the learner edited theirs (``key``: its
    name in the manifest); what happened."""
    try:
        upstream = cells_hash(committed)
    except NotNotebook as error:
        return f"skipped: the committed {committed} is {error}"
    if not target.exists():
        what = "new"
    elif upstream == manifest.get(key):
        return "unchanged"
    elif (mine := cells_hash_or_none(target)) is None:
        return ("skipped: not valid notebook JSON, left as it is (fix it, or delete or rename it "
                "to get the committed version)")
    elif mine == upstream:
        manifest[key] = upstream     # same cells already: the learner's outputs stay
        return "unchanged"
    elif mine == manifest.get(key):
        what = "updated"                     # the learner changed no cell: only outputs go
    else:
        return "kept: you edited it (delete or rename it to get the new version)"
    write_atomically(target, committed.read_bytes())
    manifest[key] = upstream
    return what


def seed_settings(copy: Path) -> Path:
    """The copy's user-settings folder, with the seeded settings written where none exist."""
    folder = copy / SETTINGS
    for name, value in SEEDED_SETTINGS.items():
        path = folder / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, (json.dumps(value, indent=2) + "\n").encode())
    return folder


def server_env(copy: Path) -> dict[str, str]:
    """The environment for JupyterLab and Notebook 7: the copy's settings folder, unless the
    caller chose one (``JUPYTERLAB_SETTINGS_DIR``)."""
    env = dict(os.environ)
    env.setdefault("JUPYTERLAB_SETTINGS_DIR", str(seed_settings(copy).resolve()))
    return env


def runs_report(copy: Path) -> str:
    """How much the copy's run folders hold, after removing closed kernels' old runs."""
    count = size = 0
    for folder in RUNS:
        prune(copy / folder)
        folders, held = usage(copy / folder)
        count, size = count + folders, size + held
    return (f"{copy}/runs/: {count} run folder(s), {size / 1e6:.1f} MB (closed kernels' runs beyond "
            f"the newest few per experiment are removed; delete {copy}/runs/ to clear it)")


def as_root() -> list[str]:
    return ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []


def lab_command(folder: str | Path, extra: list[str], app: str = "jupyterlab") -> list[str]:
    """JupyterLab (or Notebook 7: ``app="notebook"``) on the copy; hidden files allowed, so
    *View → Show Hidden Files* can show the ``.transcripts/`` and ``.task_outputs/`` an
    experiment leaves in its run folder."""
    return [sys.executable, "-m", app, f"--ServerApp.root_dir={Path(folder).resolve()}",
            "--ContentsManager.allow_hidden=True", *encrypted(), *as_root(), *extra]


def encrypted() -> list[str]:
    """Kernels talk to the server over CurveZMQ where pyzmq has it (else ipykernel warns, on
    every kernel start, that code and outputs cross the loopback in plain text)."""
    return ["--KernelManager.transport_encryption=auto"] if zmq.has("curve") else []


def presented(language: str) -> str:
    """The lab notebook of a language, relative to the copy."""
    return f"{TRANSLATIONS[language]}/{PRESENTED}" if language in TRANSLATIONS else PRESENTED


def present_command(folder: str | Path, extra: list[str], language: str = "en") -> list[str]:
    """Voilà on the lab notebook of ``language``: sources stripped (its default), run in the
    notebook's folder."""
    notebook = Path(folder).resolve() / presented(language)
    return [sys.executable, "-m", "voila", str(notebook), "--strip_sources=True", *extra]


APPS = {"lab": ("jupyterlab", "JupyterLab"), "notebook": ("notebook", "Notebook 7")}


def languages_note(copy: Path) -> str:
    """Where the Chinese notebooks are, in both languages (what a server's start says)."""
    if not any((copy / "zh").glob("*.ipynb")):
        return "No Chinese notebooks in this copy yet (notebooks/zh/ holds none)."
    return (f"中文 notebook 在 {copy}/zh/：在文件浏览器中打开 zh 文件夹。"
            f" The Chinese notebooks are in {copy}/zh/ (the zh folder of the file browser).")


def present_note(copy: Path, language: str) -> str:
    """What ``make present`` presents, and how to present the other language."""
    notebook = copy / presented(language)
    if not notebook.is_file():
        sys.exit(f"{notebook} does not exist: the notebooks of that language are not written yet; "
                 "`make present COMPACT_LANG=en` presents the English lab")
    other = "en" if language == "zh" else "zh"
    return (f"Presenting {notebook} in Voilà: open the URL it prints. "
            f"`make present COMPACT_LANG={other}` presents {copy / presented(other)}.")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("mode", choices=[*APPS, "present"])
    parser.add_argument("--source", default="notebooks", help="the committed notebooks")
    parser.add_argument("--copy", default="my-notebooks", help="the git-ignored working copy")
    parser.add_argument("--language", choices=LANGUAGES, default=default_language(),
                        help="the lab notebook `present` shows (default: COMPACT_LANG, else the locale)")
    args, extra = parser.parse_known_args(argv)
    copy = Path(args.copy)
    for name, what in sync(args.source, copy).items():
        if what != "unchanged":
            print(f"{copy}/{name}: {what}")
    print(runs_report(copy))
    if args.mode == "present":
        if find_spec("voila") is None:
            sys.exit("Voilà is not installed: `make present` installs it (pip install -e .[present])")
        note = present_note(copy, args.language)
        command = present_command(copy, extra, args.language)
    else:
        module, name = APPS[args.mode]
        if find_spec(module) is None:
            sys.exit(f"{name} is not installed: `make {args.mode}` installs it "
                     "(pip install -r requirements.txt)")
        command = lab_command(copy, extra, app=module)
        note = (f"Starting {name} on {copy}/ (your copy; notebooks/ stays as committed): "
                "open the URL it prints. Offline model unless ANTHROPIC_API_KEY is set.\n"
                + languages_note(copy))
    print(note, flush=True)
    os.execve(command[0], command, server_env(copy))


if __name__ == "__main__":
    main()
