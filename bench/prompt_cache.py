"""A prompt-cache price model for benchmarks: what a sequence of wire requests would cost.

The model (Anthropic's prefix caching as DESIGN.md section 5 states it):
- A request is laid out in cache order: tools, then system blocks, then message blocks.
  Each block is one unit; its tokens are cl100k's count of the block's JSON (without
  `cache_control`), an estimate of Claude's count that is the same for every policy.
- Every block marked with `cache_control` (where `provider/wire.py` puts them) ends a
  prefix that the request writes to the cache, when that prefix is at least
  `MIN_CACHEABLE_TOKENS` long.
- A request reads the longest prefix written by an earlier request that is also a
  prefix of it and ends at most `LOOKBACK_BLOCKS` blocks before one of its breakpoints.
  Entries never expire here (a session's turns come well within the 5-minute lifetime).
- Price, in units of the plain input price per token: tokens read 0.1, tokens written
  (from the end of what was read to the last breakpoint) 1.25, the rest 1.0. Output
  tokens are left out: the policies compared produce the same answers.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from agent_cli.compaction.firing import CACHE_READ_PRICE, CACHE_WRITE_PRICE
from agent_cli.events import Usage
from agent_cli.tokens import TokenCounter

MIN_CACHEABLE_TOKENS = 1_024
LOOKBACK_BLOCKS = 20


@dataclass
class PromptCost:
    """The requests priced so far: their tokens as the API would report them (`Usage`:
    plain input, cache writes, cache reads) and their price."""

    usage: Usage = field(default_factory=Usage)
    requests: int = 0

    @property
    def plain(self) -> int:
        return self.usage.input_tokens

    @property
    def written(self) -> int:
        return self.usage.cache_creation_input_tokens

    @property
    def read(self) -> int:
        return self.usage.cache_read_input_tokens

    @property
    def price(self) -> float:
        return self.plain + CACHE_WRITE_PRICE * self.written + CACHE_READ_PRICE * self.read

    @property
    def read_share(self) -> float:
        total = self.usage.prompt_tokens
        return self.read / total if total else 0.0


@dataclass
class PromptCacheModel:
    """Prices wire requests one after another against the prefixes they wrote."""

    counter: TokenCounter
    written: set[str] = field(default_factory=set)
    cost: PromptCost = field(default_factory=PromptCost)

    def price(self, wire: dict[str, Any]) -> tuple[int, int, int]:
        """Add one request; return its (plain, written, read) tokens."""
        units = list(iter_units(wire))
        keys, ends, total = [], [], 0
        digest = hashlib.sha256()
        for text, _ in units:
            digest.update(text.encode())
            keys.append(digest.hexdigest())
            total += self.counter.count_text(text)
            ends.append(total)
        breakpoints = [index for index, (_, marked) in enumerate(units) if marked]
        read_to = self._longest_read(keys, breakpoints)
        read = ends[read_to] if read_to >= 0 else 0
        last = breakpoints[-1] if breakpoints else -1
        written = max(0, (ends[last] if last >= 0 else 0) - read)
        for index in breakpoints:
            if ends[index] >= MIN_CACHEABLE_TOKENS:
                self.written.add(keys[index])
        plain = total - read - written
        self.cost.usage = self.cost.usage.plus(Usage(plain, 0, written, read))
        self.cost.requests += 1
        return plain, written, read

    def _longest_read(self, keys: list[str], breakpoints: list[int]) -> int:
        """Index of the last unit of the longest readable prefix, or -1."""
        best = -1
        for point in breakpoints:
            for index in range(point, max(point - LOOKBACK_BLOCKS, -1), -1):
                if keys[index] in self.written:
                    best = max(best, index)
                    break
        return best


def iter_units(wire: dict[str, Any]) -> Any:
    """(text, has a breakpoint) for every block in cache order: tools, system, messages."""
    for tool in wire.get("tools") or []:
        yield _unit("tool", tool)
    for block in wire.get("system") or []:
        yield _unit("system", block)
    for message in wire["messages"]:
        for block in message["content"]:
            yield _unit(message["role"], block)


def _unit(label: str, item: dict[str, Any]) -> tuple[str, bool]:
    plain = {key: value for key, value in item.items() if key != "cache_control"}
    return label + json.dumps(plain, sort_keys=True, ensure_ascii=False), "cache_control" in item
