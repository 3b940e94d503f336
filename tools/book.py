"""``make book``: a static site of the executed notebooks and the project's documents, to read
without running anything (publish the folder as it is, e.g. on GitHub Pages).

What the book holds, and in which order, is data: ``notebooks/book.json`` lists the notebooks of
each language and the documents (README, docs/). A language may list its pages or translate
another's (``"translates": "en"``: those of the English pages that exist in its folder, so the
book holds whichever translations are written), and may have documents, title, intro and the
words of its index and bar of its own. A page's translation is the page of the same file name in
another language, a language code before the suffix aside (``README.zh.md`` translates
``README.md``). Each notebook is executed offline with nbclient in a scratch folder (its run
folders land there, not beside the notebooks) and exported with nbconvert's HTML exporter,
images embedded; a document is exported the same way, as one Markdown cell. Then every page gets
a bar linking the index, the previous and the next page (and its translation), and its links are
rewritten: a notebook or document of the book becomes its page, any other file of the repository
its address there (``repository.py``) or plain text while that is unset. Widgets are live only
with a kernel, so the lab's page shows its static gallery: the same figures, drawn by the same
functions. nbconvert works offline with what the suite already installs; Jupyter Book 2 / mystmd
would add Node and a site theme to the set-up.
"""

from __future__ import annotations

import html
import json
import os
import posixpath
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import zmq
from bs4 import BeautifulSoup
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from traitlets.config import Config

from .repository import repository_url, source_link

BOOK = Path("notebooks") / "book.json"
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)      # https:, mailto:, data:, ...
NAV_STYLE = ("font-family:sans-serif;display:flex;gap:1.5em;justify-content:space-between;"
             "max-width:60em;margin:0.8em auto;padding:0.4em 1em;border:1px solid #ddd;border-radius:4px")


@dataclass(frozen=True)
class Page:
    source: str          # the file, relative to the repository
    out: str             # its page, relative to the book
    title: str           # Markdown, as the file's first heading writes it
    language: str


# The words of an index and of a page's bar, in English; a language of book.json may give its own.
WORDS = {"notebooks": "The notebooks, in order", "documents": "Documents", "index": "Index",
         "the index": "the index"}


@dataclass
class Book:
    title: str
    intro: str
    root: Path                                            # the repository
    languages: dict[str, str] = field(default_factory=dict)       # code → name, in order
    sequences: dict[str, list[Page]] = field(default_factory=dict)  # index page → its pages
    words: dict[str, dict[str, str]] = field(default_factory=dict)  # code → title, intro, WORDS
    missing: list[str] = field(default_factory=list)     # translations not written yet

    @property
    def pages(self) -> list[Page]:
        return [page for pages in self.sequences.values() for page in pages]

    def say(self, language: str, key: str) -> str:
        return self.words.get(language, {}).get(key) or {"title": self.title, "intro": self.intro,
                                                         **WORDS}[key]


def translation_key(page: Page) -> str:
    """What a page and its translations share: the file name, a language code before the
    suffix aside (``README.zh.md`` → ``README.md``)."""
    name = Path(page.source).name
    return name.replace(f".{page.language}.", ".", 1) if name.count(".") > 1 else name


def title_of(nb: nbformat.NotebookNode, fallback: str) -> str:
    """The notebook's title as Markdown: the first line of its first (Markdown) cell."""
    first = nb.cells[0].source if nb.cells and nb.cells[0].cell_type == "markdown" else ""
    line = first.splitlines()[0] if first else ""
    return line.lstrip("# ").strip() or fallback


def markdown_title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def inline_html(markdown: str) -> str:
    """A title's Markdown as inline HTML (``code`` rendered, never raw backticks)."""
    paragraph = BeautifulSoup(markdown2html_mistune(markdown), "html.parser")
    inner = paragraph.p or paragraph
    return "".join(str(node) for node in inner.contents).strip()


def plain(markdown: str) -> str:
    return BeautifulSoup(inline_html(markdown), "html.parser").get_text()


def language_pages(language: dict, listed: dict[str, list[str]], root: Path) -> tuple[list[str], list[str]]:
    """A language's notebooks (file names) and, for one that translates another, the names of
    the other's notebooks it has no file for yet."""
    if "pages" in language:
        return language["pages"], []
    names = listed[language["translates"]]
    present = [name for name in names if (root / language["folder"] / name).is_file()]
    return present, [name for name in names if name not in present]


def read_book(path: str | Path = BOOK) -> Book:
    """The book as ``book.json`` lays it out (paths in it are relative to the repository)."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    root = (path.parent / data.get("root", "..")).resolve()
    book, listed = Book(data["title"], data["intro"], root), {}
    for at, language in enumerate(data["languages"]):
        code, folder, out = language["code"], language["folder"], language.get("out", "")
        book.languages[code] = language["name"]
        book.words[code] = {**language.get("words", {}),
                            **{k: language[k] for k in ("title", "intro") if k in language}}
        names, missing = language_pages(language, listed, root)
        listed[code] = names
        book.missing += [posixpath.join(folder, name) for name in missing]
        pages = []
        for name in names:
            nb = nbformat.read(root / folder / name, as_version=4)
            pages.append(Page(posixpath.join(folder, name),
                              posixpath.join(out, Path(name).with_suffix(".html").as_posix()),
                              title_of(nb, Path(name).stem), code))
        documents = language.get("documents", data.get("documents", []) if at == 0 else [])
        pages += [Page(doc, Path(doc).with_suffix(".html").as_posix(), markdown_title(root / doc), code)
                  for doc in documents]
        index = posixpath.join(out, "index.html")
        book.sequences[index] = book.sequences.get(index, []) + pages
    return book


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading (what links like ``README.md#glossary`` use)."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def add_github_anchors(soup: BeautifulSoup) -> None:
    for heading in soup.find_all(re.compile(r"^h[1-6]$")):
        text = "".join(t for t in heading.find_all(string=True)
                       if not (t.parent.name == "a" and "anchor-link" in t.parent.get("class", [])))
        slug = github_slug(text)
        if slug and heading.get("id") != slug and not soup.find(id=slug):
            heading.insert(0, soup.new_tag("span", id=slug))


def rewrite_links(soup: BeautifulSoup, page: Page, book: Book, url: str | None) -> list[str]:
    """Point every local link of a page at the book's page for it, the repository's address of
    the file, or (unset address) plain text; the links to files that do not exist."""
    targets = {p.source: p.out for p in book.pages}
    here, broken = posixpath.dirname(page.source), []
    for link in soup.find_all("a", href=True):
        href = link["href"]
        if EXTERNAL.match(href) or href.startswith("#"):
            continue
        path, _, fragment = href.partition("#")
        target = posixpath.normpath(posixpath.join(here, path))
        if target in targets:
            new = posixpath.relpath(targets[target], posixpath.dirname(page.out) or ".")
            link["href"] = new + (f"#{fragment}" if fragment else "")
        elif not target.startswith("..") and (book.root / target).exists():
            if url:
                link["href"] = source_link(url, target)
            else:
                link.name, link.attrs = "span", {"class": "repo-file", "title": f"{target} in the repository"}
        else:
            broken.append(href)
    return broken


def nav_bar(soup: BeautifulSoup, page: Page, book: Book, index: str) -> BeautifulSoup:
    """Previous · index · next (the index at either end), and the page's translations."""
    pages = book.sequences[index]
    at = pages.index(page)
    here = posixpath.dirname(page.out) or "."
    prev_out = pages[at - 1].out if at > 0 else index
    next_out = pages[at + 1].out if at + 1 < len(pages) else index
    the_index = book.say(page.language, "the index")
    prev_title = plain(pages[at - 1].title) if at > 0 else the_index
    next_title = plain(pages[at + 1].title) if at + 1 < len(pages) else the_index
    links = [("prev", prev_out, f"← {prev_title}"), ("index", index, book.say(page.language, "index")),
             ("next", next_out, f"{next_title} →")]
    for other in book.pages:
        if other.language != page.language and translation_key(other) == translation_key(page):
            links.append(("alternate", other.out, book.languages[other.language]))
    bar = soup.new_tag("nav", attrs={"class": "book-nav", "style": NAV_STYLE})
    for rel, out, text in links:
        anchor = soup.new_tag("a", href=posixpath.relpath(out, here), rel=rel)
        anchor.string = text
        bar.append(anchor)
    return bar


def finish(body: str, page: Page, book: Book, index: str, url: str | None) -> tuple[str, list[str]]:
    """The exported page with GitHub anchors, rewritten links, a bar at the top and bottom, and
    its language declared (what a browser picks its CJK font by)."""
    soup = BeautifulSoup(body, "html.parser")
    if soup.html:
        soup.html["lang"] = page.language
    add_github_anchors(soup)
    broken = rewrite_links(soup, page, book, url)
    soup.body.insert(0, nav_bar(soup, page, book, index))
    soup.body.append(nav_bar(soup, page, book, index))
    return str(soup), broken


def execute(path: Path, scratch: Path, timeout: int = 600) -> nbformat.NotebookNode:
    """Run the notebook in ``scratch``; the kernel talks over CurveZMQ where pyzmq has it (else
    ipykernel warns, for every notebook, that code and outputs cross the loopback in plain text)."""
    nb = nbformat.read(path, as_version=4)
    config = Config()
    config.KernelManager.transport_encryption = "auto" if zmq.has("curve") else "disabled"
    NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False, config=config,
                   resources={"metadata": {"path": str(scratch)}}).execute()
    return nb


def exported(page: Page, book: Book, scratch: Path, run: bool) -> str:
    """The page's HTML as nbconvert writes it: a notebook executed (``run``), a document as one
    Markdown cell (its images embedded from beside it)."""
    source = book.root / page.source
    if source.suffix == ".ipynb":
        work = scratch / page.out.replace("/", "_")
        work.mkdir()
        nb = execute(source, work) if run else nbformat.read(source, as_version=4)
        for cell in nb.cells:                  # a collapsed cell (the set-up cell) shows no code
            if cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):
                cell.metadata["transient"] = {"remove_source": True}
        folder = work
    else:
        text = source.read_text(encoding="utf-8")
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
        folder = source.parent
    exporter = HTMLExporter(template_name="lab", embed_images=True)
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": plain(page.title),
                                                                      "path": str(folder)}})
    return body


def index_html(book: Book, index: str) -> str:
    """A language's index: its title, its pages in order (titles rendered) and the other
    languages' indexes, in its own words."""
    here = posixpath.dirname(index) or "."
    code = book.sequences[index][0].language if book.sequences[index] else next(iter(book.languages))

    def items(notebooks: bool) -> str:
        return "".join(f"<li><a href='{html.escape(posixpath.relpath(p.out, here))}'>"
                       f"{inline_html(p.title)}</a></li>" for p in book.sequences[index]
                       if p.source.endswith(".ipynb") == notebooks)
    documents = items(False)
    others = " · ".join(f"<a rel='alternate' href='{html.escape(posixpath.relpath(other, here))}'>"
                        f"{html.escape(book.languages[pages[0].language])}</a>"
                        for other, pages in book.sequences.items() if other != index and pages)
    title = book.say(code, "title")
    notebooks, documents_heading = (html.escape(book.say(code, key)) for key in ("notebooks", "documents"))
    return (f"<!DOCTYPE html><html lang='{code}'><head><meta charset='utf-8'>"
            f"<title>{html.escape(plain(title))}</title></head>"
            "<body style='font-family:sans-serif;max-width:50em;margin:2em auto'>"
            f"<h1>{inline_html(title)}</h1><p>{inline_html(book.say(code, 'intro'))}</p>"
            f"<h2>{notebooks}</h2><ol>{items(True)}</ol>"
            f"{f'<h2>{documents_heading}</h2><ul>{documents}</ul>' if documents else ''}"
            f"{f'<p>{others}</p>' if others else ''}</body></html>\n")


def build(out: str | Path, book_path: str | Path = BOOK, run: bool = True) -> list[Path]:
    """Write the book into ``out``: every page and each language's index; the files written.
    Links to files that do not exist are listed on stderr (and left as they are)."""
    book, out = read_book(book_path), Path(out)
    url = repository_url(book.root / "pyproject.toml")
    os.environ.pop("ANTHROPIC_API_KEY", None)       # the book shows the offline runs
    written = []
    for source in book.missing:
        print(f"{source}: not translated yet (its English page links to no translation)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="compact-book-") as scratch:
        for index, pages in book.sequences.items():
            for page in pages:
                started = time.perf_counter()
                body, broken = finish(exported(page, book, Path(scratch), run), page, book, index, url)
                target = out / page.out
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(body, encoding="utf-8")
                written.append(target)
                for href in broken:
                    print(f"{page.source}: link to a missing file: {href}", file=sys.stderr)
                print(f"{target} ({time.perf_counter() - started:.1f} s)", flush=True)
            (out / index).parent.mkdir(parents=True, exist_ok=True)
            (out / index).write_text(index_html(book, index), encoding="utf-8")
            written.append(out / index)
    return written


if __name__ == "__main__":
    args = sys.argv[1:]
    build(args[1] if len(args) > 1 else "build/book", args[0] if args else BOOK)
