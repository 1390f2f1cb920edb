"""The durable context of a session: its durable state, where it is kept, and its block.

Contract: `DurableContext` owns the durable state (facts, pending items) of one
workspace. It is loaded from the memory store when the session opens and changed only
through `remember`, `add_pending`, `move_pending` and `forget` (the REPL's `/remember`,
`/todo`, `/done`, `/block`, `/forget`). Each change is first recorded in the transcript
as a `user_command` record; a new fact or pending item points at that record
(`transcript:<session>:<sequence>`) and keeps the sha256 that record resolves to now, so
its source can be re-verified later, and a record changed since told from an intact
one (`durable.verification`: `source_status=changed`). The new
state is saved to the memory store before it is adopted: a change that cannot be saved
is not made. `render` first adopts what another session in the workspace saved since
(the memory file changed: a `/forget` or `/remember` there reaches this session's next
request; a file that cannot be read then leaves the state as it was), then resolves every
source pointer now (reading files through the resolver) and renders the block the wire
puts in the newest user turn; the last rendering and its resolutions are kept for the
figures that must not read files.

Each change's `durable_change` record names the folder whose memory file it was saved to,
so a resumed session knows every folder that holds its items. Those kept for a folder other
than the one it works in now (the project moved or renamed, or a copy of it:
`session.durable_folder`) are never moved, merged or removed on their own: `earlier` names
those folders, every new id goes on past the ids their files hold (so the session never
shows one id for two items), and `bring_earlier` copies their items here when the user asks
(`MemoryStore.bring`, ids kept; their files untouched), recording it (`durable_brought`).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agent_cli.durable import (
    DurableContextState,
    DurableFact,
    ItemsElsewhere,
    PendingItem,
    PendingStatus,
    add_fact,
    add_pending,
    distinct_source_pointers,
    forget_item,
    issue_id,
    items_elsewhere,
    render_durable_context,
    transition_pending,
)
from agent_cli.errors import DurableIdsClash, DurableTextTooLong, StoreError
from agent_cli.session.log import DURABLE_BROUGHT, DURABLE_CHANGE, USER_COMMAND, SessionLog
from agent_cli.sources import SourceResolution, SourceResolutionStatus, resolve_durable_sources
from agent_cli.store.path_text import path_fields

if TYPE_CHECKING:
    from agent_cli.sources import SourcePointerResolver
    from agent_cli.store.memory import MemoryStore

Change = Callable[[DurableContextState], DurableContextState]
T = TypeVar("T")
# A fact or pending item goes with every request: a paste of a file must not become one.
MAX_ITEM_CHARS = 2_000
# What adding an item gives: the new state, the item, and its id.
Added = tuple[DurableContextState, T, str]
# (state, the user's text, the source pointer, its evidence's sha256, the moment, states
# whose ids are taken too) -> what adding it gives
AddItem = Callable[
    [DurableContextState, str, str, str | None, str, tuple[DurableContextState, ...]], Added[T]
]
# (command, the block as it would be with the new item) -> None, or raises to refuse it
Fits = Callable[[str, str], None]
# (state, pointer of the next record) -> the state a change would make
Prospective = Callable[[DurableContextState, str], DurableContextState]
# The sequence a prospective item's source is rendered with: as many digits as a long
# session's records have, so the estimate is not short.
PROSPECTIVE_SEQUENCE = 100_000


class DurableContext:
    """The durable state of a session and its rendering; see the module contract."""

    def __init__(
        self,
        *,
        log: SessionLog,
        memory: MemoryStore,
        resolver: SourcePointerResolver,
        workspace: Path,
        clock: Callable[[], datetime],
        state: DurableContextState | None = None,
    ) -> None:
        self.log = log
        self.memory = memory
        self.resolver = resolver
        self.workspace = workspace
        self.clock = clock
        self._state = state or DurableContextState()
        self._resolutions: tuple[SourceResolution, ...] = ()
        self._text = ""
        self._stamp: tuple[int, int, int] | None = None  # of the memory file last read
        # the folders (as the session recorded them) whose memory files hold this
        # session's earlier items, kept apart from this folder's (module contract)
        self.earlier: tuple[str, ...] = ()

    @property
    def state(self) -> DurableContextState:
        return self._state

    @property
    def resolutions(self) -> tuple[SourceResolution, ...]:
        """The source resolutions of the last rendering."""
        return self._resolutions

    @property
    def text(self) -> str:
        """The block as last rendered (kept current by every change): no source I/O."""
        return self._text

    def load(self) -> None:
        """Adopt the state the memory store holds for the workspace; a damaged file
        raises `MemoryFileDamaged` and leaves the state as it was."""
        stamp = self.memory.stamp(self.workspace)
        self._state = self.memory.load(self.workspace)
        self._stamp = stamp

    def render(self) -> str:
        """Adopt what another session saved since, resolve every source pointer now and
        render the durable block."""
        self._adopt_saved_elsewhere()
        self._resolutions = tuple(resolve_durable_sources(self._state, self.resolver))
        self._text = render_durable_context(self._state, source_resolutions=self._resolutions)
        return self._text

    def _adopt_saved_elsewhere(self) -> None:
        """Adopt the memory file when it changed since this session last read or saved
        it (another session in the workspace saved); unreadable now, keep what was read."""
        stamp = self.memory.stamp(self.workspace)
        if stamp != self._stamp:
            with contextlib.suppress(StoreError):
                self._state = self.memory.load(self.workspace)
            self._stamp = stamp  # tried once per change of the file

    def remember(self, text: str, fits: Fits | None = None) -> DurableFact:
        """Add a confirmed fact in the user's words (`fits`: see `_add_item`)."""
        return self._add_item("remember", text, "add_fact", _with_new_fact, fits)

    def add_pending(self, text: str, fits: Fits | None = None) -> PendingItem:
        """Add an open pending item (`fits`: see `_add_item`)."""
        return self._add_item("todo", text, "add_pending", _with_new_pending_item, fits)

    def _add_item(
        self, command: str, text: str, action: str, add: AddItem[T], fits: Fits | None = None
    ) -> T:
        """Record the user's `command` with `text`, then `add` the new item, sourced to
        that record, to the state as saved (`_adopt`); returns the item. A text over
        `MAX_ITEM_CHARS` is refused first (`DurableTextTooLong`), then `fits` is given
        the block as it would be with the item (`_block_with`) and may raise to refuse
        it; either way nothing is recorded."""
        if len(text) > MAX_ITEM_CHARS:
            raise DurableTextTooLong(command, len(text), MAX_ITEM_CHARS)
        if fits is not None:
            fits(command, self._block_with(text, add))
        record = self.log.append(USER_COMMAND, {"command": command, "text": text})
        source = record["event_id"]
        digest = self._evidence_sha256(source)
        added: list[Added[T]] = []
        taken = self._earlier_states()

        def change(state: DurableContextState) -> DurableContextState:
            added.append(add(state, text, source, digest, self._now(None), taken))
            return added[-1][0]

        self._adopt(change, action, lambda: added[-1][2])
        return added[-1][1]

    def _block_with(self, text: str, add: AddItem[T]) -> str:
        """The block as it would render with one more item of `text` (as `add` makes it)
        (`_block_after`)."""
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        moment = self._now(None)
        return self._block_after(
            lambda state, pointer: add(state, text, pointer, digest, moment, ())[0], digest
        )

    def _block_after(self, change: Prospective, digest: str) -> str:
        """The block as it would render after `change` (given the state and the pointer of
        this session's next record, which resolves with `digest`): within a token or two of
        what making the change will render."""
        self.render()  # adopt what another session saved, resolve the sources now
        pointer = f"transcript:{self.log.session_id}:{PROSPECTIVE_SEQUENCE}"
        state = change(self._state, pointer)
        found = SourceResolution(pointer, SourceResolutionStatus.AVAILABLE, "ok", digest)
        known = (*(r for r in self._resolutions if r.pointer != pointer), found)
        cited = set(distinct_source_pointers(state))  # (a move keeps the item's source)
        return render_durable_context(
            state, source_resolutions=tuple(r for r in known if r.pointer in cited)
        )

    def move_pending(
        self, item_id: str, to: PendingStatus, reason: str | None = None, fits: Fits | None = None
    ) -> PendingItem:
        """Mark a pending item done or blocked (or open again); illegal moves raise. A reason
        is held to what `/todo` holds its text to (`MAX_ITEM_CHARS`, then `fits` given the
        block as it would be), before anything is recorded."""
        if reason is not None:
            self._check_reason(item_id, to, reason, fits)
        record = self.log.append(
            USER_COMMAND, {"command": to.value, "item_id": item_id, "reason": reason}
        )
        source = record["event_id"]
        digest = self._evidence_sha256(source)

        def change(state: DurableContextState) -> DurableContextState:
            current = _find(state, item_id)
            moment = self._now(current.last_confirmed_at if current else None)
            return transition_pending(
                state, item_id, to, moment, source, reason=reason, evidence_sha256=digest
            )

        state = self._adopt(change, f"pending_{to.value}", lambda: item_id)
        return _find(state, item_id) or state.pending_items[-1]

    def _check_reason(
        self, item_id: str, to: PendingStatus, reason: str, fits: Fits | None
    ) -> None:
        """Refuse `reason` as `_add_item` refuses a text (command `block`); the move itself is
        tried on the state first, so an unknown id or an illegal move raises as it would."""
        if len(reason) > MAX_ITEM_CHARS:
            raise DurableTextTooLong("block", len(reason), MAX_ITEM_CHARS)
        if fits is None:
            return
        digest = hashlib.sha256(reason.encode("utf-8", "surrogatepass")).hexdigest()

        def change(state: DurableContextState, pointer: str) -> DurableContextState:
            current = _find(state, item_id)
            moment = self._now(current.last_confirmed_at if current else None)
            return transition_pending(
                state, item_id, to, moment, pointer, reason=reason, evidence_sha256=digest
            )

        fits("block", self._block_after(change, digest))

    def forget(self, item_id: str) -> None:
        """Remove a fact or pending item for good (from the state and the memory file); the
        transcript keeps the record that added it and a `user_command` record of this."""
        self._adopt_saved_elsewhere()  # an item another session added may be forgotten
        forget_item(self._state, item_id)  # an unknown id raises before any record
        self.log.append(USER_COMMAND, {"command": "forget", "item_id": item_id})
        self._adopt(lambda state: forget_item(state, item_id), "forget", lambda: item_id)

    def _adopt(
        self, change: Change, action: str, item_id: Callable[[], str]
    ) -> DurableContextState:
        """Apply `change` to the memory file as it is on disk now (locked, so another session
        in this workspace cannot lose it or take the same id), then adopt the saved state,
        which also brings in what other sessions saved meanwhile. The `durable_change` record
        after it is bookkeeping (the `user_command` record before holds the words and is the
        source): the change is made, so a full disk there must not report it as failed."""
        state, self._stamp = self.memory.update_stamped(self.workspace, change)
        self._state = state
        self.render()  # the toolbar's figure includes the block: keep it current
        change_of = {"action": action, "item_id": item_id()}
        with contextlib.suppress(StoreError):
            self.log.append(DURABLE_CHANGE, {**change_of, **self._folder_fields()})
        return state

    def _folder_fields(self) -> dict[str, str]:
        """`{"workspace": ...}`: the folder whose memory file this session saves to."""
        return path_fields("workspace", str(self.workspace))

    def bring_earlier(self) -> tuple[ItemsElsewhere, ...]:
        """Copy the items kept for each folder of `earlier` into this workspace's memory
        (`MemoryStore.bring`: ids kept, that folder's file untouched), in order, and adopt
        the result. Each folder gives what it added here (`waiting`), or, when one of its
        ids names another item here, its `clashes` (nothing of it copied; it stays in
        `earlier`). A copy is recorded (`durable_brought`; bookkeeping: a full disk there
        does not undo it). Store errors raise; folders copied before stay copied."""
        outcomes = []
        for folder in self.earlier:
            self._adopt_saved_elsewhere()
            before = self._state
            try:
                found = self.memory.bring(folder, self.workspace)
            except DurableIdsClash as clash:
                held = self.memory.load_recorded(folder) or DurableContextState()
                waiting = items_elsewhere(folder, held, before).waiting
                outcomes.append(ItemsElsewhere(folder, waiting, clash.ids))
                continue
            self.earlier = tuple(other for other in self.earlier if other != folder)
            if found is not None:
                outcomes.append(items_elsewhere(folder, found, before))
                self._record_brought(folder)
        self.load()
        self.render()
        return tuple(outcomes)

    def _record_brought(self, folder: str) -> None:
        where = {**path_fields("from", folder), **path_fields("to", str(self.workspace))}
        with contextlib.suppress(StoreError):
            self.log.append(DURABLE_BROUGHT, where)

    def earlier_items(self) -> tuple[ItemsElsewhere, ...]:
        """For each folder of `earlier` whose memory file holds items this folder does not
        hold alike, what they are and the ids that would stop a bring (`durable.bringing`);
        a file that cannot be read now is passed over."""
        found = []
        for folder in self.earlier:
            with contextlib.suppress(StoreError):
                held = self.memory.load_recorded(folder)
                if held is not None:
                    found.append(items_elsewhere(folder, held, self._state))
        return tuple(one for one in found if not one.waiting.is_empty)

    def _earlier_states(self) -> tuple[DurableContextState, ...]:
        """What the memory files of `earlier` hold now (their ids are taken); one that
        cannot be read counts for nothing."""
        states = []
        for folder in self.earlier:
            with contextlib.suppress(StoreError):
                states.append(self.memory.load_recorded(folder) or DurableContextState())
        return tuple(states)

    def _evidence_sha256(self, pointer: str) -> str | None:
        """The sha256 of what `pointer` resolves to now (the record just written), read
        back through the resolver so it is the digest every later rendering compares;
        `None` when it cannot be read (the item then renders as one without a digest)."""
        resolution = self.resolver.resolve(pointer)
        return resolution.evidence_sha256 if resolution.is_available else None

    def _now(self, not_before: Any) -> str:
        """The clock's time, nudged past `not_before` so every change is strictly later."""
        moment = self.clock()
        if not_before:
            previous = datetime.fromisoformat(str(not_before))
            if moment <= previous:
                moment = previous + timedelta(microseconds=1)
        return moment.isoformat()


def _with_new_fact(
    state: DurableContextState,
    text: str,
    source: str,
    digest: str | None,
    moment: str,
    taken: tuple[DurableContextState, ...],
) -> Added[DurableFact]:
    fact_id = issue_id(state, "F", taken)
    fact = DurableFact(fact_id, text, source, moment, evidence_sha256=digest)
    return add_fact(state, fact), fact, fact.fact_id


def _with_new_pending_item(
    state: DurableContextState,
    text: str,
    source: str,
    digest: str | None,
    moment: str,
    taken: tuple[DurableContextState, ...],
) -> Added[PendingItem]:
    item_id = issue_id(state, "T", taken)
    item = PendingItem(item_id, text, source, moment, evidence_sha256=digest)
    return add_pending(state, item), item, item.item_id


def _find(state: DurableContextState, item_id: str) -> PendingItem | None:
    return next((i for i in state.pending_items if i.item_id == item_id), None)
