"""What the notebooks use, in one import line: the lesson's experiments, your own stages,
predictions, views and plots, the lab, and three namespaces for the rest.

    from compact.classroom import Compactor, Limits, run_experiment, check, reveal, show, ...

``agent`` is the agent loop with its tools and clients (``agent.OfflineModel``), ``kit`` the
helpers a stage writes with and the demo course, ``study`` the strategy study of notebooks 07 and
08. ``as_written`` keeps the lesson's snippets exactly as the lesson prints them, shortfalls
included; ``language("zh")`` shows everything in Chinese. The package itself starts in
``compact/pipeline/compactor.py``.
"""

from ..pipeline import Compactor, Context, Limits
from ..texts import language

# lab_texts and reveal_texts register their texts
from . import agent, as_written, kit, lab_texts, reveal_texts, study  # noqa: F401
from .exercises import check
from .experiments import Runs, prompt, run_experiment
from .lab import Lab
from .notebook_texts import translated
from .plot import plot_run
from .reveal import reveal
from .show import show
from .stage_cases import results, tool_turn
from .stage_picture import plot_stage as picture

__all__ = ["Compactor", "Context", "Lab", "Limits", "Runs", "agent", "as_written", "check", "kit",
           "language", "picture", "plot_run", "prompt", "results", "reveal", "run_experiment", "show",
           "study", "tool_turn", "translated"]
