"""What the notebooks and the lab use: the lesson's experiments, plots, tables, the lab.

``as_written.py`` keeps the lesson's snippets exactly as the lesson prints them, shortfalls
included, as the reference the notebooks compare against; the package starts in
``compact/pipeline/compactor.py``.
"""
