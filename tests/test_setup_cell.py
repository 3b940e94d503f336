"""Every notebook opens with the same quiet set-up cell, put there by an idempotent script. The
repository's address lives in pyproject.toml alone; while it is unset, nothing links to it."""

import json
import subprocess
import sys

import nbformat
import pytest
from test_notebooks import ALL, NOTEBOOK_DIR

from tools.repository import PYPROJECT, UNSET, links, repository_url
from tools.setup_cell import CELL, MARKER, cell, cell_source, main, refresh, with_setup_cell

REPO = NOTEBOOK_DIR.parent


@ALL
def test_the_first_code_cell_is_the_canonical_set_up_cell(path):
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    canonical = {"source": CELL, **{k: v for k, v in cell().items() if k in ("id", "metadata")}}
    assert first is nb.cells[1] and {k: first[k] for k in canonical} == canonical, \
        f"{path}: run `python -m tools.setup_cell {path.parent.relative_to(REPO)}`"
    assert sum(MARKER in c.source for c in nb.cells) == 1
    assert "YOUR-ORG" not in path.read_text(encoding="utf-8")


def test_the_cell_is_quiet_and_does_nothing_where_the_package_imports(tmp_path):
    """Collapsed (a Colab form shows its title line only); run here: no install, output or error."""
    assert cell()["metadata"] == {"cellView": "form", "jupyter": {"source_hidden": True}}
    assert CELL.splitlines()[0].startswith(MARKER) and "does nothing" in CELL.splitlines()[0]
    done = subprocess.run([sys.executable, "-c", CELL], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and list(tmp_path.iterdir()) == []


def test_a_lone_notebook_installs_from_the_address_and_without_one_says_what_to_do(tmp_path):
    source = cell_source("https://github.com/acme/compact")
    assert '"COMPACT_REPO_URL", "https://github.com/acme/compact"' in source
    assert 'f"compact[lab] @ git+{url}"' in source and '["-e", f"{repo}[lab]"]' in source
    done = subprocess.run([sys.executable, "-S", "-c", cell_source(None)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode != 0
    assert ("not in its repository: open it from a clone of the repository, or set COMPACT_REPO_URL"
            in done.stderr)
    assert list(tmp_path.iterdir()) == []


def notebook(*cells):
    return json.loads(nbformat.writes(nbformat.v4.new_notebook(cells=list(cells))))


def test_refresh_inserts_once_moves_a_stray_copy_and_rewrites_only_on_change(tmp_path, capsys):
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
    untitled = with_setup_cell(notebook(nbformat.v4.new_code_cell("x = 1")))
    assert "".join(untitled["cells"][0]["source"]) == CELL           # no title: the cell comes first
    assert main([str(tmp_path / "empty")]) == 1 and "no notebooks" in capsys.readouterr().err


def test_the_address_is_read_from_pyproject_and_the_links_built_from_it(tmp_path):
    """Set, it makes the book's links to files: test_book.py::test_with_an_address_files_link_..."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "compact"\n[project.urls]\n# Repository = "..."\n')
    assert repository_url(pyproject) is None
    assert repository_url(tmp_path / "absent.toml") is None and PYPROJECT == REPO / "pyproject.toml"
    made = links("https://github.com/acme/compact.git")
    assert made["Binder"] == "https://mybinder.org/v2/gh/acme/compact/HEAD?urlpath=lab/tree/notebooks/06_lab.ipynb"
    assert made["Colab"] == "https://colab.research.google.com/github/acme/compact/blob/main/notebooks/06_lab.ipynb"
    assert "repo=https%3A%2F%2Fgithub.com%2Facme%2Fcompact.git&branch=main" in made["JupyterHub"]
    with pytest.raises(ValueError, match="not a https://github.com/<owner>/<name> address"):
        links("git@example.invalid:acme/compact")


def test_while_unset_no_page_shows_a_link_and_the_command_says_where_to_set_it():
    assert repository_url() is None, "this test describes the unpublished state; with an address set, drop it"
    done = subprocess.run([sys.executable, "-m", "tools.repository"], capture_output=True,
                          text=True, cwd=REPO, timeout=60)
    assert done.returncode == 1 and done.stderr.strip() == UNSET
    for path in [REPO / "README.md", REPO / "SECURITY.md", *sorted((REPO / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")     # written as instructions, never as a link that fails
        assert "YOUR-ORG" not in text, path
        assert "](https://mybinder.org" not in text and "](https://colab.research" not in text, path
