"""What the docs show is what `make figures` draws and computes now: every experiment's plot and
stage picture in docs/img/, and docs/generated/facts.json, the figures the README and docs quote
(the experiments are deterministic, so a stale file fails here, with the command to run)."""

from pathlib import Path

from PIL import Image, ImageChops

from compact import STAGES
from tools.figures import write_figures

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_docs_figures_and_facts_are_current(tmp_path):
    written = write_figures(tmp_path / "img", tmp_path / "facts.json")
    assert [p.name for p in written] == ["experiment1.png", "experiment2.png", "experiment3.png",
                                         "baseline.png", *[f"stage-{stage}.png" for stage in STAGES]]
    for fresh in written:
        committed = Image.open(DOCS / "img" / fresh.name).convert("RGB")
        drawn = Image.open(fresh).convert("RGB")
        assert committed.size == drawn.size and ImageChops.difference(committed, drawn).getbbox() is None, \
            f"docs/img/{fresh.name} is stale: run `make figures`"
    fresh = (tmp_path / "facts.json").read_text(encoding="utf-8")
    assert (DOCS / "generated" / "facts.json").read_text(encoding="utf-8") == fresh, \
        "docs/generated/facts.json is stale: run `make figures`"
