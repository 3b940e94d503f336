"""The README and docs/ quote only figures that come from the code or a generated file: every number
they write is a figure of `docs/generated/` (facts.json is checked in tests/test_figure_layout.py, the
strategy table of bench.md here, its timings aside), a count below 10, or one of the few non-figures
below (so no page quotes a test count); the READMEs stay short, and README.zh.md is the README in
Chinese: linked both ways, the same two commands, sections, links and notebooks, the lesson's
three prompts verbatim."""

from __future__ import annotations

import base64
import json
import re
import tempfile
from pathlib import Path

import nbformat
import pytest
from browser.screenshots import LABELS, palette_png

from compact import texts
from compact.classroom.experiments import PROMPTS_ZH, run_experiment
from compact.classroom.show import describe_event
from compact.classroom.strategy_tables import table
from compact.study.strategies import STRATEGIES, run_session

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "docs" / "generated"
PAGES = [REPO / "README.md", REPO / "README.zh.md", *sorted((REPO / "docs").glob("*.md"))]
# ASCII word characters only: a number written against Chinese text (第 3 轮, 271,716字符) is still seen.
NUMBER = re.compile(r"(?<![\w.@/#=-])\d[\d,_]*(?:\.\d+)?%?(?![\w])", re.ASCII)
LINK_TARGET = re.compile(r"\]\([^)]*\)|https?://\S+")
# Numbers that are not figures: versions, dates of cited publications, a screen size.
NOT_FIGURES = {"3.10", "3.11", "2.14", "2025", "1280", "720", "84%"}
README = (REPO / "README.md").read_text(encoding="utf-8")
README_ZH = (REPO / "README.zh.md").read_text(encoding="utf-8")
LOCAL_LINK = re.compile(r"\]\((?![a-z]+:)([^)#\s]+)(#[^)\s]*)?\)")
COMMAND_ROW = re.compile(r"^\|[^|\n]+\| `(make [a-z]+)` \|$", re.M)


def numbers_in(text: str) -> list[str]:
    """The numbers a page writes, outside link targets (a test count too: none is generated)."""
    text = LINK_TARGET.sub("", text)
    return [m.group(0).rstrip(",") for m in NUMBER.finditer(text)]


def normal(number: str) -> str:
    return number.replace(",", "").replace("_", "").rstrip("%")


def known_figures() -> set[str]:
    facts = json.loads((GENERATED / "facts.json").read_text(encoding="utf-8"))
    known = {str(v) for v in facts.values() if isinstance(v, int)}
    for page in GENERATED.glob("*.md"):
        known |= {normal(n) for n in numbers_in(page.read_text(encoding="utf-8"))}
    return known


def test_the_readmes_are_read_in_two_minutes():
    assert len(README.splitlines()) <= 200 and len(README.split()) <= 2_000
    assert len(README_ZH.splitlines()) <= 200 and len(README_ZH) <= 2 * len(README)


@pytest.mark.parametrize("name", ["screenshot.json", "screenshot.zh.json"])
def test_the_screenshots_show_what_the_code_gives_now(tmp_path, monkeypatch, name):
    shown = json.loads((GENERATED / name).read_text(encoding="utf-8"))
    monkeypatch.setattr(texts, "_chosen", [])
    texts.language(shown["language"])
    result = run_experiment(shown["experiment"], workdir=tmp_path / "run")
    lines = [texts.say("lab.event", turn=t.turn, event=describe_event(e))
             for t in result.trace.turns for e in t.events if e.fired]
    assert shown["stage_events"] == lines, f"docs/img/{shown['image']} is stale: run `make screenshots`"
    notebook = nbformat.read(REPO / LABELS[shown["language"]][0] / "06_lab.ipynb", as_version=4)
    attached = next(c.attachments["lab.png"]["image/png"] for c in notebook.cells if c.get("attachments"))
    assert base64.b64decode(attached) == palette_png(REPO / "docs" / "img" / shown["image"]), \
        "notebook 06's screenshot is not docs/img's: run `make screenshots`"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_number_quoted_is_a_generated_figure(page):
    known = known_figures() | {normal(n) for n in NOT_FIGURES}
    unknown = [n for n in numbers_in(page.read_text(encoding="utf-8")) if normal(n) not in known
               and not (n.isdigit() and int(n) < 10)]
    assert unknown == [], (f"{page.name} quotes figures no generated file holds: {unknown} "
                           "(run `make figures` / `make bench`, or quote what they wrote)")


@pytest.mark.slow
def test_the_strategy_table_in_the_bench_page_is_what_the_code_computes_now():
    with tempfile.TemporaryDirectory() as scratch:
        reports = [run_session(s, Path(scratch) / s.name.replace(" ", "-")) for s in STRATEGIES]
    fresh = table(reports)
    assert fresh in (GENERATED / "bench.md").read_text(encoding="utf-8"), \
        "the strategy table in docs/generated/bench.md is stale: run `make bench`"


def test_the_number_scanner_sees_what_it_must():
    assert numbers_in("75,353 → 3,129 chars, 93.8% of 50_000; s08, 06_lab, UTF-8, zh@v7, [x](a-12.md)") == \
        ["75,353", "3,129", "93.8%", "50_000"]
    assert numbers_in("第3轮：75,027字符 → 3,991 字符，保留最近5条") == ["3", "75,027", "3,991", "5"]
    assert numbers_in("1,511 tests pass") == ["1,511"]           # a test count is a figure like any


def links(text: str) -> set[str]:
    return {target + (anchor or "") for target, anchor in LOCAL_LINK.findall(text)}


def section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_readme_zh_is_the_readme_commands_links_sections_notebooks_and_prompts():
    english = COMMAND_ROW.findall(section(README, "## Two commands"))
    assert english == ["make lab", "make test"]
    assert COMMAND_ROW.findall(section(README_ZH, "## 两条命令")) == english
    assert "English · [中文](README.zh.md)" in README.splitlines()[:5]
    assert "[English](README.md) · 中文" in README_ZH.splitlines()[:5]
    assert README_ZH.count("\n## ") == README.count("\n## ")
    same_picture = README_ZH.replace("docs/img/lab.zh.png", "docs/img/lab.png")   # the lab in Chinese
    assert links(same_picture) - {"README.md"} == links(README) - {"README.zh.md"}
    for target in links(README_ZH):
        assert (REPO / target.partition("#")[0]).exists(), target
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        assert f"`{path.stem}`" in section(README_ZH, "## 各个 notebook（按顺序）"), path.name
    experiments = section(README_ZH, "## 三个实验")
    for n, prompt in PROMPTS_ZH.items():
        assert prompt in experiments, f"experiment {n}'s prompt is not the lesson's"
    for name in ("第一步", "第二步", "第三步", "第四步"):
        assert name in README_ZH
