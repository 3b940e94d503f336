"""Every notebook opens with the same quiet set-up cell (collapsed, one line saying what it does);
the script that puts it there is idempotent; opened alone with no address set, it says what to do."""

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from compact.classroom.setup_cell import CELL, MARKER, cell_source, main, refresh, with_setup_cell

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_code_cell_is_the_canonical_set_up_cell(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[1].cell_type == "code" and nb.cells[1].source == CELL, \
        f"{path.name}: run `python -m compact.classroom.setup_cell notebooks/`"
    assert sum(MARKER in c.source for c in nb.cells) == 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_first_code_cell_is_quiet(path):
    """At most 3 visible lines, or collapsed, with its first line saying what it does."""
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    collapsed = first.metadata.get("jupyter", {}).get("source_hidden") is True
    assert collapsed or len(first.source.splitlines()) <= 3
    assert first.source.splitlines()[0].startswith(MARKER) and "does nothing" in first.source.splitlines()[0]
    assert first.metadata.get("cellView") == "form"          # Colab shows the title line only


def test_no_placeholder_address_anywhere_in_the_notebooks():
    for path in NOTEBOOKS:
        assert "YOUR-ORG" not in path.read_text(encoding="utf-8"), path.name


def test_a_notebook_opened_alone_without_an_address_says_what_to_do(tmp_path):
    """No package, no repository above it, no address: a clear message, nothing cloned."""
    done = subprocess.run([sys.executable, "-S", "-c", cell_source(None)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode != 0
    assert ("not in its repository: open it from a clone of the repository, or set COMPACT_REPO_URL"
            in done.stderr)
    assert list(tmp_path.iterdir()) == []


def test_the_address_once_set_is_what_a_lone_notebook_installs_from():
    source = cell_source("https://github.com/acme/compact")
    assert '"COMPACT_REPO_URL", "https://github.com/acme/compact"' in source
    assert 'f"compact[lab] @ git+{url}"' in source and '["-e", f"{repo}[lab]"]' in source


def notebook(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return json.loads(nbformat.writes(nb))


def test_refresh_inserts_once_moves_a_stray_copy_and_rewrites_only_on_change(tmp_path):
    path = tmp_path / "n.ipynb"
    title = nbformat.v4.new_markdown_cell("# Title")
    body = nbformat.v4.new_code_cell("x = 1")
    stale = nbformat.v4.new_code_cell("# Set-up: installs the compact package (older)\nprint('old')")
    path.write_text(json.dumps(notebook(title, body, stale)), encoding="utf-8")
    assert refresh(path) is True
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert ["".join(c["source"]) for c in cells] == ["# Title", CELL, "x = 1"]
    stamp = path.stat().st_mtime_ns
    assert refresh(path) is False and path.stat().st_mtime_ns == stamp


def test_a_notebook_without_a_title_gets_the_cell_first():
    nb = with_setup_cell(notebook(nbformat.v4.new_code_cell("x = 1")))
    assert "".join(nb["cells"][0]["source"]) == CELL


def test_main_reports_an_empty_folder(tmp_path, capsys):
    assert main([str(tmp_path)]) == 1
    assert "no notebooks" in capsys.readouterr().err


def test_the_cell_does_nothing_where_the_package_imports(tmp_path):
    """Run as a script in this environment: no install, no clone, no output, no error."""
    done = subprocess.run([sys.executable, "-c", CELL], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and list(tmp_path.iterdir()) == []
