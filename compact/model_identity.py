"""How the embedded offline model is told apart from Claude, for a client that asks: its name,
the header every answer of its carries, the in-process base URL, and its default ``max_tokens``.
A leaf module, so the agent loop can ask without loading the offline model itself."""

MODEL_NAME = "offline-compact-1"
HEADER = "x-offline-model"
# The in-process client's base URL: ``.invalid`` never resolves, so only the in-process
# transport can answer it, and its host names the model.
IN_PROCESS_URL = f"http://{MODEL_NAME}.invalid"
AGENT_MAX_TOKENS = 1_024            # what its clients ask for by default (its answers are short)
OFFLINE_MODULE = "compact.offline"  # loaded by make_client only when no API key is set
