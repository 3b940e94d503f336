"""Chinese glyphs in every plot, from pip alone: the Noto Sans CJK font the ``noto-cjk-sans-otc``
package carries (SIL Open Font License) is registered with matplotlib when a plotting module is
imported, behind DejaVu Sans, so Latin text looks as before and CJK text never draws as boxes
(Colab and Binder have no system CJK font)."""

from __future__ import annotations

import matplotlib
import noto_cjk_sans_otc
from matplotlib import font_manager

CJK_FAMILY = "Noto Sans CJK SC"          # the simplified-Chinese face of the collection
FAMILIES = ["DejaVu Sans", CJK_FAMILY]
# A monospace text (a path in a picture) names both faces itself: matplotlib takes only the first
# font of the generic "monospace" family, so a CJK character after it would draw as a box.
MONOSPACE = ["DejaVu Sans Mono", CJK_FAMILY]


def register_cjk() -> list[str]:
    """Add the font (once) and make it the fallback of the default family; return the families."""
    if not any(f.name == CJK_FAMILY for f in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(str(noto_cjk_sans_otc.FONT_PATH))
    matplotlib.rcParams["font.family"] = FAMILIES
    return FAMILIES


register_cjk()
