"""One model of the Messages API's prompt cache: the fake server's usage figures and the
benchmarks' prices both come from it, so a bench prices requests the way the tests'
fake reports them.

What it models (DESIGN.md section 5 and the prompt-caching guide):

- The prompt is a sequence of blocks in cache order: each tool, then each system block,
  then each message's content blocks (string content is one text block).
- A block carrying `cache_control` is a breakpoint; a top-level `cache_control` makes the
  last block one. A breakpoint *writes* the prefix that ends with it (if not already
  cached): those tokens are reported as `cache_creation_input_tokens`.
- A later request *reads* the longest prefix written before whose end lies at one of its
  breakpoints or up to `lookback_blocks` (20) blocks before one: those tokens are
  reported as `cache_read_input_tokens`. What is after the read and up to the last
  breakpoint is written; everything after the last breakpoint is plain `input_tokens`.
- Prefixes under `min_cacheable_tokens` (about 1,024 for the Sonnet and Opus models) are
  neither written nor read. Entries live 5 minutes (1 hour with `ttl: "1h"`), and each
  read or write renews them.

How a block's tokens are counted is the caller's choice (`BlockCounter`):
- `count_block_tokens`, the fake's: ceil(len(label + canonical JSON of the block without
  cache_control) / 4), where the label is "tool", "system", "user" or "assistant"; an
  image is billed by its pixels as the API bills it (`image_tokens`).
  Deterministic and close to (not equal to) the cl100k estimate the session makes,
  which is what calibration is for.
- `tokenizer_block_counter(counter)`, the benches': cl100k's count of the same text, an
  estimate of Claude's count that is the same for every policy compared.

Price (`PromptCost.price`), in units of the plain input price per token: tokens read 0.1,
tokens written 1.25, the rest 1.0. Output tokens are left out: the policies compared
produce the same answers.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import math
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_cli.events import Usage
from agent_cli.tokens import TokenCounter

CACHE_WRITE_PRICE = 1.25  # times the plain input price
CACHE_READ_PRICE = 0.1
MIN_CACHEABLE_TOKENS = 1_024
LOOKBACK_BLOCKS = 20
TTL_SECONDS = {"5m": 300.0, "1h": 3_600.0}
MAX_IMAGE_TOKENS = 1_600  # about what an image scaled to 1.15 megapixels costs
MAX_IMAGE_EDGE = 1_568  # a longer edge is scaled down to this before it is billed
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

BlockCounter = Callable[[str, dict[str, Any]], int]  # (label, block without cache_control)


@dataclass(frozen=True)
class PromptBlock:
    """One block of the prompt in cache order: its tokens, the hash of the prefix that
    ends with it, and its breakpoint's TTL in seconds (None when it is no breakpoint)."""

    tokens: int
    prefix_key: str
    breakpoint_ttl: float | None


def count_block_tokens(label: str, block: dict[str, Any]) -> int:
    """The fake's deterministic count: a quarter of the characters, rounded up; an image
    (a block of its own or in a tool result) as the API bills it, by its pixels
    (`image_tokens`), not by the characters of its base64."""
    images: list[int] = []
    text = json.dumps(_without_image_data(block, images), sort_keys=True)
    return math.ceil(len(label + text) / 4) + sum(images)


def image_tokens(source: Any) -> int:
    """What the API bills for an image: width x height / 750 after a long edge is scaled
    down to `MAX_IMAGE_EDGE`, at most `MAX_IMAGE_TOKENS`; `MAX_IMAGE_TOKENS` when the
    size cannot be read. Every format is billed by its pixels (`billed_size`)."""
    data = source.get("data") if isinstance(source, dict) else None
    try:
        image = base64.b64decode(str(data), validate=False)
    except (binascii.Error, ValueError):
        return MAX_IMAGE_TOKENS
    size = billed_size(image)
    if size is None:
        return MAX_IMAGE_TOKENS
    width, height = size
    longest = max(width, height, 1)
    if longest > MAX_IMAGE_EDGE:  # scaled down first, its proportions kept
        width = max(1, width * MAX_IMAGE_EDGE // longest)  # (an edge stays at least a pixel)
        height = max(1, height * MAX_IMAGE_EDGE // longest)
    return max(1, min(MAX_IMAGE_TOKENS, math.ceil(width * height / 750)))


def billed_size(image: bytes) -> tuple[int, int] | None:
    """The image's (width, height) as a decoder sees it: Pillow's, an oracle independent of
    agent-cli's header readers (a GIF whose frame is larger than its screen is as large as
    the frame). Where Pillow refuses data made of a header alone (a PNG without pixels, a
    WebP libwebp will not open), the size its PNG or WebP header declares."""
    from PIL import Image  # a test-only dependency, imported when an image is billed

    try:
        with Image.open(io.BytesIO(image)) as opened:
            width, height = opened.size
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        return _png_header_size(image) or _webp_header_size(image)
    return (width, height) if width > 0 and height > 0 else None


def _png_header_size(image: bytes) -> tuple[int, int] | None:
    if len(image) < 24 or not image.startswith(PNG_SIGNATURE):
        return None
    width, height = struct.unpack(">II", image[16:24])
    return (width, height) if width > 0 and height > 0 else None


def _webp_header_size(image: bytes) -> tuple[int, int] | None:
    """A WebP's size from its first chunk (VP8X, VP8L or VP8), by the WebP container spec."""
    if image[:4] != b"RIFF" or image[8:12] != b"WEBP":
        return None
    chunk, body = image[12:16], image[20:30]
    if chunk == b"VP8X" and len(body) == 10:
        return 1 + int.from_bytes(body[4:7], "little"), 1 + int.from_bytes(body[7:10], "little")
    if chunk == b"VP8L" and body[:1] == b"\x2f" and len(body) >= 5:
        bits = int.from_bytes(body[1:5], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and body[3:6] == b"\x9d\x01\x2a" and len(body) == 10:
        width, height = struct.unpack("<HH", body[6:10])
        return (width & 0x3FFF, height & 0x3FFF) if width & 0x3FFF and height & 0x3FFF else None
    return None


def _without_image_data(value: Any, images: list[int]) -> Any:
    """`value` with each image block's source left out, its tokens added to `images`."""
    if isinstance(value, dict):
        if value.get("type") == "image":
            images.append(image_tokens(value.get("source")))
            return {"type": "image"}
        return {key: _without_image_data(item, images) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_image_data(item, images) for item in value]
    return value


def tokenizer_block_counter(counter: TokenCounter) -> BlockCounter:
    """cl100k's count of the block's label and JSON, for benchmarks."""

    def count(label: str, block: dict[str, Any]) -> int:
        return counter.count_text(label + json.dumps(block, sort_keys=True, ensure_ascii=False))

    return count


def build_prompt_blocks(
    body: dict[str, Any], count: BlockCounter = count_block_tokens
) -> list[PromptBlock]:
    """The request's blocks in cache order (tools, system, messages), with prefix hashes."""
    labelled = [("tool", tool) for tool in body.get("tools") or []]
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    labelled += [("system", block) for block in system]
    for message in body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        labelled += [(message["role"], block) for block in blocks]
    digest = hashlib.sha256()
    result = []
    for position, (label, block) in enumerate(labelled):
        plain = {key: value for key, value in block.items() if key != "cache_control"}
        digest.update(f"{label}\x00{json.dumps(plain, sort_keys=True)}\x00".encode())
        control = block.get("cache_control")
        if position == len(labelled) - 1 and control is None:
            control = body.get("cache_control")  # automatic caching: the last block
        ttl = TTL_SECONDS[control.get("ttl", "5m")] if isinstance(control, dict) else None
        result.append(PromptBlock(count(label, plain), digest.hexdigest(), ttl))
    return result


class PromptCacheModel:
    """The cache one API key sees; `usage(body)` answers for one request and updates it.

    Thread-safe (the fake serves each request on its own thread). `clock` is seconds,
    monotonic; tests pass their own to step past a TTL.
    """

    def __init__(
        self,
        *,
        count: BlockCounter = count_block_tokens,
        min_cacheable_tokens: int = MIN_CACHEABLE_TOKENS,
        lookback_blocks: int = LOOKBACK_BLOCKS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.count = count
        self.min_cacheable_tokens = min_cacheable_tokens
        self.lookback_blocks = lookback_blocks
        self._clock = clock
        self._entries: dict[str, tuple[float, float]] = {}  # prefix key -> (expiry, ttl)
        self._lock = threading.Lock()

    def copy(self) -> PromptCacheModel:
        """A model with the same entries, to price a trial request without changing this one."""
        twin = PromptCacheModel(
            count=self.count,
            min_cacheable_tokens=self.min_cacheable_tokens,
            lookback_blocks=self.lookback_blocks,
            clock=self._clock,
        )
        with self._lock:
            twin._entries = dict(self._entries)
        return twin

    def usage(self, body: dict[str, Any]) -> dict[str, int]:
        """`input_tokens`, `cache_creation_input_tokens` and `cache_read_input_tokens`."""
        blocks = build_prompt_blocks(body, self.count)
        ends = _running_totals(blocks)
        with self._lock:
            now = self._clock()
            self._forget_expired(now)
            marks = [
                i
                for i, b in enumerate(blocks)
                if b.breakpoint_ttl and ends[i] >= self.min_cacheable_tokens
            ]
            read_end = self._longest_hit(blocks, marks)
            read = ends[read_end] if read_end is not None else 0
            if read_end is not None:
                self._renew(blocks[read_end].prefix_key, now, None)
            written_to = ends[marks[-1]] if marks else 0
            for mark in marks:
                self._renew(blocks[mark].prefix_key, now, blocks[mark].breakpoint_ttl)
        creation = max(0, written_to - read)
        return {
            "input_tokens": (ends[-1] if ends else 0) - read - creation,
            "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read,
        }

    def _longest_hit(self, blocks: list[PromptBlock], marks: list[int]) -> int | None:
        """The furthest block, at or up to `lookback_blocks` before a breakpoint, whose
        prefix is cached."""
        best: int | None = None
        for mark in marks:
            for position in range(mark, max(-1, mark - self.lookback_blocks - 1), -1):
                if blocks[position].prefix_key in self._entries:
                    best = position if best is None else max(best, position)
                    break
        return best

    def _renew(self, key: str, now: float, ttl: float | None) -> None:
        """Write or refresh an entry; a read (ttl None) keeps the entry's own TTL."""
        _, known_ttl = self._entries.get(key, (0.0, 0.0))
        lifetime = max(ttl or 0.0, known_ttl) or TTL_SECONDS["5m"]
        self._entries[key] = (now + lifetime, lifetime)

    def _forget_expired(self, now: float) -> None:
        for key in [key for key, (expiry, _) in self._entries.items() if expiry <= now]:
            del self._entries[key]


def _running_totals(blocks: list[PromptBlock]) -> list[int]:
    totals, running = [], 0
    for block in blocks:
        running += block.tokens
        totals.append(running)
    return totals


@dataclass
class PromptCost:
    """Requests priced one after another against one cache (`PromptCacheModel`): their
    tokens as the API reports them (`Usage`: plain input, cache writes, cache reads) and
    their price."""

    cache: PromptCacheModel
    usage: Usage = field(default_factory=Usage)
    requests: int = 0

    @classmethod
    def with_tokenizer(cls, counter: TokenCounter) -> PromptCost:
        """Priced with cl100k counts and a clock that never moves (no entry expires: a
        scripted session's turns come well within the 5-minute lifetime)."""
        return cls(PromptCacheModel(count=tokenizer_block_counter(counter), clock=lambda: 0.0))

    def price_request(self, wire: dict[str, Any]) -> Usage:
        """Add one wire request; return its usage."""
        found = self.cache.usage(wire)
        usage = Usage(
            found["input_tokens"],
            0,
            found["cache_creation_input_tokens"],
            found["cache_read_input_tokens"],
        )
        self.usage = self.usage.plus(usage)
        self.requests += 1
        return usage

    def trial(self) -> PromptCost:
        """A fresh tally against a copy of this cache."""
        return PromptCost(self.cache.copy())

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


def prompt_tokens(wire: dict[str, Any], counter: TokenCounter) -> int:
    """All the request's tokens, counted as the benches' cache model counts them."""
    count = tokenizer_block_counter(counter)
    return sum(block.tokens for block in build_prompt_blocks(wire, count))
