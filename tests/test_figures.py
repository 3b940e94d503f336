"""The README's experiment images are what `make figures` draws now (not a stale picture)."""

from pathlib import Path

from PIL import Image, ImageChops

from compact.classroom.figures import write_figures

DOCS = Path(__file__).resolve().parent.parent / "docs" / "img"


def test_readme_figures_are_current(tmp_path):
    for fresh in write_figures(tmp_path):
        committed = Image.open(DOCS / fresh.name).convert("RGB")
        drawn = Image.open(fresh).convert("RGB")
        assert committed.size == drawn.size and ImageChops.difference(committed, drawn).getbbox() is None, \
            f"docs/img/{fresh.name} is stale: run `make figures`"
