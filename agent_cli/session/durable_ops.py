"""Changes to the durable state made from the REPL (`/remember`, `/todo`, `/done`, `/block`).

Contract: each change is first recorded in the transcript as a `user_command` record; the
new fact or pending item points at that record (`transcript:<session>:<sequence>`), so the
source can be re-verified later. The new state is saved to the memory store before the
session adopts it: a change that cannot be saved is not made.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from agent_cli.durable import (
    DurableContextState,
    DurableFact,
    PendingItem,
    PendingStatus,
    add_fact,
    add_pending,
    forget_item,
    transition_pending,
)
from agent_cli.errors import StoreError
from agent_cli.session.log import DURABLE_CHANGE, USER_COMMAND

if TYPE_CHECKING:
    from agent_cli.session.core import Session


def remember(session: Session, text: str) -> DurableFact:
    """Add a confirmed fact in the user's words."""
    record = session.log.append(USER_COMMAND, {"command": "remember", "text": text})
    added: list[DurableFact] = []

    def change(state: DurableContextState) -> DurableContextState:
        fact = DurableFact(
            fact_id=_next_id("F", [f.fact_id for f in state.facts]),
            content=text,
            source_pointer=record["event_id"],
            last_confirmed_at=_now(session, None),
        )
        added.append(fact)
        return add_fact(state, fact)

    _adopt(session, change, "add_fact", lambda: added[-1].fact_id)
    return added[-1]


def add_todo(session: Session, text: str) -> PendingItem:
    """Add an open pending item."""
    record = session.log.append(USER_COMMAND, {"command": "todo", "text": text})
    added: list[PendingItem] = []

    def change(state: DurableContextState) -> DurableContextState:
        item = PendingItem(
            item_id=_next_id("T", [i.item_id for i in state.pending_items]),
            description=text,
            source_pointer=record["event_id"],
            last_confirmed_at=_now(session, None),
        )
        added.append(item)
        return add_pending(state, item)

    _adopt(session, change, "add_pending", lambda: added[-1].item_id)
    return added[-1]


def move_pending(
    session: Session, item_id: str, to: PendingStatus, reason: str | None = None
) -> PendingItem:
    """Mark a pending item done or blocked (or open again); illegal moves raise."""
    record = session.log.append(
        USER_COMMAND, {"command": to.value, "item_id": item_id, "reason": reason}
    )

    def change(state: DurableContextState) -> DurableContextState:
        current = _find(state, item_id)
        moment = _now(session, current.last_confirmed_at if current else None)
        return transition_pending(state, item_id, to, moment, record["event_id"], reason=reason)

    state = _adopt(session, change, f"pending_{to.value}", lambda: item_id)
    return _find(state, item_id) or state.pending_items[-1]


def forget(session: Session, item_id: str) -> None:
    """Remove a fact or pending item for good (from the state and the memory file); the
    transcript keeps the record that added it and a `user_command` record of this."""
    forget_item(session.durable_state, item_id)  # an unknown id raises before any record
    session.log.append(USER_COMMAND, {"command": "forget", "item_id": item_id})
    _adopt(session, lambda state: forget_item(state, item_id), "forget", lambda: item_id)


def _adopt(
    session: Session,
    change: Callable[[DurableContextState], DurableContextState],
    action: str,
    item_id: Callable[[], str],
) -> DurableContextState:
    """Apply `change` to the memory file as it is on disk now (locked, so another session
    in this workspace cannot lose it or take the same id), then adopt the saved state,
    which also brings in what other sessions saved meanwhile. The `durable_change` record
    after it is bookkeeping (the `user_command` record before holds the words and is the
    source): the change is made, so a full disk there must not report it as failed."""
    state: DurableContextState = session.memory.update(session.workspace, change)
    session.durable_state = state
    session.render_durable()  # the toolbar's figure includes the block: keep it current
    with contextlib.suppress(StoreError):
        session.log.append(DURABLE_CHANGE, {"action": action, "item_id": item_id()})
    return state


def _find(state: DurableContextState, item_id: str) -> PendingItem | None:
    return next((i for i in state.pending_items if i.item_id == item_id), None)


def _next_id(prefix: str, existing: list[str]) -> str:
    numbers = [
        int(x[len(prefix) :])
        for x in existing
        if x.startswith(prefix) and x[len(prefix) :].isdigit()
    ]
    return f"{prefix}{max(numbers, default=0) + 1}"


def _now(session: Session, not_before: Any) -> str:
    """The clock's time, nudged past `not_before` so every change is strictly later."""
    moment = session.clock()
    if not_before:
        previous = datetime.fromisoformat(str(not_before))
        if moment <= previous:
            moment = previous + timedelta(microseconds=1)
    return moment.isoformat()
