"""The conversation: the prompt view, the transcript that records it, and held results.

Contract: `Conversation` is the only writer of the view, and the view changes only after
the transcript holds the change (write-ahead): `append` records a message and then
shows it; `adopt_compaction` records the compacted view and then adopts it; `restore`
adopts a view replayed from the transcript (a resume), which already holds it; and
`redact_view` redacts values learned mid-session from it, unrecorded, as a resume does. A
message the disk refuses leaves the view as it was and raises the store's error. The
view is read-only from outside (`FrozenList` of frozen messages: every mutator raises
`ReadOnlyValueError`).

Each message is recorded with its token counts (`TokenCounter.record_counts`) and shown
carrying them, as a resume shows it (`session.log.rebuild_from_records`), so a resumed
view is counted without tokenizing its history again.

It also knows what the prompt cache holds of the view (`cache_write`): the messages of
the last request the API processed (it reported usage for it, `note_processed`) and when
that request was sent (`note_sent`, by the log's clock), so a summary may reuse them only
while the cache keeps them; and which messages at the view's end no request the API
counted carried yet (`uncounted`).

The conversation also owns the view's index (`compaction.ViewIndex`): `measure_view`
brings it up to date, which costs what was appended since the last measure (identity
checks on frozen messages); after a compaction or a restore the index meets a view that
does not extend the one it holds and rebuilds itself from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_cli.compaction import CompactionPolicy, ViewIndex
from agent_cli.events import CompactionRecord
from agent_cli.frozen import FrozenList, freeze
from agent_cli.secret_forms import SecretForms
from agent_cli.session.log import SessionLog, with_source
from agent_cli.session.resumed_secrets import redact_resumed_view
from agent_cli.tokens import TokenCounter, with_recorded_counts

Message = dict[str, Any]


@dataclass(frozen=True)
class CacheWrite:
    """The messages of the last request the API processed, and when it was sent: the
    prompt cache holds them, renewed no earlier than `at`."""

    messages: tuple[Message, ...]
    at: datetime


class Conversation:
    """The view of one session and its lossless record; see the module contract."""

    def __init__(
        self, log: SessionLog, counter: TokenCounter, view: Iterable[Message] = ()
    ) -> None:
        self.log = log
        self._counter = counter
        self._index = ViewIndex(counter)
        self._view: FrozenList = FrozenList(view)
        self._held: tuple[Message, Message] | None = None
        self._sent: tuple[Message, ...] = ()
        self._sent_at: datetime | None = None
        self._cache_write: CacheWrite | None = None
        # Which messages the last request the API processed carried, by identity: that
        # request's `CacheWrite` keeps them alive, so their ids stay theirs.
        self._counted: frozenset[int] = frozenset()

    @property
    def session_id(self) -> str:
        return self.log.session_id

    @property
    def view(self) -> FrozenList:
        """The prompt view: read-only, every message frozen."""
        return self._view

    @property
    def index(self) -> ViewIndex:
        """The view's index, as the last `measure_view` left it (a compaction run takes it)."""
        return self._index

    def measure_view(self, policy: CompactionPolicy) -> int:
        """Tokens of the view, keys read under `policy`; also for a view whose last tool
        call is still running (counted, not indexed)."""
        return self._index.count(self._view, policy)

    @property
    def sent(self) -> tuple[Message, ...]:
        """The messages the last request carried (what the prompt cache may hold)."""
        return self._sent

    @property
    def held_results(self) -> tuple[Message, Message] | None:
        """The trailing call and the results the disk refused, until they are recorded."""
        return self._held

    @property
    def cache_write(self) -> CacheWrite | None:
        """What the last request the API processed left in the prompt cache; None before."""
        return self._cache_write

    def note_sent(self) -> tuple[Message, ...]:
        """Remember the view as the request about to be sent carries it, and when; return it."""
        self._sent, self._sent_at = tuple(self._view), self.log.clock()
        return self._sent

    def note_processed(self) -> None:
        """The API reported usage for the request last noted sent: it read or wrote its
        messages in the prompt cache (`cache_write`)."""
        if self._sent_at is not None:
            self._cache_write = CacheWrite(self._sent, self._sent_at)
            self._counted = frozenset(map(id, self._sent))

    def uncounted(self) -> tuple[Message, ...]:
        """The messages at the end of the view that the last request the API processed did
        not carry (all of them before one did): content whose tokens are still only
        estimated. Read from the end, so it costs what was added since."""
        view, counted = self._view, self._counted
        start = len(view)
        while start > 0 and id(view[start - 1]) not in counted:
            start -= 1
        return tuple(view[start:])

    def append(self, message: Message) -> dict[str, Any]:
        """Record `message` with its token counts, then show it in the view with its
        record's pointer (under the private `SOURCE_KEY`, so compaction can point back at
        it) and those counts carried (as a resume shows it); return the record."""
        return self._record(message, ())

    def adopt_compaction(
        self, entry: CompactionRecord, removed_ids: Iterable[str], messages: Sequence[Message]
    ) -> None:
        """Record a compaction with the view it leaves, then adopt that view. A store error
        propagates and leaves the view uncompacted (it must then not be sent)."""
        self.log.append_compaction(entry, removed_ids, list(messages))
        self._replace(messages)

    def restore(self, messages: Sequence[Message]) -> None:
        """Adopt a view rebuilt from the transcript (a resume): the record already holds
        it, so nothing is written."""
        self._replace(messages)

    def redact_view(self, secrets: SecretForms) -> int:
        """Redact `secrets` (values learned mid-session) from the view, as a resumed view
        is redacted (`resumed_secrets.redact_resumed_view`); how many occurrences. Nothing
        is recorded: the transcript keeps what it wrote, as for a resume, and what is sent
        comes from the view. A message holding none of them is the same object; the index
        meets a view that does not extend the one it holds and rebuilds itself. Held
        results and their call are redacted too, so they rejoin the view without the
        values (and the results are recorded so): a check for values may run while they
        are held (a view the user opens between turns, `Session.learn_dotenv_changes`)."""
        view, count = redact_resumed_view(self._view, secrets)
        if count:
            self._replace(view)
        return count + self._redact_held(secrets)

    def _redact_held(self, secrets: SecretForms) -> int:
        """Redact `secrets` from the held call and results; how many occurrences."""
        if self._held is None:
            return 0
        held, count = redact_resumed_view(self._held, secrets)
        if count:
            call, results = held
            self._held = (call, results)
        return count

    def hold_unrecorded_results(self, results: Message) -> None:
        """The results of the trailing tool call could not be recorded (a full disk): take
        the call out of the view, which must stay valid, and keep both aside. The transcript
        holds the call, so nothing may be recorded before its results."""
        if self._view and self._view[-1].get("role") == "assistant":
            call = self._view[-1]
            self._view = _joined(FrozenList(), self._view[:-1])
            self._held = (call, results)

    def record_held_results(self) -> bool:
        """Record held tool results and put the call and its results back in the view, so
        view and transcript agree again; True if there were any. Raises the store's error
        (and keeps holding them) if the disk still refuses."""
        if self._held is None:
            return False
        call, results = self._held
        self._record(results, (call,))
        self._held = None
        return True

    def _record(self, message: Message, before: tuple[Message, ...]) -> dict[str, Any]:
        """Write `message` with its counts, then show `before` and it in the view."""
        counts = self._counter.record_counts(message)
        try:
            record = self.log.append_message(message, counts)
        except BaseException:
            # an interrupt after the record landed: the view shows it all the same, so
            # view and transcript still agree (the writer says what landed)
            landed = self.log.landed(message)
            if landed is not None:
                self._extend([*before, with_source(with_recorded_counts(message, counts), landed)])
            raise
        self._extend([*before, with_source(with_recorded_counts(message, counts), record)])
        return record

    def _extend(self, messages: Iterable[Message]) -> None:
        self._view = _joined(self._view, [freeze(message) for message in messages])

    def _replace(self, messages: Iterable[Message]) -> None:
        self._view = FrozenList(messages)


def _joined(frozen: FrozenList, more: list[Any]) -> FrozenList:
    """A new read-only view of `frozen` then `more` (frozen already): a C-level copy of
    the references, so an append costs no walk over the history's messages."""
    joined = FrozenList()
    list.extend(joined, frozen)
    list.extend(joined, more)
    return joined
