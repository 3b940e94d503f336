"""The long session again, with the API's own context management instead of (or with) the
lesson's (``API_STRATEGIES``), through ``client.beta.messages.create``, offline or with Claude.
What the model was shown is worked out with the offline model's own code
(``compact.offline.context_management``) and measured like any other session."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from ..client import summarizer_for
from ..extensions import size_cached
from ..offline import SERVE_WINDOW_TOKENS, OfflineModel, count_tokens
from ..offline.context_management import prepare
from ..offline.view import as_plain
from ..pipeline import STAGES, Compactor
from ..pipeline.messages import estimate_size
from ..pipeline.summary import SUMMARY_SYSTEM
from .caching import RecordingClient, Request
from .remembered import remembered
from .retention import retention
from .strategies import SessionReport, play, session_workspace
from .workload import PROBES, session_turns

EDITING_BETA, COMPACT_BETA = "context-management-2025-06-27", "compact-2026-01-12"
# Both triggers at 50,000 input tokens, the least compact_20260112 accepts (its default is
# 150,000; clear_tool_uses' is 100,000): this session passes 150,000 only near its end, and
# 50,000 tokens (~200,000 chars) is already 4× the lesson's 50,000-char limit.
TRIGGER = {"type": "input_tokens", "value": 50_000}
CLEAR_TOOL_USES = {"type": "clear_tool_uses_20250919", "trigger": TRIGGER}     # keep 3 (default)
COMPACT = {"type": "compact_20260112", "trigger": TRIGGER}


@dataclass(frozen=True)
class ApiStrategy:
    name: str
    description: str
    stages: tuple[str, ...] = ()               # the lesson's stages run on the client
    edits: tuple[dict, ...] = ()               # context_management.edits sent to the API

    @property
    def betas(self) -> list[str]:
        kinds = {e["type"] for e in self.edits}
        return ([EDITING_BETA] if kinds - {COMPACT["type"]} else []) + \
            ([COMPACT_BETA] if COMPACT["type"] in kinds else [])

    @property
    def context_management(self) -> dict | None:
        return {"edits": [dict(e) for e in self.edits]} if self.edits else None


API_STRATEGIES = [
    ApiStrategy("lesson pipeline", "the lesson's four stages on the client, default numbers", STAGES),
    ApiStrategy("context editing", "clear_tool_uses_20250919 on the server: trigger 50k, keep 3",
                edits=(CLEAR_TOOL_USES,)),
    ApiStrategy("server compaction", "compact_20260112 on the server: trigger 50k tokens",
                edits=(COMPACT,)),
    ApiStrategy("both", "clear_tool_uses, then compact_20260112, on the server",
                edits=(CLEAR_TOOL_USES, COMPACT)),
]


def shown(request: dict, management: dict | None) -> list:
    """The messages the model was shown for ``request`` under ``management`` (unchanged ones
    are the history's own objects, so the cache ledger knows them again)."""
    payload = {**request, "messages": as_plain(request["messages"]),
               **({"context_management": management} if management else {})}
    return prepare(payload, lambda messages: count_tokens({**payload, "messages": messages})).messages


class ApiClient(RecordingClient):
    """An SDK client whose ``messages.create`` sends the strategy's context management."""

    def __init__(self, client: Any, strategy: ApiStrategy) -> None:
        super().__init__(client)
        self.strategy, self.usage = strategy, []
        self.peak = 0                   # the most chars the model was shown in one request

    def create(self, **request: Any) -> Any:
        management = self.strategy.context_management
        if management is None:
            response = self.client.messages.create(**request)
        else:
            response = self.client.beta.messages.create(
                **request, betas=self.strategy.betas, context_management=management)
        usage = response.usage
        for step in getattr(usage, "iterations", None) or []:
            if step.type == "compaction":
                self.ledger.requests.append(Request("summary", step.input_tokens, 0, 0,
                                                    step.input_tokens))
                self.usage.append(("compaction", step.input_tokens))
        kind = "summary" if request.get("system") == SUMMARY_SYSTEM else "agent"
        if usage.input_tokens:
            seen = shown(request, management)
            self.peak = max(self.peak, estimate_size(seen))
            block = next((b for b in response.content if b.type == "compaction"), None)
            if block is not None:        # the reply was sampled from the summary, not from `seen`
                seen = shown({**request, "messages": [*request["messages"], {
                    "role": "assistant", "content": [block.to_dict()]}]}, management)
            self.ledger.record({**request, "messages": seen}, usage.input_tokens)
            self.usage.append((kind, usage.input_tokens))
        return response


def run_api_session(strategy: ApiStrategy, client: Any = None, workdir: str | Path | None = None,
                    turns: list[str] | None = None) -> SessionReport:
    """The whole scripted session with ``strategy``; offline unless ``client`` is given (then
    the package's own strategies on the default session are remembered, ``remembered.py``)."""
    replay = partial(_replay, strategy, client, workdir, turns)
    if rememberable(strategy, client, turns):
        return remembered("api", strategy.name, replay)
    return replay()


def rememberable(strategy: ApiStrategy, client: Any, turns: list[str] | None) -> bool:
    """The package's own offline server and strategy, on the default session."""
    return client is None and any(strategy is s for s in API_STRATEGIES) \
        and (turns is None or turns == session_turns())


def _replay(strategy: ApiStrategy, client: Any, workdir: str | Path | None,
            turns: list[str] | None) -> SessionReport:
    workspace = session_workspace(workdir, "api-session-")
    api = ApiClient(client or OfflineModel(window_tokens=SERVE_WINDOW_TOKENS).client(), strategy)
    compactor = size_cached(Compactor(workspace.root, summarize=summarizer_for(api),
                                      stages=strategy.stages))
    report = play(api, compactor, workspace, turns or session_turns())
    seen = shown({"messages": report.messages}, strategy.context_management)
    return replace(report, strategy=strategy.name, peak_size=api.peak, summaries=[], summary_turns=[],
                   retention=retention(PROBES, seen, workspace.root))
