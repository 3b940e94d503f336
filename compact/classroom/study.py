"""The long study of notebooks 07 and 08 under one name: the strategies and their comparison,
the API's own context management in a session, the 100-turn workload, prices, tables and plots."""

from ..extensions import CacheFriendlyCompactor
from ..study.api_session import API_STRATEGIES, run_api_session, shown
from ..study.caching import Pricing
from ..study.strategies import CACHE_FRIENDLY, STRATEGIES, Strategy, compare, run_session
from ..study.workload import session_turns
from .strategy_plot import plot_costs, plot_retention, plot_summaries
from .strategy_tables import api_table, cost_table, description, probe_table, strategy_table

__all__ = ["API_STRATEGIES", "CACHE_FRIENDLY", "STRATEGIES", "CacheFriendlyCompactor", "Pricing", "Strategy",
           "api_table", "compare", "cost_table", "description", "plot_costs", "plot_retention",
           "plot_summaries", "probe_table", "run_api_session", "run_session", "session_turns", "shown",
           "strategy_table"]
