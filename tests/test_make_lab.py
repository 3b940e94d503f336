"""`make lab` and `make present` serve a git-ignored working copy, refreshed without losing edits.

The browser test (tests/browser/test_make_lab.py) runs the real `make lab` and checks that
opening, running and saving a notebook leaves `git status` clean; these test the refresh rules.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from compact.classroom.lab_server import MANIFEST, lab_command, present_command, sync

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def folders(tmp_path):
    source = tmp_path / "notebooks"
    shutil.copytree(REPO / "notebooks", source)
    return source, tmp_path / "my-notebooks"


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


def append_cell(text):
    return lambda nb: nb["cells"].append({"cell_type": "markdown", "id": "x", "metadata": {},
                                          "source": [text]})


def test_first_sync_copies_every_notebook(folders):
    source, copy = folders
    report = sync(source, copy)
    assert set(report) == {p.name for p in source.glob("*.ipynb")} and set(report.values()) == {"new"}
    for path in source.glob("*.ipynb"):
        assert (copy / path.name).read_bytes() == path.read_bytes()
    assert set(sync(source, copy).values()) == {"unchanged"}
    assert (copy / MANIFEST).is_file()


def test_outputs_are_not_edits_an_upstream_change_replaces_them(folders):
    source, copy = folders
    sync(source, copy)
    edit(copy / "06_lab.ipynb", add_outputs)
    assert sync(source, copy)["06_lab.ipynb"] == "unchanged"       # nothing new upstream
    assert "ran" in (copy / "06_lab.ipynb").read_text()
    edit(source / "06_lab.ipynb", append_cell("upstream news"))
    assert sync(source, copy)["06_lab.ipynb"] == "updated"
    assert (copy / "06_lab.ipynb").read_bytes() == (source / "06_lab.ipynb").read_bytes()


def test_a_learners_edit_is_never_overwritten(folders):
    source, copy = folders
    sync(source, copy)
    edit(copy / "03_micro_compact.ipynb", append_cell("my own note"))
    mine = (copy / "03_micro_compact.ipynb").read_bytes()
    edit(source / "03_micro_compact.ipynb", append_cell("upstream news"))
    assert sync(source, copy)["03_micro_compact.ipynb"].startswith("kept: you edited it")
    assert (copy / "03_micro_compact.ipynb").read_bytes() == mine
    (copy / "03_micro_compact.ipynb").unlink()                     # what the message says to do
    assert sync(source, copy)["03_micro_compact.ipynb"] == "new"


def test_a_new_upstream_notebook_arrives_and_a_removed_one_stays(folders):
    source, copy = folders
    sync(source, copy)
    shutil.copy(source / "02_snip_compact.ipynb", source / "08_new.ipynb")
    (source / "02_snip_compact.ipynb").unlink()
    report = sync(source, copy)
    assert report["08_new.ipynb"] == "new" and (copy / "02_snip_compact.ipynb").exists()


def test_no_notebooks_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no notebooks in"):
        sync(tmp_path, tmp_path / "copy")


def test_the_commands_serve_the_copy(tmp_path):
    lab = lab_command(tmp_path, ["--no-browser"])
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in lab and lab[-1] == "--no-browser"
    assert "--ContentsManager.allow_hidden=True" in lab      # the runs' .transcripts/ can show
    present = present_command(tmp_path, ["--port=1"])
    assert str(tmp_path.resolve() / "06_lab.ipynb") in present and "--strip_sources=True" in present


@pytest.mark.parametrize("path", ["my-notebooks/06_lab.ipynb", "notebooks/runs/lab/x",
                                  "my-notebooks/runs/lab/x", "build/book/index.html"])
def test_the_copy_runs_and_book_are_git_ignored(path):
    assert subprocess.run(["git", "check-ignore", "-q", path], cwd=REPO).returncode == 0
