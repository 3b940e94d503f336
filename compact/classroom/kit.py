"""Parts of the package a notebook builds with: the helpers a stage writes with (stage 1's file
and preview, stage 3's placeholder), the lesson's stage 1 as written (for notebook 01, whose import
line has no room for ``as_written``), the archiving variant of the Compactor, the demo course, and
the lesson's REPL run with a task typed at its prompt."""

from ..demo import expected_titles, make_workspace
from ..extensions import ArchivingCompactor
from ..pipeline.formats import placeholder_for
from ..pipeline.storage import persist_tool_result
from ..pipeline.tool_result_budget import persisted_text
from .as_written import tool_result_budget as lesson_tool_result_budget
from .experiments import Repl, run_repl

__all__ = ["ArchivingCompactor", "Repl", "expected_titles", "lesson_tool_result_budget", "make_workspace",
           "persist_tool_result", "persisted_text", "placeholder_for", "run_repl"]
