"""What the notebooks use, in one import line: the lesson's experiments, your own stages,
predictions, views and plots.

    from compact.classroom import Compactor, Limits, run_experiment, check, reveal, show, ...

``as_written`` keeps the lesson's snippets exactly as the lesson prints them, shortfalls
included; ``stage_cases`` holds each stage's own test cases, which the package's tests and the
``check`` of a learner's stage share; ``language("zh")`` shows everything in Chinese. The
package itself starts in ``compact/pipeline/compactor.py``.
"""

from ..pipeline import Compactor, Context, Limits
from ..texts import language
from . import as_written, fonts, reveal_texts  # noqa: F401  (Chinese glyphs in every plot; why texts)
from .exercises import check
from .experiments import Runs, prompt, run_experiment
from .histories import assistant, results, tool_turn, user
from .picture import picture
from .plot import plot_run
from .reveal import reveal
from .show import show, source

__all__ = ["Compactor", "Context", "Limits", "Runs", "as_written", "assistant", "check", "language",
           "picture", "plot_run", "prompt", "results", "reveal", "run_experiment", "show", "source",
           "tool_turn", "user"]
