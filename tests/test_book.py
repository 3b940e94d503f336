"""`make book` builds a site you can navigate, from a fresh clone: every notebook executed with its
plots, the documents beside them, an index, previous / next and translations on every page, and no
link to a missing page or anchor. A small two-language book checks the link rewriting."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest
from bs4 import BeautifulSoup
from repo_copy import git, snapshot

from tools import book as book_module
from tools.book import Book, build, plain, read_book, title_of, translation_key

REPO = Path(__file__).resolve().parent.parent
PLOT_CALL = re.compile(r"\bplot_(?:run|context|composition|strategies|cumulative)\w*\(|gallery\(")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


class Page:
    """The links, anchors, navigation and title of one page."""

    def __init__(self, text: str) -> None:
        soup = BeautifulSoup(text, "html.parser")
        self.links = [tag[key] for tag in soup.find_all(True) for key in ("href", "src")
                      if tag.get(key) and (tag.name, key) != ("script", "src")]
        self.ids = {tag["id"] for tag in soup.find_all(id=True)}
        self.nav: dict[str, set[str]] = {}
        for a in soup.find_all("a", rel=True, href=True):
            self.nav.setdefault(" ".join(a["rel"]), set()).add(a["href"])
        self.title = soup.title.get_text() if soup.title else ""


def check_site(site: Path) -> dict[Path, Page]:
    """Follow every local link of every page: the file exists and so does the anchor."""
    pages = {path.resolve(): Page(path.read_text(encoding="utf-8")) for path in site.rglob("*.html")}
    broken = []
    for path, page in pages.items():
        for link in page.links:
            if EXTERNAL.match(link):
                continue
            target, _, anchor = link.partition("#")
            file = (path.parent / unquote(target)).resolve() if target else path
            if not file.is_file():
                broken.append(f"{path.relative_to(site)} → {link}: no such page")
            elif anchor and file in pages and not {anchor, unquote(anchor)} & pages[file].ids:
                broken.append(f"{path.relative_to(site)} → {link}: no such anchor")
    assert broken == [], "\n".join(broken)
    return pages


def check_navigation(site: Path, pages: dict[Path, Page], order: list[str], index: str) -> None:
    """Each page of ``order`` links to the index and to its neighbours (the index at the ends)."""
    chain = [index, *order, index]
    for at, name in enumerate(order, start=1):
        page, here = pages[(site / name).resolve()], (site / name).parent
        resolved = {rel: {(here / href).resolve() for href in hrefs} for rel, hrefs in page.nav.items()}
        assert (site / index).resolve() in resolved["index"], name
        assert (site / chain[at - 1]).resolve() in resolved["prev"], name
        assert (site / chain[at + 1]).resolve() in resolved["next"], name
        assert "`" not in page.title, f"{name}: raw backticks in its title"


def check_translations(site: Path, pages: dict[Path, Page], book: Book) -> int:
    """Every page's bar links to each of its translations (and only those), and the link
    resolves to that page; how many such links there are."""
    count = 0
    for page in book.pages:
        expected = {(site / other.out).resolve() for other in book.pages
                    if other.language != page.language and translation_key(other) == translation_key(page)}
        here = (site / page.out).parent
        links = pages[(site / page.out).resolve()].nav.get("alternate", ())
        shown = {(here / href).resolve() for href in links}
        assert shown == expected, f"{page.out} links to translations {shown}, not {expected}"
        assert all(path in pages for path in shown), page.out
        count += len(shown)
    return count


def test_the_book_of_a_fresh_clone_shows_every_notebook_executed(tmp_path, executed, monkeypatch, capsys):
    """What `make book` builds from a fresh clone, the notebooks as this session executed them
    (conftest's ``executed``); each Chinese page links its English one and back."""
    clone = snapshot(tmp_path / "clone")
    monkeypatch.setattr(book_module, "execute",
                        lambda path, scratch: executed(REPO / path.relative_to(clone)).notebook)
    site = clone / "build" / "book"
    build(site, clone / "notebooks" / "book.json")
    err = capsys.readouterr().err
    assert "link to a missing file" not in err, err
    pages, book = check_site(site), read_book(clone / "notebooks" / "book.json")
    check_navigation(site, pages, [p.out for p in book.sequences["index.html"]], "index.html")
    assert all((clone / p.source).is_file() for p in book.pages)
    chinese = [p.out for p in book.sequences["zh/index.html"]]          # every Chinese notebook
    assert set(chinese[:-1]) == {f"zh/{p.stem}.html" for p in (clone / "notebooks" / "zh").glob("*.ipynb")}
    assert chinese[-1] == "README.zh.html"                                   # notebooks, then the README
    check_navigation(site, pages, chinese, "zh/index.html")
    assert check_translations(site, pages, book) == 2 * len(chinese)         # each way, every Chinese page
    for page in (p for p in book.pages if p.source.endswith(".ipynb")):    # English and Chinese
        shown = (site / page.out).read_text(encoding="utf-8")
        assert shown.count("class=\"jp-OutputArea-child") >= 1, f"{page.source} shows no outputs"
        crash = "Traceback (most recent call last)"      # (pygments CSS names Generic.Traceback)
        assert crash not in shown, shown[shown.index(crash) - 1500:][:3000]
        nb = nbformat.read(clone / page.source, as_version=4)
        if PLOT_CALL.search("\n".join(c.source for c in nb.cells if c.cell_type == "code")):
            assert 'src="data:image/png;base64,' in shown, f"{page.source} plots, its page shows none"
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "`" not in Page(index).title
    for path in sorted((clone / "notebooks").glob("*.ipynb")):
        assert f"href='{path.stem}.html'" in index
        assert plain(title_of(nbformat.read(path, as_version=4), "")) in re.sub(r"<[^>]+>", "", index)
        if not (clone / "notebooks" / "zh" / path.name).exists():
            assert f"notebooks/zh/{path.name}: not translated yet" in err
            assert "alternate" not in pages[(site / f"{path.stem}.html").resolve()].nav
    assert "<code>" in index and "`" not in re.sub(r"<[^>]+>", "", index)    # titles rendered
    lab = (site / "06_lab.html").read_text(encoding="utf-8")
    assert lab.count('src="data:image/png;base64,') >= 4          # the gallery: every experiment
    assert "The lab's dashboard appears here when this cell runs" in lab             # not a VBox(...) repr
    readme = (site / "README.html").read_text(encoding="utf-8")
    assert 'href="docs/running.html"' in readme and 'href="00_context_window.html"' not in readme
    alternates = {"06_lab.html": "zh/06_lab.html", "zh/06_lab.html": "../06_lab.html", "index.html":
                  "zh/index.html", "README.html": "README.zh.html", "README.zh.html": "README.html"}
    for page, other in alternates.items():
        assert pages[(site / page).resolve()].nav["alternate"] == {other}, page
    assert pages[(site / "zh" / "06_lab.html").resolve()].nav["index"] == {"index.html"}
    first = (site / "zh" / "00_context_window.html").read_text(encoding="utf-8")
    assert 'href="../00_context_window.html"' in first and '<html lang="zh"' in first
    assert "目录" in first and "← 目录" in first                            # its bar in Chinese
    index = (site / "zh" / "index.html").read_text(encoding="utf-8")
    assert "<html lang='zh'>" in index and "各个 notebook（按顺序）" in index and "The notebooks" not in index
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""


def notebook(path: Path, *cells: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) if c.startswith("print") else nbformat.v4.new_markdown_cell(c)
                for c in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


@pytest.fixture
def small_repo(tmp_path):
    """Two notebooks in English and their Chinese translations, a README and one docs page."""
    root = tmp_path / "repo"
    notebook(root / "notebooks" / "01_a.ipynb", "# 01 · Stage `a`\n\nNext: [02](02_b.ipynb), "
             "the [glossary](../README.md#glossary), the [code](../pkg/code.py).", "print(1)")
    notebook(root / "notebooks" / "02_b.ipynb", "# 02 · Stage b\n\nBack to [01](01_a.ipynb#01--stage-a).")
    notebook(root / "notebooks" / "zh" / "01_a.ipynb", "# 01 · 阶段 `a`\n\n下一页：[02](02_b.ipynb)")
    notebook(root / "notebooks" / "zh" / "02_b.ipynb", "# 02 · 阶段 b")
    (root / "README.md").write_text("# Small\n\nRead [the notebooks](notebooks/01_a.ipynb) and "
                                    "[more](docs/more.md).\n\n## Glossary\n\nwords\n", encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "more.md").write_text("# More\n\nBack to the [README](../README.md).\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "code.py").write_text("x = 1\n")
    pages = ["01_a.ipynb", "02_b.ipynb"]
    (root / "notebooks" / "book.json").write_text(json.dumps({
        "root": "..", "title": "Small `book`", "intro": "Two pages.",
        "languages": [{"code": "en", "name": "English", "folder": "notebooks", "out": "", "pages": pages},
                      {"code": "zh", "name": "中文", "folder": "notebooks/zh", "out": "zh", "pages": pages}],
        "documents": ["README.md", "docs/more.md"]}), encoding="utf-8")
    return root


def test_a_second_language_is_data_and_links_go_to_pages_anchors_and_files(small_repo, tmp_path):
    site = tmp_path / "site"
    build(site, small_repo / "notebooks" / "book.json", run=False)
    pages = check_site(site)        # the English navigation and translations: the fresh clone's book
    check_navigation(site, pages, ["zh/01_a.html", "zh/02_b.html"], "zh/index.html")   # listed "pages"
    first = (site / "01_a.html").read_text(encoding="utf-8")
    assert 'href="02_b.html"' in first and 'href="README.html#glossary"' in first
    assert "<span class=\"repo-file\" title=\"pkg/code.py in the repository\">code</span>" in first
    assert 'href="01_a.html#01--stage-a"' in (site / "02_b.html").read_text(encoding="utf-8")
    assert 'href="../README.html"' in (site / "docs" / "more.html").read_text(encoding="utf-8")
    assert pages[(site / "01_a.html").resolve()].title == "01 · Stage a"


def test_with_an_address_files_link_to_the_repository_and_a_missing_one_is_reported(
        small_repo, tmp_path, capsys):
    (small_repo / "pyproject.toml").write_text('[project]\nname = "small"\n[project.urls]\n'
                                               'Repository = "https://github.com/acme/small"\n')
    notebook(small_repo / "notebooks" / "02_b.ipynb", "# 02 · Stage b\n\nSee [gone](03_gone.ipynb).")
    build(tmp_path / "site", small_repo / "notebooks" / "book.json", run=False)
    first = (tmp_path / "site" / "01_a.html").read_text(encoding="utf-8")
    assert 'href="https://github.com/acme/small/blob/main/pkg/code.py"' in first
    assert "notebooks/02_b.ipynb: link to a missing file: 03_gone.ipynb" in capsys.readouterr().err
    with pytest.raises(AssertionError, match="03_gone.ipynb: no such page"):
        check_site(tmp_path / "site")
