"""The repository's address lives in one place (pyproject.toml [project.urls] Repository); while
it is unset nothing shows a placeholder link, and the command that prints the links says so."""

import subprocess
import sys
from pathlib import Path

import pytest

from compact.classroom.repository import PYPROJECT, UNSET, links, repository_url, source_link

REPO = Path(__file__).resolve().parent.parent


def test_the_address_is_read_from_pyproject(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "compact"\n[project.urls]\n'
                         'Repository = "https://github.com/acme/compact"\n')
    assert repository_url(pyproject) == "https://github.com/acme/compact"
    pyproject.write_text('[project]\nname = "compact"\n[project.urls]\n# Repository = "..."\n')
    assert repository_url(pyproject) is None
    assert PYPROJECT == REPO / "pyproject.toml"


def test_the_links_built_from_a_github_address():
    made = links("https://github.com/acme/compact.git")
    assert made["Binder"] == "https://mybinder.org/v2/gh/acme/compact/HEAD?urlpath=lab/tree/notebooks/06_lab.ipynb"
    assert made["Colab"] == "https://colab.research.google.com/github/acme/compact/blob/main/notebooks/06_lab.ipynb"
    assert "repo=https%3A%2F%2Fgithub.com%2Facme%2Fcompact.git&branch=main" in made["JupyterHub"]
    assert source_link("https://github.com/acme/compact.git", "compact/loop.py") == \
        "https://github.com/acme/compact/blob/main/compact/loop.py"
    with pytest.raises(ValueError, match="not a https://github.com/<owner>/<name> address"):
        links("git@example.invalid:acme/compact")


def test_while_unset_the_command_says_where_to_set_it():
    if repository_url() is not None:
        pytest.fail("this test describes the unpublished state; with an address set, drop it")
    done = subprocess.run([sys.executable, "-m", "compact.classroom.repository"], capture_output=True,
                          text=True, cwd=REPO, timeout=60)
    assert done.returncode == 1 and done.stderr.strip() == UNSET


def test_no_placeholder_link_in_the_docs():
    for path in [REPO / "README.md", REPO / "SECURITY.md", *sorted((REPO / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        assert "YOUR-ORG" not in text, path
        if repository_url() is None:       # written as instructions, never as a link that fails
            assert "](https://mybinder.org" not in text and "](https://colab.research" not in text, path
