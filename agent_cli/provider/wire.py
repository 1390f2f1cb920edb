"""Build the one dict that is sent to the Messages API, or refuse to.

Contract: `build_wire_request(request, model)` returns a fresh JSON-ready dict
`{"model", "max_tokens", "system", "messages", "tools"}` and never mutates the request.
It strips every key the API does not accept for a block (private `_` keys included),
drops empty text (an error tool_result left without content gets a short text instead,
since the API refuses it empty), merges consecutive messages of one role, and checks
what the API checks: the view starts with a user message, every assistant `tool_use` is
answered by a `tool_result` in the very next user message with the results first, no
result answers a call that was not just made, and every tool id is in the API's grammar
(`protocol.is_valid_tool_use_id`). A view may end with an assistant message:
that is how an answer the API paused (`pause_turn`) is sent back to be continued; its
final text is right-trimmed, since the API refuses trailing whitespace there. Anything
else raises `WireFormatError` with a reason code and the index of the offending message
in `request.messages`: a request the API would reject is never sent, and pairing is
never silently repaired here (that belongs to `agent_cli.protocol`).

Cost: a request costs the messages added since the last one, not the history. Each frozen
message is cleaned once (`wire_message`: its wire blocks and tool ids are derived from it
and held by it); the pairing of a valid view is checked on those ids (`wire_shape`); and
a `WireBuilder`, which the Anthropic provider keeps, starts each request from the closed
turns of the last one it built when the new view begins with the same messages, so it
cleans, checks and assembles only the turns after them (`make bench`,
`bench_request_path`). Its answers are exactly `build_wire_request`'s.

Images: a request never carries what the API refuses of its images (`image_limits`): one
over 8,000 px on a side, more than 100, or more than 20 when one is over 2,000 px. The
images it must leave out (the oldest: the rule keeps the newest) are replaced in the
request only by a text naming each and its pointer (`wire_images`); the view and the
transcript keep them. Where each image sits and its size are derived once per frozen
message and kept with the closed turns, so a request reads no block of the history for
them.

Cache breakpoints: the last tool, the system prompt and the last block of the
conversation tail carry `{"type": "ephemeral"}`, so the prefix up to the tail is reused on
the next request until compaction rewrites it. The fourth goes on the running digest,
sent as one text block per part: the next compaction adds a part and reads the earlier
ones from the cache instead of writing them again. A
one-off request says so (`ModelRequest.cache`): a summary request that reuses the cached
prefix ends its breakpoint with the messages the last request wrote (the ones since, and
its instructions, are sent plain), and a bounded summary request carries none, so neither
writes at 1.25x what no later request will read.

The durable context (`request.durable_context`) rides after that breakpoint, as the last
text block of the newest user turn: it is re-rendered for every request and never stored,
so a changed fact or todo changes only what follows the cached prefix. In the system
prompt it would sit before every message in cache order, and each `/remember` or `/done`
would make the next request write the whole history again at 1.25x instead of reading it
at 0.1x.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.errors import WireFormatError
from agent_cli.events import (
    CACHE_CONVERSATION,
    CACHE_MODES,
    CACHE_NOTHING,
    CACHE_READ_PREFIX,
    ModelRequest,
)
from agent_cli.frozen import FrozenDict, thaw
from agent_cli.protocol import is_strict_json
from agent_cli.provider.cache_placement import (
    attach_durable_context,
    build_system_blocks,
    drop_cache_breakpoints,
    mark_cache_breakpoint,
    mark_conversation_breakpoint,
    mark_digest_breakpoint,
)
from agent_cli.provider.wire_images import PlacedImage, leave_out_images
from agent_cli.provider.wire_message import WireMessage, build_wire_message
from agent_cli.provider.wire_shape import (
    NOTHING_PAIRED,
    PairingState,
    WireTurn,
    check_conversation_shape,
    check_tool_pairing,
    is_pairing_valid,
    merge_turns,
    trim_final_assistant_text,
)

ALLOWED_TOOL_KEYS = frozenset({"name", "description", "input_schema"})


def build_wire_request(request: ModelRequest, model: str) -> dict[str, Any]:
    """Return the wire dict for `request` on `model`, or raise `WireFormatError`."""
    wire, _ = _build_whole(request, model)
    return wire


@dataclass(frozen=True)
class SentPrefix:
    """The closed turns of a request already built: all but its last two turns, which
    are the only ones a later request changes (the conversation's breakpoint, a trimmed
    final text and the durable block all go there). `messages` are the frozen messages
    they came from, `wire_messages` the turns as sent (the digest's breakpoint already
    on), `pairing` the pairing rule's state after them, `images` the images in them.

    `wire_messages` are plain dicts and lists, made once as a turn closes (the strings
    are shared, not copied) and put in every later request as they are (why plain:
    docs/performance.md, "The request path")."""

    messages: tuple[Any, ...] = ()
    wire_messages: tuple[dict[str, Any], ...] = ()
    last_role: str | None = None
    pairing: PairingState = NOTHING_PAIRED
    images: tuple[PlacedImage, ...] = ()

    def starts(self, messages: Sequence[Any]) -> bool:
        """True when `messages` begin with this prefix's messages and go on after them.
        The comparison runs in C and stops at identity for the very same messages."""
        count = len(self.messages)
        return 0 < count < len(messages) and tuple(messages[:count]) == self.messages


NOTHING_SENT = SentPrefix()


class WireBuilder:
    """`build_wire_request`, at the cost of what changed since the last request it built.

    A session's requests share all but their newest turns, and their messages are frozen:
    the builder keeps the closed turns of the last request (`SentPrefix`) and, when the
    next request's messages begin with the same ones, builds only the turns after them
    and checks their pairing from the state the prefix left. It returns what
    `build_wire_request` returns (equal values) and raises what it raises: where the
    newer turns do not follow on cleanly (a pairing fault, roles that would merge across
    the boundary), it builds the whole request again. A request that caches nothing is
    built whole; it and a request reading a cached prefix (a summary's, whose breakpoint
    may lie in a turn that would be kept) leave the kept turns as they were.

    What it returns is for reading only (the provider hands it to the SDK, which copies
    it): its earlier messages are the builder's own and go out again in the next request."""

    def __init__(self) -> None:
        self._sent = NOTHING_SENT

    def build(self, request: ModelRequest, model: str) -> dict[str, Any]:
        sent = self._sent
        built = None
        if _follows_on(sent, request):
            built = _build(request, model, sent)
        wire, following = built or _build_whole(request, model)
        if request.cache == CACHE_CONVERSATION:  # a one-off's turns are no later request's
            self._sent = following
        return wire


def _follows_on(sent: SentPrefix, request: ModelRequest) -> bool:
    """True when `request` may be built from the kept turns of `sent`: it caches something,
    begins with their messages and, reading a cached prefix, puts its breakpoint after them
    (the kept turns are closed: no breakpoint is placed in them)."""
    if request.cache == CACHE_NOTHING or not sent.starts(request.messages):
        return False
    return request.cache != CACHE_READ_PREFIX or request.cached_messages > len(sent.messages)


def _build_whole(request: ModelRequest, model: str) -> tuple[dict[str, Any], SentPrefix]:
    built = _build(request, model, NOTHING_SENT)
    assert built is not None, "only a build from kept turns can decline"
    return built


def _build(
    request: ModelRequest, model: str, sent: SentPrefix
) -> tuple[dict[str, Any], SentPrefix] | None:
    """The wire dict and the prefix it leaves, building the turns after `sent`; None when
    they do not follow on from it cleanly (then the caller builds from nothing, which
    always answers)."""
    if not isinstance(request.max_tokens, int) or request.max_tokens <= 0:
        raise WireFormatError("bad_max_tokens")
    if request.cache not in CACHE_MODES:
        raise WireFormatError("bad_cache_mode")
    try:
        turns = merge_turns(_clean_turns(request.messages, len(sent.messages)))
    except RecursionError:  # nesting too deep to copy; the API would refuse it as well
        raise WireFormatError("too_deeply_nested") from None
    if sent.messages and (len(turns) < 2 or turns[0].role == sent.last_role):
        return None
    if not sent.messages:
        check_conversation_shape(turns)
    trim_final_assistant_text(turns)
    if not is_pairing_valid(turns, sent.pairing):
        if sent.messages:
            return None
        check_tool_pairing(turns)  # raises, naming the first offending message
    mark_conversation_breakpoint(turns, request.cache, request.cached_messages)
    mark_digest_breakpoint(turns, request.messages, request.cache)
    following = _following_prefix(request.messages, sent, turns)
    attach_durable_context(turns, request.durable_context)
    messages = [*sent.wire_messages, *({"role": t.role, "content": t.blocks} for t in turns)]
    messages = leave_out_images(messages, sent.images + _placed(turns, len(sent.wire_messages)))
    wire: dict[str, Any] = {"model": model, "max_tokens": request.max_tokens}
    system = build_system_blocks(request.system, request.project_instructions)
    if system:
        wire["system"] = system
    wire["messages"] = messages
    tools = build_tool_list(request.tools)
    if tools:
        wire["tools"] = tools
    if request.cache == CACHE_NOTHING:
        drop_cache_breakpoints(wire)
    return wire, following


def _following_prefix(
    messages: Sequence[Any], sent: SentPrefix, turns: list[WireTurn]
) -> SentPrefix:
    """`sent` grown by the turns that are now closed (all but the last two), if they came
    from frozen messages only; else `sent` as it was. Call it before the durable block is
    attached, which is no part of a closed turn."""
    closed = turns[:-2]
    if not closed:
        return sent
    end = turns[-2].origins[0]
    added = messages[len(sent.messages) : end]
    if not all(type(message) is FrozenDict for message in added):
        return sent
    return SentPrefix(
        messages=sent.messages + tuple(added),
        wire_messages=sent.wire_messages
        + tuple({"role": turn.role, "content": thaw(turn.blocks)} for turn in closed),
        last_role=closed[-1].role,
        pairing=sent.pairing.after(closed),
        images=sent.images + _placed(closed, len(sent.wire_messages)),
    )


def _placed(turns: Sequence[WireTurn], first: int) -> tuple[PlacedImage, ...]:
    """The images of `turns`, the first of which is the request's `first` wire message."""
    return tuple(
        PlacedImage(first + at, image) for at, turn in enumerate(turns) for image in turn.images
    )


def build_tool_list(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool schemas reduced to name/description/input_schema; the last one is cached.

    A tool strict JSON cannot carry (NaN or Infinity in its schema, a lone surrogate) is
    refused with "unsendable_tool" (`protocol.is_strict_json`): the SDK's encoder would
    raise on it, outside any error agent-cli knows. MCP tools are screened before they
    are offered (`mcp_servers.schema_rules`); this is the last line behind that."""
    cleaned: list[dict[str, Any]] = []
    seen: set[str] = set()
    for tool in tools:
        if not isinstance(tool, dict):
            raise WireFormatError("malformed_tool")
        name, schema = tool.get("name"), tool.get("input_schema")
        if not isinstance(name, str) or not name or not isinstance(schema, dict):
            raise WireFormatError("malformed_tool")
        if name in seen:
            raise WireFormatError("duplicate_tool_name")
        seen.add(name)
        kept = {key: value for key, value in tool.items() if key in ALLOWED_TOOL_KEYS}
        if not is_strict_json(kept):
            raise WireFormatError("unsendable_tool")
        cleaned.append(copy.deepcopy(kept))
    mark_cache_breakpoint(cleaned)
    return cleaned


def _clean_turns(messages: Sequence[Any], start: int) -> list[WireTurn]:
    """One `WireTurn` per message from `start` on that sends something (`wire_message`)."""
    turns: list[WireTurn] = []
    for index in range(start, len(messages)):
        cleaned = build_wire_message(messages[index], index)
        if cleaned.blocks:
            turns.append(_turn_of(cleaned, index))
    return turns


def _turn_of(message: WireMessage, index: int) -> WireTurn:
    """A turn holding the `index`-th message alone (its blocks in a fresh list)."""
    return WireTurn(
        message.role,
        list(message.blocks),
        [index] * len(message.blocks),
        list(message.tool_use_ids),
        list(message.tool_result_ids),
        message.results_lead,
        list(message.images),
    )
