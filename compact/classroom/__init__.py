"""What the notebooks and the lab use: the lesson's experiments, plots, views, exercises, the lab.

``as_written.py`` keeps the lesson's snippets exactly as the lesson prints them, shortfalls
included, as the reference the notebooks compare against; ``stage_cases.py`` holds each stage's
own test cases, which the package's tests and the notebooks' "write it yourself" checker
(``exercises.py``) share; ``counterexamples.py`` breaks the lesson's rules on purpose. The
package starts in ``compact/pipeline/compactor.py``.
"""
