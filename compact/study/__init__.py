"""The long study: a scripted 100-turn session, where facts end up, strategies compared.

``workload.py`` builds the session, ``retention.py`` says where each planted fact went,
``caching.py`` prices every request as prompt caching bills it, ``strategies.py`` runs the
session under each configuration of the pipeline, ``api_session.py`` runs it with the API's own
context management. The study computes; ``compact.classroom.strategy_plot`` and
``strategy_tables`` show it.
"""
