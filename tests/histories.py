"""Builders for hand-made histories, and hypothesis strategies for generated ones."""

from __future__ import annotations

import os
import tempfile

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from compact import Limits
from compact.classroom.stage_cases import assistant as assistant  # re-exported for the tests
from compact.classroom.stage_cases import session as stage_session
from compact.classroom.stage_cases import tool_turn as tool_round


def user(text: str = "do the task") -> dict:
    return {"role": "user", "content": text}


def tool_turn(results: list[str], prefix: str = "t", name: str = "read_file") -> list[dict]:
    """An assistant message calling len(results) tools and the user message answering them."""
    return tool_round(*[(f"{prefix}{k}", f"{prefix}{k}.txt", r) for k, r in enumerate(results)], name=name)


def long_chat(pairs: int, chars: int) -> list[dict]:
    """``pairs`` questions and answers of about ``chars`` characters each, no tool calls."""
    return [m for k in range(pairs)
            for m in (user(f"question {k}: " + "q" * chars), assistant(f"answer {k}: " + "a" * chars))]


def session(results_per_turn: list[list[str]], request: str = "do the task") -> list[dict]:
    """A request, then one tool turn a list of results (ids t0_0, t0_1, ..., t1_0, ...)."""
    return stage_session(*results_per_turn, request=request)


SMALL = Limits(context_limit=6_000, tool_result_budget=3_000, persist_threshold=1_000,
               preview_chars=200, max_messages=12, keep_head=3, keep_recent_results=3,
               min_compact_chars=120)


TURNS = st.integers(0, 3)                          # 0: a text turn, else a tool turn
TEXT_TURN = st.tuples(st.sampled_from(["ok", "thinking " * 30, "é" * 5]),
                      st.sampled_from(["go on", "x" * 300]))
CALLS = st.integers(1, 4)
# sizes around every threshold of SMALL and of the lesson's Limits
SIZES = {k: st.lists(st.sampled_from([0, 10, 121, 400, 1_500, 2_500, 40_000]), min_size=k,
                     max_size=k) for k in range(1, 5)}
CHARS = st.sampled_from(["a", "ü", "字", '"', "\n"])
REQUESTS = st.sampled_from(["fix the bug", "compare files", "读取文件 😀"])
# Strategies are built once, here: built inside the draw loop, hypothesis would construct
# and validate each one again for every turn of every example.


@st.composite
def histories(draw, max_turns: int = 40) -> list[dict]:
    """Valid histories: a request, then text turns and tool turns of mixed sizes."""
    messages = [user(draw(REQUESTS))]
    turns = draw(st.integers(0, max_turns))
    for n in range(turns):
        if draw(TURNS) == 0:
            said, answer = draw(TEXT_TURN)
            messages.append(assistant(said))
            messages.append(user(answer))
            continue
        sizes = draw(SIZES[draw(CALLS)])
        chars = draw(CHARS)
        messages += tool_turn([chars * s for s in sizes], prefix=f"h{n}_")
    if draw(st.booleans()) and messages[-1]["role"] == "user":
        messages.append(assistant("done"))
    return messages


def examples(count: int) -> settings:
    """The properties' hypothesis settings: ``count`` examples, the same ones every run, no deadline."""
    return settings(max_examples=count, deadline=None, derandomize=True, suppress_health_check=[
        HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


# Where the generated-history tests let the pipeline write: a fresh folder per example, in memory
# when /dev/shm is writable (the 10,000-example runs create and delete 10,000 folders).
RAM = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def scratch() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(dir=RAM, prefix="compact-example-")
