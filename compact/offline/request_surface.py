"""Every top-level field a Messages request may carry, and what the offline model does with it.

Audited against the installed SDK's ``MessageCreateParams`` (``anthropic.types`` and
``anthropic.types.beta``) and ``MessageCountTokensParams``. Each field is either honoured
(``HONOURED``), accepted with its documented effect on a deterministic model that keeps no
cache (``NO_EFFECT``), or refused with a 400 that names it and says what to do
(``UNSUPPORTED``); a name the API does not know is refused in the API's own words ("Extra
inputs are not permitted"). Nothing is silently ignored.

``surface_problem`` returns the first refusal for a body, or None; the beta features need
the ``anthropic-beta`` header the SDK sends for ``betas=[...]`` (``BETAS``).
"""

from __future__ import annotations

from typing import Any

from .builtin_tools import tools_problem

HONOURED = ("model", "max_tokens", "messages", "system", "tools", "tool_choice",
            "stop_sequences", "stream", "context_management", "compaction", "thread")
# Accepted, with what they do here (the README's offline-model section says the same):
NO_EFFECT = {
    "metadata": "recorded by the real API for abuse detection; nothing to record offline",
    "temperature": "a deterministic model answers the same at every temperature",
    "top_p": "a deterministic model always takes its one answer",
    "top_k": "a deterministic model always takes its one answer",
    "service_tier": "one tier offline; usage reports service_tier 'standard'",
    "cache_control": "no prompt cache offline; usage reports 0 cache tokens",
}
UNSUPPORTED = {
    "container": "code-execution containers", "mcp_servers": "remote MCP servers",
    "fallbacks": "model fallbacks", "fallback_credit_token": "fallback credits",
    "billing_policy": "billing policies", "diagnostics": "request diagnostics",
    "inference_geo": "inference regions",
}
COUNT_FIELDS = ("model", "messages", "system", "tools", "tool_choice", "thinking",
                "context_management", "compaction", "cache_control", "output_config", "speed",
                "mcp_servers", "billing_policy")
BETAS = {"context_management": "context-management-2025-06-27",
         "compact_20260112": "compact-2026-01-12",
         "compaction": "compact-2026-09-04",
         "thread": "message-threads-2026-08-12"}
_HINT = "; remove it, or point the client at the real API (ANTHROPIC_API_KEY)"


def unsupported(field: str, what: str) -> str:
    return f"{field}: {what} are not supported by the offline model offline-compact-1{_HINT}"


def betas_of(headers: Any) -> set[str]:
    """The betas named in the ``anthropic-beta`` header(s) (comma-separated, as the SDK sends)."""
    value = headers.get("anthropic-beta", "") if headers else ""
    return {part.strip() for part in str(value).split(",") if part.strip()}


def beta_problem(field: str, beta: str, betas: set[str]) -> str | None:
    if beta in betas:
        return None
    return (f"{field}: this feature is in beta; send the header `anthropic-beta: {beta}` "
            f"(the SDK: client.beta.messages.create(..., betas=[\"{beta}\"]))")


def _field_problem(payload: dict, count_only: bool) -> str | None:
    allowed = COUNT_FIELDS if count_only else (*HONOURED, *NO_EFFECT, *UNSUPPORTED, "thinking",
                                               "output_config", "speed")
    for name in payload:
        if name not in allowed:
            return f"{name}: Extra inputs are not permitted"
        if name in UNSUPPORTED and payload[name] not in (None, [], {}):
            return unsupported(name, UNSUPPORTED[name])
    return None


def _option_problem(payload: dict) -> str | None:
    """thinking, output_config and speed: only their plain settings are supported."""
    thinking = payload.get("thinking")
    if thinking is not None and (not isinstance(thinking, dict) or thinking.get("type") != "disabled"):
        return (f"thinking: {thinking!r}: extended thinking is not supported by the offline model "
                f"offline-compact-1 (it writes no thinking blocks); send {{\"type\": \"disabled\"}} "
                "or leave it out")
    config = payload.get("output_config")
    if config is not None:
        if not isinstance(config, dict):
            return "output_config: Input should be a valid dictionary"
        extra = [k for k, v in config.items() if v is not None and k != "effort"]
        if extra:
            return unsupported(f"output_config.{extra[0]}", "structured outputs and task budgets")
        if config.get("effort") not in (None, "low", "medium", "high", "xhigh", "max"):
            return ("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or "
                    "'max'")
    if payload.get("speed") not in (None, "standard"):
        return unsupported("speed", "fast-mode requests")
    return None


def _sampling_problem(payload: dict) -> str | None:
    for name, low, high in (("temperature", 0.0, 1.0), ("top_p", 0.0, 1.0)):
        value = payload.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not low <= value <= high):
            return f"{name}: Input should be a number between {low:g} and {high:g}"
    top_k = payload.get("top_k")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0):
        return "top_k: Input should be a non-negative integer"
    if payload.get("service_tier") not in (None, "auto", "standard_only"):
        return "service_tier: Input should be 'auto' or 'standard_only'"
    if payload.get("stream") not in (None, True, False):
        return "stream: Input should be a valid boolean"
    return None


def stop_sequences_problem(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        return "stop_sequences: Input should be a valid list of strings"
    if any(not s.strip() for s in value):
        return "stop_sequences: each stop sequence must contain non-whitespace characters"
    return None


def tool_choice_problem(choice: Any, tools: Any) -> str | None:
    if choice is None:
        return None
    if not isinstance(choice, dict) or choice.get("type") not in ("auto", "any", "tool", "none"):
        return ("tool_choice: Input tag found using 'type' does not match any of the expected "
                "tags: 'auto', 'any', 'tool', 'none'")
    if not isinstance(choice.get("disable_parallel_tool_use", False), bool):
        return "tool_choice.disable_parallel_tool_use: Input should be a valid boolean"
    names = [t.get("name") for t in tools or [] if isinstance(t, dict)]
    if choice["type"] in ("any", "tool") and not names:
        return f"tool_choice.{choice['type']} may only be specified while providing tools"
    if choice["type"] == "tool" and choice.get("name") not in names:
        return f"tool_choice: Tool '{choice.get('name')}' not found in provided tools"
    return None


def surface_problem(payload: dict, headers: Any = None, count_only: bool = False) -> str | None:
    """The first field of ``payload`` the offline model refuses, in the API's words, or None."""
    betas = betas_of(headers)
    for check in (lambda: _field_problem(payload, count_only), lambda: _option_problem(payload),
                  lambda: _sampling_problem(payload),
                  lambda: stop_sequences_problem(payload.get("stop_sequences")),
                  lambda: tools_problem(payload.get("tools")),
                  lambda: tool_choice_problem(payload.get("tool_choice"), payload.get("tools"))):
        problem = check()
        if problem:
            return problem
    for name in ("compaction", "thread"):
        if payload.get(name) is not None:
            problem = beta_problem(name, BETAS[name], betas)
            if problem:
                return problem
    return _management_beta_problem(payload.get("context_management"), betas)


def _management_beta_problem(management: Any, betas: set[str]) -> str | None:
    """Context editing needs its beta; the compaction edit needs the compaction beta."""
    if management is None:
        return None
    edits = management.get("edits") if isinstance(management, dict) else None
    kinds = {e.get("type") for e in edits if isinstance(e, dict)} if isinstance(edits, list) else set()
    if "compact_20260112" in kinds:
        problem = beta_problem("context_management.edits.compact_20260112",
                               BETAS["compact_20260112"], betas)
        if problem:
            return problem
    if kinds - {"compact_20260112"} or not kinds:
        return beta_problem("context_management", BETAS["context_management"], betas)
    return None
