"""The session's lossless record: what it appends to the transcript, and how a view is rebuilt.

Contract: the transcript is written *before* the in-memory view changes (write-ahead), so
the view is always derivable from the transcript: replaying `message` records in order,
and replacing the view by the `view` of each `compaction` record, gives the view the
session had. Only the transcript store writes the file; this module decides what goes in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.compaction.markers import SOURCE_KEY, adopt_unmarked_summary
from agent_cli.compaction_layers import SUMMARY, layer_code
from agent_cli.errors import SessionUnresumable, StoreError
from agent_cli.events import CompactionRecord, Usage, reported_figure
from agent_cli.models import lookup_model
from agent_cli.session.question_marks import read_question
from agent_cli.session.seen_records import read_seen_record, seen_payload
from agent_cli.store.path_text import read_path
from agent_cli.tokens import with_recorded_counts
from agent_cli.tools.seen_roots import SeenRecord
from agent_cli.usage_cost import SessionCost

if TYPE_CHECKING:
    from agent_cli.store.transcript_writer import TranscriptWriter

MESSAGE = "message"
COMPACTION = "compaction"
SESSION_STARTED = "session_started"
USER_COMMAND = "user_command"
DURABLE_CHANGE = "durable_change"
USAGE = "usage"
NOTICE = "notice"
MODEL_CHANGED = "model_changed"  # `/model`: {model, previous}; resume goes on with `model`
# The compaction loop guard began to hold: {held_at, aim} in estimator tokens (`budget.
# LoopGuard`); a later compaction record ends it. Resume holds where the session held.
LOOP_GUARD = "loop_guard"
# The model saw a file's content (read, written, edited): {root, root_id, path (relative
# to root), fingerprint} (`session.seen_records`, `tools.seen_files`); a resume refuses a
# write over a file changed since, as the run did, wherever the folder went (`seen_roots`).
FILE_SEEN = "file_seen"
# `/facts bring` copied the items kept for one folder into another's memory file
# (`session.durable_folder`): {from, to}. (A resume looks for the session's items in the
# folder it started in and in each `DURABLE_CHANGE` `workspace`: the folder a change was
# saved to.)
DURABLE_BROUGHT = "durable_brought"


def with_source(message: dict[str, Any], record: Any) -> dict[str, Any]:
    """`message` as the view keeps it: with the pointer of the record that holds it under
    the private `SOURCE_KEY` (never sent: the wire builder keeps only role and content)."""
    pointer = record.get("event_id") if isinstance(record, dict) else None
    if not isinstance(pointer, str):
        return message
    return {**message, SOURCE_KEY: pointer}


def count_tool_uses(message: dict[str, Any]) -> int:
    """How many tool_use blocks a message holds (one per interaction)."""
    content = message.get("content")
    if not isinstance(content, list):
        return 0
    return sum(
        1 for block in content if isinstance(block, dict) and block.get("type") == "tool_use"
    )


@dataclass
class TranscriptTotals:
    """Running figures over the whole transcript, for `stats`."""

    messages: int = 0
    interactions: int = 0
    requests: int = 0
    summary_requests: int = 0  # of `requests`, those that asked for a summary (L4)
    usage: Usage = field(default_factory=Usage)
    last_usage: Usage | None = None
    compactions: list[CompactionRecord] = field(default_factory=list)
    cost: SessionCost = field(default_factory=SessionCost)
    # the session in order: each main request's prompt tokens (as the API reported them)
    # and each compaction, where it fired between them (`/timeline`)
    timeline: list[int | CompactionRecord] = field(default_factory=list)

    def note_message(self, message: dict[str, Any]) -> None:
        self.messages += 1
        self.interactions += count_tool_uses(message)

    def note_usage(self, usage: Usage, model: str = "", main_request: bool = True) -> None:
        """One request's usage, priced with the model that served it; a main request's
        (not a summary's) also goes on the timeline."""
        self.requests += 1
        self.usage = self.usage.plus(usage)
        self.last_usage = usage
        self.cost = self.cost.add(usage, lookup_model(model))
        if not main_request:
            self.summary_requests += 1
        elif usage.prompt_tokens:
            self.timeline.append(usage.prompt_tokens)

    def note_compaction(self, entry: CompactionRecord) -> None:
        self.compactions.append(entry)
        self.timeline.append(entry)


class SessionLog:
    """Appends the session's records through a transcript writer and keeps the totals.

    `model_of` answers which model requests go to now (the provider's, which `/model`
    and a resume change): usage is recorded and priced with it. It is asked, not copied,
    so the log cannot price a request with a model the provider has left.
    """

    def __init__(
        self,
        writer: TranscriptWriter,
        clock: Callable[[], datetime],
        totals: TranscriptTotals | None = None,
        model_of: Callable[[], str] = lambda: "",
    ) -> None:
        self.writer = writer
        self.clock = clock
        self.totals = totals or TranscriptTotals()
        self._model_of = model_of

    @property
    def model(self) -> str:
        return self._model_of()

    @property
    def session_id(self) -> str:
        return str(self.writer.session_id)

    @property
    def path(self) -> str:
        return str(self.writer.path)

    def replay(self) -> Iterator[dict[str, Any]]:
        """The session's records as its transcript holds them now, in order, streamed
        (`TranscriptStore.replay`: its typed errors)."""
        from agent_cli.store.transcript import TranscriptStore

        return TranscriptStore(Path(self.writer.path).parent).replay(self.session_id)

    def append(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Append one record; raises the store's typed error if it did not land whole."""
        record: dict[str, Any] = self.writer.append(kind, payload, self.clock())
        return record

    def append_message(
        self, message: dict[str, Any], tokens: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Record `message`, with its token counts beside it when given
        (`TokenCounter.record_counts`: a resume takes them instead of tokenizing it)."""
        payload = {"message": message} if tokens is None else {"message": message, "tokens": tokens}
        try:
            record = self.append(MESSAGE, payload)
        except BaseException:
            if self.landed(message) is not None:  # interrupted once the record was in
                self.totals.note_message(message)
            raise
        self.totals.note_message(message)
        return record

    def landed(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The record of `message` when its append was interrupted after the record was in
        the file (`TranscriptWriter.landed`); None otherwise."""
        record = self.writer.landed
        payload = record.get("payload") if record is not None else None
        return record if isinstance(payload, dict) and payload.get("message") is message else None

    def append_usage(self, usage: Usage, estimated: int) -> None:
        payload = {**usage.__dict__, "estimated_prompt_tokens": estimated, "model": self.model}
        self.append(USAGE, payload)
        self.totals.note_usage(usage, self.model, main_request=estimated > 0)

    def append_summary_usage(self, usages: Iterable[Usage]) -> None:
        """Usage of summary requests: into the record and the totals (they cost tokens
        too), with no estimate, so they never calibrate the main request's. Usage is
        bookkeeping: a record the disk refuses is skipped."""
        for usage in usages:
            with contextlib.suppress(StoreError):
                self.append_usage(usage, 0)

    def append_compaction(
        self, entry: CompactionRecord, removed_ids: Iterable[str], view: list[dict[str, Any]]
    ) -> None:
        self.append(
            COMPACTION,
            {
                "layers": list(entry.layers),
                "tokens_before": entry.tokens_before,
                "tokens_after": entry.tokens_after,
                "forced": entry.forced,
                "removed_tool_use_ids": sorted(set(removed_ids)),
                "view": view,
            },
        )
        self.totals.note_compaction(entry)

    def append_guard_hold(self, held_at: int, aim: int | None) -> None:
        """Record that the loop guard holds compaction at `held_at` estimated tokens (its
        `aim` when a deep run stopped short of it). Bookkeeping: a record the disk
        refuses is skipped (a resume then compacts once more, nothing is lost)."""
        with contextlib.suppress(StoreError):
            self.append(LOOP_GUARD, {"held_at": held_at, "aim": aim})

    def append_file_seen(self, record: SeenRecord) -> None:
        """Record what the model saw of a file (`FILE_SEEN`, `seen_records`). Bookkeeping:
        a record the disk refuses is skipped (a resume then asks about that file's next
        write with its diff, as for a file never seen)."""
        with contextlib.suppress(StoreError):
            self.append(FILE_SEEN, seen_payload(record))

    def close(self) -> None:
        self.writer.close()


@dataclass
class RebuiltSession:
    """What replaying a transcript gives back; `origins[i]` is the transcript line (the
    record's sequence) that `view[i]` came from, so a bad message can be named by line."""

    view: list[dict[str, Any]]
    totals: TranscriptTotals
    workspace: str | None
    origins: list[int] = field(default_factory=list)
    chosen_model: str | None = None  # the last `/model` choice, if there was one
    # (API prompt tokens, our estimate) of the last main request: its calibration
    calibration_sample: tuple[int, int] | None = None
    # tool_use_id -> what became of its permission question (`question_marks`)
    questions: dict[str, str] = field(default_factory=dict)
    # (held_at, aim) of a loop guard still holding when the transcript ends (`LOOP_GUARD`)
    guard_hold: tuple[int, int | None] | None = None
    # what the model saw of files, the last record of each path, oldest first (`FILE_SEEN`)
    files_seen: list[SeenRecord] = field(default_factory=list)
    # the folders whose memory files hold the session's facts and pending items, each once,
    # in first-seen order: the one it started in, then each a change was saved to
    # (`DURABLE_CHANGE` `workspace`)
    durable_folders: list[str] = field(default_factory=list)


def rebuild_from_records(records: Iterable[dict[str, Any]]) -> RebuiltSession:
    """Replay records in order into the latest view and the running totals.

    A `message` record without a message object, or a `compaction` record without a
    list of message objects as its view, raises `SessionUnresumable` naming its line:
    skipping it would resume a view that silently lost part of the conversation.
    A message's recorded token counts are put back on it (`tokens.with_recorded_counts`),
    so the resumed view is counted without tokenizing it again; a record without them
    (an older transcript) gives the message as it was recorded.
    A summary recorded before summaries carried their private key is marked on the way
    (`markers.adopt_unmarked_summary`), so an older transcript resumes with its summary.
    The permission questions recorded (`question_marks`) give each call's question state,
    the last loop-guard hold no compaction ended gives `guard_hold`, the files the model
    saw (`FILE_SEEN`) give `files_seen`, and the folders the session started in and saved
    durable changes to `durable_folders`.
    """
    rebuilt = RebuiltSession(view=[], totals=TranscriptTotals(), workspace=None)
    model = ""  # the model of the requests recorded so far, to price their usage
    summarized = False  # whether a compaction so far ran L4
    seen: dict[tuple[object, Path], SeenRecord] = {}  # (root, path) -> its last record
    for record in records:
        kind, payload = record.get("kind"), record.get("payload") or {}
        if kind == MESSAGE:
            message = _require_message(record, payload)
            counted = with_recorded_counts(message, payload.get("tokens"))
            rebuilt.view.append(with_source(counted, record))
            rebuilt.origins.append(record["sequence"])
            rebuilt.totals.note_message(message)
        elif kind == COMPACTION:
            entry = _compaction_entry(record, payload)
            summarized = summarized or SUMMARY.code in entry.layers
            rebuilt.view = adopt_unmarked_summary(_require_view(record, payload), summarized)
            rebuilt.origins = [record["sequence"]] * len(rebuilt.view)
            rebuilt.totals.note_compaction(entry)
            rebuilt.guard_hold = None  # a compaction ends a hold (or records its own after)
        elif kind == LOOP_GUARD:
            rebuilt.guard_hold = _guard_hold(payload)
        elif kind == FILE_SEEN:
            _note_file_seen(seen, payload)
        elif kind == USAGE:
            usage = usage_from_payload(payload)
            estimated = _whole_number(payload.get("estimated_prompt_tokens"))
            main = estimated > 0  # a summary's usage has no estimate
            rebuilt.totals.note_usage(usage, _text(payload.get("model")) or model, main)
            if estimated and usage.prompt_tokens:  # a summary's usage has no estimate
                rebuilt.calibration_sample = (usage.prompt_tokens, estimated)
        elif kind == SESSION_STARTED:
            rebuilt.workspace = read_path(payload, "workspace")
            _note_durable_folder(rebuilt, rebuilt.workspace)
            model = _text(payload.get("model"))
        elif kind == DURABLE_CHANGE:
            _note_durable_folder(rebuilt, read_path(payload, "workspace"))
        elif kind == MODEL_CHANGED and _text(payload.get("model")):
            model = rebuilt.chosen_model = _text(payload.get("model"))
        elif (question := read_question(str(kind), payload)) is not None:
            rebuilt.questions[question[0]] = question[1]
    rebuilt.files_seen = list(seen.values())
    return rebuilt


def _note_durable_folder(rebuilt: RebuiltSession, folder: str | None) -> None:
    """Add `folder` to `durable_folders` unless it is there already (or None: a record
    written before changes named their folder)."""
    if folder is not None and folder not in rebuilt.durable_folders:
        rebuilt.durable_folders.append(folder)


def _guard_hold(payload: dict[str, Any]) -> tuple[int, int | None] | None:
    """A `LOOP_GUARD` record's (held_at, aim); None when it holds no usable figure."""
    held_at, aim = payload.get("held_at"), payload.get("aim")
    if type(held_at) is not int or held_at <= 0:
        return None
    return held_at, aim if type(aim) is int and aim > 0 else None


def _note_file_seen(seen: dict[tuple[object, Path], SeenRecord], payload: dict[str, Any]) -> None:
    """Put a `FILE_SEEN` record last in `seen`, in place of an earlier one of the same
    path in the same root; one that cannot be used is passed over (`seen_records`)."""
    record = read_seen_record(payload)
    if record is None:
        return
    place = (record.root, record.path)
    seen.pop(place, None)
    seen[place] = record


def _unresumable(record: dict[str, Any], reason: str) -> SessionUnresumable:
    return SessionUnresumable(
        str(record.get("session_id")), reason, line_number=record.get("sequence")
    )


def _require_message(record: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    message = payload.get("message")
    if not isinstance(message, dict):
        raise _unresumable(record, "message_not_an_object")
    return message


def _require_view(record: dict[str, Any], payload: dict[str, Any]) -> list[dict[str, Any]]:
    view = payload.get("view")
    if not isinstance(view, list):
        raise _unresumable(record, "compaction_view_not_a_list")
    if not all(isinstance(message, dict) for message in view):
        raise _unresumable(record, "compaction_view_message_not_an_object")
    return list(view)


def _text(value: Any) -> str:
    """A model id read back: a string, or "" for anything else."""
    return value if isinstance(value, str) else ""


def _whole_number(value: Any) -> int:
    """A figure read back for `stats`: a non-negative int, or 0 for anything else."""
    is_int = isinstance(value, int) and not isinstance(value, bool)
    return value if is_int and value >= 0 else 0


def _compaction_entry(record: dict[str, Any], payload: dict[str, Any]) -> CompactionRecord:
    """Figures of a compaction, for `stats` and the summary check: garbage reads as zero,
    never as a crash. Layers are read by code, also where an older record names them by
    function."""
    layers = payload.get("layers")
    return CompactionRecord(
        at=str(record.get("recorded_at", "")),
        layers=tuple(layer_code(name) for name in layers if isinstance(name, str))
        if isinstance(layers, list)
        else (),
        tokens_before=_whole_number(payload.get("tokens_before")),
        tokens_after=_whole_number(payload.get("tokens_after")),
        forced=payload.get("forced") is True,
    )


def usage_from_payload(payload: dict[str, Any]) -> Usage:
    """The API-reported figures of a usage record (garbage reads as zero:
    `events.reported_figure`); the record's other integers, such as our own estimate of
    the request, are not usage."""
    return Usage(
        *(
            reported_figure(payload.get(key))
            for key in (
                "input_tokens",
                "output_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
            )
        )
    )
