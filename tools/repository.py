"""The repository's public address, written in one place: ``Repository`` under ``[project.urls]``
in ``pyproject.toml``.

Until it is set (the project is not published yet), a notebook opened outside the repository
says what to do instead of cloning a placeholder, and the Binder, Colab and JupyterHub links
are written as instructions, not shown as links that would not work. Once it is set,
``python -m tools.repository`` prints the links, ``python -m tools.setup_cell notebooks/``
writes the address into every notebook's set-up cell, and ``make book`` links source files to it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import quote

if sys.version_info >= (3, 11):
    import tomllib
else:                                          # Python 3.10: the same parser, from the registry
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
GITHUB = re.compile(r"^https://github\.com/(?P<slug>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")
UNSET = ("the repository's address is not set: add `Repository = \"https://github.com/<owner>/<name>\"` "
         "under [project.urls] in pyproject.toml")


def repository_url(pyproject: Path = PYPROJECT) -> str | None:
    """The address from ``pyproject.toml``; None while it is unset (or there is no such file)."""
    if not pyproject.is_file():
        return None
    urls = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("urls", {})
    return urls.get("Repository") or None


def links(url: str, notebook: str = "notebooks/06_lab.ipynb", branch: str = "main") -> dict[str, str]:
    """Where the suite runs from a GitHub address: Binder, Colab and a JupyterHub nbgitpuller
    link (its hub part is the reader's own)."""
    match = GITHUB.match(url)
    if match is None:
        raise ValueError(f"{url!r} is not a https://github.com/<owner>/<name> address")
    slug, name = match["slug"], match["slug"].split("/")[1]
    return {
        "Binder": f"https://mybinder.org/v2/gh/{slug}/HEAD?urlpath=lab/tree/{notebook}",
        "Colab": f"https://colab.research.google.com/github/{slug}/blob/{branch}/{notebook}",
        "JupyterHub": (f"https://<your-hub>/hub/user-redirect/git-pull?repo={quote(url, safe='')}"
                       f"&branch={branch}&urlpath={quote(f'lab/tree/{name}/{notebook}', safe='')}"),
    }


def source_link(url: str, path: str, branch: str = "main") -> str:
    """A file of the repository, as its host shows it."""
    return f"{url.rstrip('/').removesuffix('.git')}/blob/{branch}/{path}"


def main() -> int:
    url = repository_url()
    if url is None:
        print(UNSET, file=sys.stderr)
        return 1
    for where, link in links(url).items():
        print(f"{where}: {link}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
