"""What a session costs with prompt caching: per request, tokens read from cache, written, uncached.

Breakpoints sit after the system prompt and on the last block; a request reads the longest
earlier entry that prefixes it (looking back up to 20 blocks); a prefix under 1,024 tokens is
not cached; 4 bytes a token. Prices relative to plain input: read 0.1×, written 1.25×. The
floor: the cost if no cached prefix were ever broken."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from ..extensions.size_cache import snapshot
from ..pipeline.messages import BYTES_PER_TOKEN, blocks_of, wire_json
from ..pipeline.summary import SUMMARY_SYSTEM

LOOKBACK_BLOCKS = 20
MIN_CACHE_TOKENS = 1_024


@dataclass(frozen=True)
class Pricing:
    """Prices relative to the plain input price (Anthropic's: 0.1× read, 1.25× 5-minute write)."""

    read: float = 0.1
    write: float = 1.25
    uncached: float = 1.0


PRICES = Pricing()


@dataclass(frozen=True)
class Request:
    kind: str           # "agent" or "summary"
    tokens: int         # everything sent, as the model counted it
    read: int           # tokens read from cache
    written: int        # tokens written to cache
    uncached: int       # tokens neither read nor written (summary calls, short prompts)
    output: int = 0     # tokens the model wrote back (not priced: Pricing is input prices)

    def cost(self, pricing: Pricing) -> float:
        return self.read * pricing.read + self.written * pricing.write + self.uncached * pricing.uncached


@dataclass
class CacheLedger:
    """Every request of a session, with its cache accounting (see the module doc)."""

    lookback: int = LOOKBACK_BLOCKS
    min_tokens: int = MIN_CACHE_TOKENS
    requests: list[Request] = field(default_factory=list)
    _children: dict = field(default_factory=dict, repr=False)     # (node, block) -> node
    _blocks: dict = field(default_factory=dict, repr=False)       # block text -> block id
    _entries: set = field(default_factory=set, repr=False)        # nodes written to cache
    _memo: dict = field(default_factory=dict, repr=False)         # id(message) -> blocks

    def _block_id(self, key: str) -> int:
        return self._blocks.setdefault(key, len(self._blocks))

    def _message_blocks(self, message: Any) -> list[tuple[int, int]]:
        """(block id, bytes) per block, adding up to the message's wire JSON (remembered)."""
        entry = self._memo.get(id(message))
        if entry is not None and entry[0] is message and entry[1] == message:
            return entry[2]
        role = message.get("role") if isinstance(message, dict) else None
        content = message.get("content") if isinstance(message, dict) else message
        parts = blocks_of(message) if isinstance(content, list) else [content]
        texts = [wire_json(block) for block in parts]
        sizes = [len(t.encode("utf-8", "surrogatepass")) + 1 for t in texts]
        whole = len(wire_json(message).encode("utf-8", "surrogatepass")) + 1   # + its comma
        sizes[0] += whole - sum(sizes)
        blocks = [(self._block_id(f"{role}|{index}|{text}"), size)
                  for index, (text, size) in enumerate(zip(texts, sizes, strict=True))]
        copy = snapshot(message)
        if copy is not None:
            self._memo[id(message)] = (message, copy, blocks)
        return blocks

    def record(self, request: dict, tokens: int, output: int = 0) -> Request:
        """Account one request (``messages.create``'s arguments): ``tokens`` in, ``output`` out."""
        if request.get("system") == SUMMARY_SYSTEM:
            entry = Request("summary", tokens, 0, 0, tokens, output)
            self.requests.append(entry)
            return entry
        static = wire_json({"system": request.get("system"), "tools": request.get("tools")})
        blocks = [(self._block_id("static|" + static), len(static.encode("utf-8", "surrogatepass")))]
        for message in request.get("messages", []):
            blocks += self._message_blocks(message)
        nodes, sizes, node, total = [0], [0], 0, 0
        for block, size in blocks:
            node = self._children.setdefault((node, block), len(self._children) + 1)
            total += size
            nodes.append(node)
            sizes.append(total)
        breakpoints = sorted({1, len(blocks)})
        hit = max((j for b in breakpoints for j in range(max(b - self.lookback, 1), b + 1)
                   if nodes[j] in self._entries), default=0)
        as_tokens = [min(s // BYTES_PER_TOKEN, tokens) for s in sizes]
        cached = [b for b in breakpoints if as_tokens[b] >= self.min_tokens]
        for b in cached:
            self._entries.add(nodes[b])
        read = as_tokens[hit]
        end = max(cached, default=0)
        written = max(as_tokens[end] - read, 0) if end > hit else 0
        if end == len(blocks):                # the last breakpoint covers the whole request
            written = tokens - read
        entry = Request("agent", tokens, read, written, tokens - read - written, output)
        self.requests.append(entry)
        return entry

    def forget(self) -> None:
        """Drop the prefix index and the messages it watched; the accounted requests stay."""
        self._children, self._blocks, self._entries, self._memo = {}, {}, set(), {}

    # ---- totals -------------------------------------------------------------------------

    def plain(self) -> int:
        return sum(r.tokens for r in self.requests)

    def cost(self, pricing: Pricing = PRICES) -> float:
        return sum(r.cost(pricing) for r in self.requests)

    def floor(self, pricing: Pricing = PRICES) -> float:
        """The cost if no cached prefix were ever broken (see the module doc)."""
        total, previous = 0.0, 0
        for r in self.requests:
            if r.kind == "summary":
                total += r.tokens * pricing.uncached
                continue
            total += min(r.tokens, previous) * pricing.read
            total += max(r.tokens - previous, 0) * pricing.write
            previous = r.tokens
        return total

    def output_tokens(self, kind: str = "summary") -> int:
        """The tokens the model wrote back on ``kind`` calls ("summary" or "agent")."""
        return sum(r.output for r in self.requests if r.kind == kind)

    def share_read(self) -> float:
        """The fraction of all agent tokens that were read from cache."""
        agent = [r for r in self.requests if r.kind == "agent"]
        return sum(r.read for r in agent) / max(sum(r.tokens for r in agent), 1)


class RecordingClient:
    """A Messages-API client that passes every call through and accounts it in ``ledger``."""

    def __init__(self, client: Any, ledger: CacheLedger | None = None) -> None:
        self.client, self.ledger = client, ledger or CacheLedger()
        self.messages = SimpleNamespace(create=self.create)

    def create(self, **request: Any) -> Any:
        response = self.client.messages.create(**request)
        usage = getattr(response, "usage", None)
        tokens, output = getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", 0)
        if isinstance(tokens, int):
            self.ledger.record(request, tokens, output if isinstance(output, int) else 0)
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)
