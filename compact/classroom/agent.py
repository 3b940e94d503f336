"""The agent the notebooks run, under one name: ``agent.agent_loop``, its ``TOOLS`` and
``SYSTEM`` prompt, the ``Workspace`` its tools act in, the clients it talks to (real Claude with
a key, else the ``OfflineModel``), and the summariser stage 4 builds on a client."""

from ..client import default_model, make_client, summarizer_for
from ..loop import SYSTEM, TurnLimitError, agent_loop
from ..offline import SERVE_WINDOW_TOKENS, OfflineModel
from ..tools import TOOLS, Workspace

__all__ = ["SERVE_WINDOW_TOKENS", "SYSTEM", "TOOLS", "OfflineModel", "TurnLimitError", "Workspace",
           "agent_loop", "default_model", "make_client", "summarizer_for"]
