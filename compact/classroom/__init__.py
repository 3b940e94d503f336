"""What the notebooks use, in one import line (``from compact.classroom import run_experiment,
check, reveal, show, ...``), and namespaces for the rest: ``agent`` (the loop, its tools and
clients), ``kit`` (a stage's helpers, the demo course), ``study`` (notebooks 07 and 08),
``as_written`` (the lesson's snippets as printed). The package starts in ``pipeline/compactor.py``.
"""

from ..pipeline import Compactor, Context, Limits
from ..texts import language, translated
from . import agent, as_written, kit, study
from .exercises import check
from .experiments import Runs, prompt, run_experiment
from .lab import Lab
from .plot import plot_run
from .reveal import reveal
from .show import show
from .stage_cases import results, tool_turn
from .stage_picture import plot_stage as picture

__all__ = ["Compactor", "Context", "Lab", "Limits", "Runs", "agent", "as_written", "check", "kit",
           "language", "picture", "plot_run", "prompt", "results", "reveal", "run_experiment", "show",
           "study", "tool_turn", "translated"]
