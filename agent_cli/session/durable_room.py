"""How much of the hard limit the durable block may leave the conversation.

Contract: every request carries the system prompt, the project instructions, the tool
schemas and the durable block whatever the conversation holds (the *fixed part*), and no
compaction layer can shrink it. `/remember` and `/todo` are refused (`DurableBlockTooLarge`,
before anything is recorded) when, with the new item, the fixed part would leave the
conversation less than `room_needed(hard_limit)`: a quarter of the hard limit. Why a
quarter: L1 cuts a tool result to at most a quarter of the soft threshold, which is under
the hard limit, so the conversation keeps room for a request, one cut result and its
answer; a fact that eats into that room blocks turns that fit before (a run at hard
3,000 blocked every turn once the fixed part passed about 2,550 tokens). The rule is one
number the user can check and act on (`/forget`, or a higher hard limit).
"""

from __future__ import annotations

from typing import NamedTuple

from agent_cli.durable import DurableContextState
from agent_cli.errors import DurableBlockTooLarge
from agent_cli.events import Notice

CONVERSATION_SHARE = 4  # the conversation keeps at least a quarter of the hard limit


def room_needed(hard_limit: int) -> int:
    """The tokens under `hard_limit` the fixed part must leave the conversation."""
    return max(1, hard_limit // CONVERSATION_SHARE)


def is_room_left(fixed_tokens: int, hard_limit: int) -> bool:
    """True when a fixed part of `fixed_tokens` leaves the conversation its room."""
    return hard_limit - fixed_tokens >= room_needed(hard_limit)


class FixedPart(NamedTuple):
    """What every request carries besides the conversation (`fixed`), the durable block's
    part of it (`durable`) and the hard limit, all in API tokens."""

    fixed: int
    durable: int
    hard_limit: int


def check_durable_room(command: str, part: FixedPart, state: DurableContextState) -> None:
    """Raise `DurableBlockTooLarge` when `part` (with the new item's block) would leave the
    conversation too little of the hard limit; it names the oldest fact of `state`."""
    if is_room_left(part.fixed, part.hard_limit):
        return
    raise DurableBlockTooLarge(
        command,
        fixed_tokens=part.fixed,
        durable_tokens=part.durable,
        hard_limit=part.hard_limit,
        room_needed=room_needed(part.hard_limit),
        oldest_fact=_oldest_fact(state),
    )


def fixed_part_notice(part: FixedPart, state: DurableContextState) -> Notice | None:
    """The notice a session opens with when its durable block (saved before: a resumed
    session, or facts another session added) leaves the conversation too little room;
    None when there is room, or when forgetting every fact and item would not make it
    (the block is not the cause: the blocked line says what is)."""
    if not part.durable or is_room_left(part.fixed, part.hard_limit):
        return None
    if not is_room_left(part.fixed - part.durable, part.hard_limit):
        return None
    fields = {
        "fixed": part.fixed,
        "durable": part.durable,
        "hard": part.hard_limit,
        "needed": room_needed(part.hard_limit),
        "oldest": _oldest_fact(state) or "",
    }
    return Notice("warning", "durable_block_fills_limit", fields)


def _oldest_fact(state: DurableContextState) -> str | None:
    return state.facts[0].fact_id if state.facts else None
