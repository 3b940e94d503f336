"""README.zh.md is the README in Chinese: linked both ways with README.md, the same two commands,
the same sections and links, every notebook, the lesson's three prompts verbatim. (Its numbers are
checked with the README's, in tests/test_docs.py.)"""

from __future__ import annotations

import re
from pathlib import Path

from compact.classroom.experiments import PROMPTS_ZH

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
README_ZH = (REPO / "README.zh.md").read_text(encoding="utf-8")
LOCAL_LINK = re.compile(r"\]\((?![a-z]+:)([^)#\s]+)(#[^)\s]*)?\)")
COMMAND_ROW = re.compile(r"^\|[^|\n]+\| `(make [a-z]+)` \|$", re.M)


def links(text: str) -> set[str]:
    return {target + (anchor or "") for target, anchor in LOCAL_LINK.findall(text)}


def section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_its_two_commands_are_the_readmes_two_commands():
    english = COMMAND_ROW.findall(section(README, "## Two commands"))
    chinese = COMMAND_ROW.findall(section(README_ZH, "## 两条命令"))
    assert english == ["make lab", "make test"]
    assert chinese == english


def test_it_links_the_readme_near_the_top_and_has_its_sections_and_links():
    assert "English · [中文](README.zh.md)" in README.splitlines()[:5]
    assert "[English](README.md) · 中文" in README_ZH.splitlines()[:5]
    assert README_ZH.count("\n## ") == README.count("\n## ")
    assert links(README_ZH) - {"README.md"} == links(README) - {"README.zh.md"}
    for target in links(README_ZH):
        assert (REPO / target.partition("#")[0]).exists(), target


def test_it_lists_every_notebook_and_quotes_the_lessons_prompts_verbatim():
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        assert f"`{path.stem}`" in section(README_ZH, "## 各个 notebook（按顺序）"), path.name
    experiments = section(README_ZH, "## 三个实验")
    for n, prompt in PROMPTS_ZH.items():
        assert prompt in experiments, f"experiment {n}'s prompt is not the lesson's"
    for name in ("第一步", "第二步", "第三步", "第四步"):
        assert name in README_ZH


def test_it_stays_short():
    assert len(README_ZH.splitlines()) <= 200
    assert len(README_ZH) <= 2 * len(README)
