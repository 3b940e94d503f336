"""The prompt-caching model: what a request reads from cache, writes, and pays."""

import pytest
from histories import tool_turn, user

from compact.client import default_model
from compact.offline import OfflineModel
from compact.offline.api import estimate_tokens
from compact.pipeline.summary import SUMMARY_SYSTEM
from compact.study.caching import CacheLedger, Pricing, RecordingClient

SYSTEM, TOOLS = "You are a test agent.", [{"name": "read_file", "input_schema": {"type": "object"}}]


def send(ledger: CacheLedger, messages: list, system: str = SYSTEM):
    request = {"system": system, "tools": TOOLS, "messages": messages}
    tokens = estimate_tokens({"system": system, "messages": messages, "tools": TOOLS})
    return ledger.record(request, tokens)


def conversation(turns: int, chars: int = 2_000) -> list:
    messages = [user("go")]
    for k in range(turns):
        messages += tool_turn([f"{k} " + "r" * chars], prefix=f"c{k}_")
    return messages


def test_an_append_only_conversation_reads_the_last_request_whole_a_rewrite_loses_it():
    ledger = CacheLedger(min_tokens=0)
    messages = conversation(3)
    first = send(ledger, messages)
    assert (first.read, first.written) == (0, first.tokens)          # nothing cached yet
    second = send(ledger, messages + tool_turn(["new " + "n" * 2_000], prefix="n"))
    assert second.read == pytest.approx(first.tokens, abs=8)   # the whole last prompt (but
    #                                                            its closing brackets)
    assert second.written == second.tokens - second.read and second.uncached == 0
    ledger = CacheLedger(min_tokens=0)               # a rewrite near the start loses the prefix
    messages = conversation(8)
    send(ledger, messages)
    rewritten = list(messages)                       # the first result becomes a placeholder
    rewritten[2] = {**messages[2], "content": [{**messages[2]["content"][0], "content": "cut"}]}
    again = send(ledger, rewritten + tool_turn(["new"], prefix="n"))
    static = estimate_tokens({"system": SYSTEM, "tools": TOOLS}) + 10
    assert again.read <= static                      # only the system prompt and tools
    assert again.written >= again.tokens - static


def test_the_lookback_finds_an_older_entry_only_within_20_blocks():
    for turns_later, found in ((4, True), (15, False)):
        ledger = CacheLedger(min_tokens=0)
        messages = conversation(20)
        base = send(ledger, messages)
        later = send(ledger, messages + conversation(turns_later)[1:])   # 2 blocks a turn
        assert (later.read >= base.tokens - 8) is found


def test_short_prompts_are_not_cached_summaries_cost_full_price_and_prices_are_followed():
    ledger = CacheLedger()                           # 1,024 tokens minimum, as the API's
    small = send(ledger, [user("hi")])
    assert small.uncached == small.tokens and small.read == small.written == 0
    summary = send(ledger, [user("Summarise " + "s" * 20_000)], system=SUMMARY_SYSTEM)
    assert (summary.kind, summary.uncached) == ("summary", summary.tokens)
    assert ledger.cost() == pytest.approx(small.tokens + summary.tokens)
    ledger = CacheLedger(min_tokens=0)                         # cost and floor follow the prices
    messages = conversation(2)
    a = send(ledger, messages)
    b = send(ledger, messages + tool_turn(["more " * 100], prefix="m"))
    prices = Pricing(read=0.1, write=1.25, uncached=1.0)
    assert ledger.cost(prices) == pytest.approx(1.25 * a.tokens + 0.1 * b.read + 1.25 * b.written)
    assert ledger.floor(prices) == pytest.approx(1.25 * a.tokens + 0.1 * a.tokens
                                                 + 1.25 * (b.tokens - a.tokens))
    assert ledger.cost(Pricing(1, 1, 1)) == ledger.plain() == a.tokens + b.tokens


def test_the_recording_client_passes_calls_through_and_counts_them():
    model = OfflineModel()
    client = RecordingClient(model.client())
    reply = client.messages.create(model="offline-compact-1", max_tokens=100, system=SYSTEM,
                                   messages=[user("Read README.md")], tools=TOOLS)
    assert reply.usage.input_tokens == client.ledger.plain() == model.usage[0][1]
    assert reply.usage.output_tokens == client.ledger.output_tokens("agent") > 0   # what it wrote back
    assert client.ledger.output_tokens("summary") == 0
    assert default_model(client) == "offline-compact-1"      # still a client: it can be asked
