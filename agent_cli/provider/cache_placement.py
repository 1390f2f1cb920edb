"""Where a request's cacheable parts go: breakpoints, the system prompt, the durable block.

Contract: `mark_cache_breakpoint` marks the last of some blocks with `CACHE_CONTROL`, whose
entries the API keeps `CACHE_LIFETIME` after the last request that wrote or read them;
`build_system_blocks` makes the system prompt and the project instructions cached blocks;
`attach_durable_context` puts the durable block after the conversation's breakpoint (see
`wire`'s module doc for why). All three change only the lists they are given, which
`wire` builds fresh; a block that gets a breakpoint is replaced by a marked copy, since a
frozen message's blocks are shared by every request that sends it (`wire_message`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, Protocol

from agent_cli.compaction.markers import is_digest_message
from agent_cli.events import CACHE_NOTHING, CACHE_READ_PREFIX

CACHE_CONTROL: dict[str, str] = {"type": "ephemeral"}
# How long the API keeps an entry after the last request that wrote or read it: 5 minutes,
# or 1 hour for a breakpoint with `"ttl": "1h"` (none of ours has one).
CACHE_LIFETIME = timedelta(minutes=60 if CACHE_CONTROL.get("ttl") == "1h" else 5)


class TurnLike(Protocol):
    """A merged message under construction, as `wire` builds it."""

    role: str
    blocks: list[dict[str, Any]]
    origins: list[int]


def mark_cache_breakpoint(blocks: list[dict[str, Any]]) -> None:
    """Mark the last block (if any) as the end of a prefix to cache."""
    if blocks:
        blocks[-1] = _with_breakpoint(blocks[-1])


def _with_breakpoint(block: dict[str, Any]) -> dict[str, Any]:
    return {**block, "cache_control": dict(CACHE_CONTROL)}


def mark_conversation_breakpoint(turns: Sequence[TurnLike], mode: str, cached: int) -> None:
    """The conversation's breakpoint: on its last block, or with `CACHE_READ_PREFIX` on the
    last block that came from one of the first `cached` messages (those an earlier request
    wrote; the messages after them may have been merged into the same turn), none when
    `cached` is 0. With `CACHE_NOTHING`, none."""
    if mode == CACHE_NOTHING or not turns:
        return
    if mode != CACHE_READ_PREFIX:
        mark_cache_breakpoint(turns[-1].blocks)
        return
    _mark_last_block_from(turns, lambda origin: origin < cached)


def _mark_last_block_from(turns: Sequence[TurnLike], wanted: Callable[[int], bool]) -> None:
    """Mark the last block whose source message index is `wanted`, if any."""
    for turn in reversed(turns):
        for at in range(len(turn.origins) - 1, -1, -1):
            if wanted(turn.origins[at]):
                turn.blocks[at] = _with_breakpoint(turn.blocks[at])
                return


def mark_digest_breakpoint(turns: Sequence[TurnLike], messages: Sequence[Any], mode: str) -> None:
    """The fourth breakpoint, on the last block of the running digest (compaction puts it
    first or second in the view), unless the request caches nothing."""
    if mode == CACHE_NOTHING:
        return
    at = next(
        (i for i, m in enumerate(messages[:2]) if isinstance(m, dict) and is_digest_message(m)),
        None,
    )
    if at is not None:
        _mark_last_block_from(turns, lambda origin: origin == at)


def drop_cache_breakpoints(wire: dict[str, Any]) -> None:
    """Remove every breakpoint from a built request (tools, system, messages); a marked
    block is replaced by a copy without its mark."""
    lists = [wire.get("tools", []), wire.get("system", [])]
    lists += [message["content"] for message in wire.get("messages", ())]
    for blocks in lists:
        for at, block in enumerate(blocks):
            if "cache_control" in block:
                blocks[at] = {key: value for key, value in block.items() if key != "cache_control"}


def build_system_blocks(system: str, project_instructions: str = "") -> list[dict[str, Any]]:
    """The base system prompt, then the project instructions, as text blocks; the last is
    cached. Both are stable; the durable block, which changes, goes after the messages'
    breakpoint instead (`attach_durable_context`)."""
    blocks = [
        {"type": "text", "text": text}
        for text in (system, project_instructions)
        if isinstance(text, str) and text.strip()
    ]
    mark_cache_breakpoint(blocks)
    return blocks


def attach_durable_context(turns: Sequence[TurnLike], durable_context: str) -> None:
    """Append the durable block to the newest user turn, after the cache breakpoint (see
    `wire`'s module doc). A view that ends with an assistant turn (a paused answer sent back)
    carries it in the user turn before that one, which is before the breakpoint: that one
    continuation request writes the turn after it again if the block changed since."""
    if not isinstance(durable_context, str) or not durable_context.strip():
        return
    newest_user = next(turn for turn in reversed(turns) if turn.role == "user")
    newest_user.blocks.append({"type": "text", "text": durable_context})
    newest_user.origins.append(newest_user.origins[-1])
