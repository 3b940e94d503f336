"""`make lab`, `make notebook` and `make present` serve a git-ignored working copy, refreshed without
losing edits, never stopped by a damaged file (served, in a browser: tests/browser/test_served_copy.py)."""

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from chinese import write_chinese
from repo_copy import snapshot

from tools import lab_server
from tools.lab_server import MANIFEST, server_env, sync

REPO = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent


@pytest.fixture
def folders(tmp_path):
    source = tmp_path / "notebooks"
    shutil.copytree(REPO / "notebooks", source)
    return source, tmp_path / "my-notebooks"


@pytest.fixture
def synced(folders):
    sync(*folders)
    return folders


def edit(path: Path, change) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    change(nb)
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def add_outputs(nb):                      # what running and saving in JupyterLab does
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n"]}]
            cell["execution_count"] = 1
    nb["metadata"]["widgets"] = {"state": {}}


def append_cell(path: Path, text: str = "upstream news") -> bytes:
    edit(path, lambda nb: nb["cells"].append({"cell_type": "markdown", "id": "x", "metadata": {},
                                              "source": [text]}))
    return path.read_bytes()


def test_sync_copies_every_notebook_then_only_upstream_changes(folders):
    """Outputs are not edits; changed and new notebooks arrive, removed ones stay; no notebooks is a
    clear error, and a committed notebook that is not JSON is skipped."""
    source, copy = folders
    (source / "01_tool_result_budget.ipynb").write_text("not json", encoding="utf-8")
    report = sync(source, copy)
    assert report.pop("01_tool_result_budget.ipynb").startswith("skipped: the committed")
    assert not (copy / "01_tool_result_budget.ipynb").exists()
    committed = {p.relative_to(source).as_posix() for p in source.glob("*.ipynb")} | \
        {f"zh/{p.name}" for p in source.glob("zh/*.ipynb")}
    assert set(report) == committed - {"01_tool_result_budget.ipynb"} and set(report.values()) == {"new"}
    assert all((copy / name).read_bytes() == (source / name).read_bytes() for name in report)
    again = sync(source, copy)
    assert set(json.loads((copy / MANIFEST).read_text())) == set(report)     # zh/ ones too
    assert again.pop("01_tool_result_budget.ipynb").startswith("skipped")
    assert set(again.values()) == {"unchanged"}
    edit(copy / "06_lab.ipynb", add_outputs)
    assert sync(source, copy)["06_lab.ipynb"] == "unchanged"       # nothing new upstream
    assert "ran" in (copy / "06_lab.ipynb").read_text()
    append_cell(source / "06_lab.ipynb")
    assert sync(source, copy)["06_lab.ipynb"] == "updated"
    assert (copy / "06_lab.ipynb").read_bytes() == (source / "06_lab.ipynb").read_bytes()
    shutil.copy(source / "02_snip_compact.ipynb", source / "08_new.ipynb")    # a new notebook
    (source / "02_snip_compact.ipynb").unlink()                              # and a removed one
    assert sync(source, copy)["08_new.ipynb"] == "new" and (copy / "02_snip_compact.ipynb").exists()
    with pytest.raises(FileNotFoundError, match="no notebooks in"):
        sync(copy.parent, copy.parent / "elsewhere")      # a folder without notebooks


@pytest.mark.parametrize("name", ["03_micro_compact.ipynb", "zh/03_micro_compact.ipynb"])
@pytest.mark.parametrize("change, said", [
    (lambda path: append_cell(path, "my own note"), "kept: you edited it"),
    (lambda path: path.write_text('{"cells": [{"cell_type": "code", "sou', encoding="utf-8"),   # cut off
     "skipped: not valid notebook JSON"),
], ids=["edited", "not-json"])
def test_a_learners_copy_is_kept_until_they_delete_it_and_the_rest_goes_on(synced, change, said, name):
    """The Chinese copies (zh/) are kept like the English ones."""
    source, copy = synced
    change(copy / name)
    mine = (copy / name).read_bytes()
    append_cell(source / name)
    append_cell(source / "05_reactive_and_compact_tool.ipynb")
    report = sync(source, copy)
    assert report[name].startswith(said)
    assert (copy / name).read_bytes() == mine
    assert report["05_reactive_and_compact_tool.ipynb"] == "updated"
    (copy / name).unlink()                                         # what the message says to do
    assert sync(source, copy)[name] == "new"


@pytest.mark.parametrize("damage", ["", '{"00_context_window.ipynb": "3f2a', "[1, 2]", "\udcff"])
def test_a_damaged_manifest_is_reported_and_nothing_of_the_learners_is_lost(synced, damage):
    source, copy = synced
    mine = append_cell(copy / "03_micro_compact.ipynb", "my own note")
    (copy / MANIFEST).write_text(damage, encoding="utf-8", errors="surrogateescape")
    report = sync(source, copy)                          # not a JSONDecodeError
    assert report[MANIFEST].startswith("damaged (") and (copy / "03_micro_compact.ipynb").read_bytes() == mine
    assert report["03_micro_compact.ipynb"].startswith("kept: you edited it")
    assert report["00_context_window.ipynb"] == "unchanged"      # same cells as committed
    assert MANIFEST not in sync(source, copy)                    # rewritten whole
    assert set(json.loads((copy / MANIFEST).read_text())) >= {"00_context_window.ipynb"}


FULL_DISK = """
import resource, signal, sys
from tools.lab_server import sync
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)        # a write past the limit fails (EFBIG)
resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))  # as on a full disk: 64 bytes per file
print(sync(sys.argv[1], sys.argv[2]))
"""


def test_the_manifest_is_written_atomically_a_failed_write_leaves_the_old_one(synced):
    source, copy = synced
    before = (copy / MANIFEST).read_bytes()
    assert len(before) > 64
    done = subprocess.run([sys.executable, "-c", FULL_DISK, str(source), str(copy)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "not saved" in done.stdout, done.stderr      # make lab goes on
    assert (copy / MANIFEST).read_bytes() == before                # not truncated
    assert sorted(p.name for p in copy.iterdir() if p.name.startswith(f"{MANIFEST}.")) == []
    assert set(sync(source, copy).values()) == {"unchanged"}


def test_presenting_a_language_whose_lab_is_not_written_says_what_to_do(tmp_path):
    source = tmp_path / "notebooks"
    shutil.copytree(REPO / "notebooks", source, ignore=shutil.ignore_patterns("zh"))
    done = subprocess.run([sys.executable, "-m", "tools.lab_server", "present", "--language", "zh",
                           "--source", str(source), "--copy", str(tmp_path / "copy")],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "zh/06_lab.ipynb does not exist" in done.stderr
    assert "`make present COMPACT_LANG=en` presents the English lab" in done.stderr


def test_make_translation_reports_what_is_stale_and_missing(tmp_path):
    clone = snapshot(tmp_path / "clone")
    for path in (clone / "notebooks").glob("*.ipynb"):
        if not (clone / "notebooks" / "zh" / path.name).exists():
            write_chinese(clone / "notebooks", path.name)
    make = ["make", "--no-print-directory", f"VENV={VENV}", "-o", f"{VENV}/.suite", "translation"]
    done = subprocess.run(make, cwd=clone, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every Chinese notebook is in step with its English one" in done.stdout
    english = clone / "notebooks" / "02_snip_compact.ipynb"
    edit(english, lambda nb: nb["cells"][0].update(source=nb["cells"][0]["source"] + ["\nA new sentence."]))
    (clone / "notebooks" / "zh" / "05_reactive_and_compact_tool.ipynb").unlink()
    done = subprocess.run(make, cwd=clone, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "02_snip_compact.ipynb: cell 0's English changed since it was translated" in done.stdout
    assert "05_reactive_and_compact_tool.ipynb: no Chinese translation" in done.stdout


def test_the_commands_serve_the_copy_with_settings_that_ask_nothing(tmp_path, monkeypatch):
    """The copy served, Notebook 7, Voilà without code, in Chinese: tests/browser/test_served_copy.py."""
    lab = lab_server.lab_command(tmp_path, ["--no-browser"])
    assert "--ContentsManager.allow_hidden=True" in lab and lab[-1] == "--no-browser"   # .transcripts/
    monkeypatch.delenv("JUPYTERLAB_SETTINGS_DIR", raising=False)
    folder = Path(server_env(tmp_path)["JUPYTERLAB_SETTINGS_DIR"])
    assert folder.is_relative_to(tmp_path.resolve())
    for name, value in lab_server.SEEDED_SETTINGS.items():
        assert json.loads((folder / name).read_text()) == value
    notification = folder / "@jupyterlab/apputils-extension/notification.jupyterlab-settings"
    assert json.loads(notification.read_text())["fetchNews"] == "false"
    notification.write_text('{"fetchNews": "true"}')               # the learner said yes
    server_env(tmp_path)
    assert json.loads(notification.read_text()) == {"fetchNews": "true"}
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "mine"))
    assert server_env(tmp_path)["JUPYTERLAB_SETTINGS_DIR"] == str(tmp_path / "mine")


def test_make_lab_says_how_much_the_runs_hold_and_how_to_clear_them(tmp_path):
    script = ("import sys; from compact.classroom.runs import new_run\n"
              "for _ in range(6): (new_run(sys.argv[1], 'experiment3') / 'x.txt').write_text('x' * 500_000)")
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "runs")], check=True)
    assert lab_server.runs_report(tmp_path) == (
        f"{tmp_path}/runs/: 3 run folder(s), 1.5 MB (closed kernels' runs beyond the newest "
        f"few per experiment are removed; delete {tmp_path}/runs/ to clear it)")


@pytest.mark.slow
def test_installing_the_package_prints_no_warning_box(tmp_path):
    """`pip install -e .` of a fresh clone into a new venv, as `make lab` runs it (with this pip:
    `make` upgrades pip first, and only a recent pip shows the backend's box)."""
    clone = snapshot(tmp_path / "clone")
    venv.create(tmp_path / "venv", with_pip=False)
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(tmp_path / "venv" / "bin" / "python"),
                           "install", "--quiet", "--no-deps", "-e", str(clone)], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    output = done.stdout + done.stderr
    assert "Editable installation" not in output and "*****" not in output, output[-3000:]


def test_the_notebooks_runs_are_git_ignored():
    """The copy and its runs: browser/test_served_copy.py; the book: test_book.py (git status clean)."""
    assert subprocess.run(["git", "check-ignore", "-q", "notebooks/runs/lab/x"], cwd=REPO).returncode == 0
