"""The size cache: exact under in-place edits, and a turn serialises only what is new."""

import copy
import math

import pytest
from conftest import fake_summary, make_files
from histories import histories, session, tool_turn, user
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact import (
    Compactor,
    HistoryError,
    Workspace,
    agent_loop,
    estimate_size,
    summarizer_for,
    validate_history,
)
from compact.extensions.size_cache import SizeCache, size_cached, snapshot
from compact.offline import OfflineModel
from compact.pipeline import messages as messages_module

EDITS = ["text", "append_block", "drop_block", "input_number", "input_nested", "insert",
         "delete", "swap", "reorder_keys", "equal_copy", "nan", "negative_zero", "bad_bytes",
         "orphan", "role", "image", "result_image", "image_data"]


def edit(history: list, kind: str, at: int, value) -> None:
    """One in-place edit of the kind a caller might make between two turns."""
    if not history:
        return
    i = at % len(history)
    message = history[i]
    blocks = [b for m in history if isinstance(m.get("content"), list) for b in m["content"]]
    block = blocks[at % len(blocks)] if blocks else None
    if kind == "text":
        if isinstance(message["content"], str):
            message["content"] = message["content"] + str(value)
        else:
            block = message["content"][0]
            key = "text" if "text" in block else "content" if "content" in block else "id"
            block[key] = str(value) if key != "content" else str(value) * 3
    elif kind == "append_block" and isinstance(message["content"], list):
        message["content"].append({"type": "text", "text": str(value)})
    elif kind == "drop_block" and isinstance(message["content"], list) and message["content"]:
        message["content"].pop()
    elif kind in ("input_number", "input_nested", "nan", "negative_zero") and blocks:
        target = block.setdefault("input", {}) if block.get("type") == "tool_use" else block
        if kind == "input_number":     # 1 → True → 1.0: equal in Python, not in JSON
            old = target.get("limit", 1)
            target["limit"] = {int: True, bool: 1.0, float: 1}.get(type(old), 1)
        elif kind == "input_nested":
            target.setdefault("meta", {"tags": ["a"]})["tags"].append(str(value))
        elif kind == "nan":
            target["score"] = math.nan
        else:
            target["score"] = -0.0 if target.get("score") == 0.0 and \
                math.copysign(1, target.get("score", 1.0)) > 0 else 0.0
    elif kind == "insert":
        history.insert(i, user(str(value)))
    elif kind == "delete":
        del history[i]
    elif kind == "swap" and len(history) > 1:
        j = (i + 1) % len(history)
        history[i], history[j] = history[j], history[i]
    elif kind == "reorder_keys":
        history[i] = dict(reversed(list(message.items())))
    elif kind == "equal_copy":
        history[i] = copy.deepcopy(message)
    elif kind == "bad_bytes" and blocks:
        block["extra"] = b"raw"
    elif kind == "orphan":
        history.insert(i, {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "nobody", "content": "x"}]})
    elif kind == "role":
        message["role"] = "system"
    elif kind == "image":                 # an image counts as IMAGE_CHARS, not its base64
        history.insert(i, {"role": "user", "content": [
            {"type": "text", "text": str(value)},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgo" * (at % 50)}}]})
    elif kind == "result_image" and blocks and block.get("type") == "tool_result":
        block["content"] = [{"type": "text", "text": str(value)},
                            {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}]
    elif kind == "image_data":            # the base64 grows in place: the size must not move
        for m in history:
            for b in m["content"] if isinstance(m["content"], list) else []:
                if b.get("type") == "image" and "data" in b.get("source", {}):
                    b["source"]["data"] += "QUJD" * (at % 7 + 1)


def outcome(call, history):
    try:
        return call(history)
    except HistoryError:
        return "HistoryError"


def reference(history):
    validate_history(history)
    return estimate_size(history)


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(histories(max_turns=12),
       st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 10_000),
                          st.text(max_size=12)), max_size=6))
def test_cached_size_equals_estimate_size_under_in_place_edits(history, edits):
    cache = SizeCache()
    assert outcome(cache.measure, history) == outcome(reference, history)
    for kind, at, value in edits:
        edit(history, kind, at, value)
        assert outcome(cache.measure, history) == outcome(reference, history), kind
        history.append({"role": "assistant", "content": [{"type": "text", "text": "more"}]})
        assert outcome(cache.measure, history) == outcome(reference, history), kind


def test_a_snapshot_tells_apart_what_json_does_and_copies_only_plain_data():
    for before, after in ((1, True), (True, 1), (1, 1.0), (0.0, -0.0), (math.nan, math.nan)):
        message = {"role": "user", "content": [{"type": "text", "text": "t", "n": before}]}
        kept = snapshot(message)
        message["content"][0]["n"] = after
        same_json = messages_module.wire_json(before) == messages_module.wire_json(after)
        assert (kept == message) == same_json

    class Model:                                      # SDK objects and odd keys: never cached
        def model_dump(self, **_):
            return {"type": "text", "text": "typed"}

    assert snapshot({"role": "assistant", "content": [Model()]}) is None
    assert snapshot({"role": "user", "content": "x", 1: "y"}) is None
    assert snapshot({"role": "user", "content": ["a", {1, 2}]}) is None


def test_a_turn_serialises_only_the_new_messages(tmp_path, monkeypatch):
    """A caller that keeps its whole history: each prepare() serialises the two new messages
    and nothing else (counted, not timed)."""
    calls = []
    real = messages_module.wire_json
    monkeypatch.setattr(messages_module, "wire_json", lambda v: calls.append(v) or real(v))
    history = session([[f"result {k}"] for k in range(200)], "go")
    sizes = SizeCache()
    compactor = size_cached(Compactor(tmp_path, summarize=fake_summary, stages=()), sizes)
    compactor.prepare(history, "go")
    assert len(calls) == len(history)                  # the first time: each message once
    for k in range(5):
        calls.clear()
        history += tool_turn([f"new {k}"], prefix=f"n{k}_")
        compactor.measure(history)                     # what agent_loop measures first
        assert sizes.validated_from == len(history) - 2     # checks only the new
        sent = compactor.prepare(history, "go")
        compactor.measure(sent)                        # ... and what it sent
        assert calls == [[m] for m in history[-2:]]    # the two new messages, once each
        assert compactor.measure(history) == estimate_size(history)


def test_an_in_place_edit_is_seen_and_the_size_stays_exact(tmp_path):
    history = [user("go"), *tool_turn(["a" * 500, "b" * 500])]
    compactor = size_cached(Compactor(tmp_path, summarize=fake_summary))
    compactor.measure(history)
    history[2]["content"][1]["content"] = "short"      # edited where it lies
    assert compactor.measure(history) == estimate_size(history)
    history[2]["content"][1]["content"] = b"bytes"     # now invalid: the check runs again
    with pytest.raises(HistoryError):
        compactor.measure(history)
    history[2]["content"][1]["content"] = "short"
    compactor.measure(history)
    history.append({"role": "user", "content": [                     # an orphan added after measuring
        {"type": "tool_result", "tool_use_id": "nobody", "content": "x"}]})
    with pytest.raises(HistoryError, match="no matching tool_use"):
        compactor.prepare(history, "go")                            # measured again, refused
    history.pop()
    assert compactor.measure(history) == estimate_size(history)


def test_agent_loop_trace_sizes_match_estimate_size(tmp_path):
    root = make_files(tmp_path / "ws", {f"f{k}.md": f"# F{k}\n" + "text " * 3_000 for k in range(4)})
    history = [user("Read f0.md")]
    client = OfflineModel().client()
    compactor = Compactor(root, summarize=summarizer_for(client))
    seen = []
    for k in range(4):
        request = f"Read f{k}.md"
        if k:
            history.append(user(request))
        trace = agent_loop(history, request, client=client, compactor=compactor,
                           workspace=Workspace(root), log=lambda _: None)
        seen += [(t.size_sent, estimate_size(t.sent)) for t in trace.turns]
    assert all(a == b for a, b in seen) and len(seen) >= 4


def test_agent_loop_measures_with_a_size_cache_of_its_own(tmp_path):
    """agent_loop's own Compactor opts into the cache: a turn on a long kept history checks
    only the new messages (counted by the cache, not timed)."""
    root = make_files(tmp_path / "ws", {})
    history = [*session([[f"result {k}"] for k in range(300)], "go"), user("Say hello")]
    sizes = SizeCache()
    compactor = size_cached(Compactor(root, summarize=fake_summary, stages=()), sizes)
    trace = agent_loop(history, "Say hello", client=OfflineModel(window_tokens=10**7).client(),
                       compactor=compactor, workspace=Workspace(root), log=lambda _: None)
    assert len(trace.turns) == 1 and trace.answer
    assert sizes.serialised == len(trace.turns[0].sent)     # each message sent once, however often measured
