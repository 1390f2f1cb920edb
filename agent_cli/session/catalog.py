"""Telling saved sessions apart, choosing one to continue, and deleting old ones.

Contract: `summarize_sessions(paths, workspace=None)` lists sessions newest first as
`SessionSummary` values: the first request typed (the session's title), how many turns
were asked and answered, and the tokens the API reported (input, cache writes, cache reads
and output of every request, summaries included; our own estimates are not counted). A transcript that cannot be
read is still listed, marked unreadable, never dropped. `pick_session_to_continue`
is the newest session of the workspace that holds a request of the user's, answered or
not (a `-p` run whose request failed keeps it and says to go on with `--continue`: that
is the session meant), else the newest (one where nothing was asked yet). `delete_sessions` removes each
session's transcript and its artifacts and reports every id's outcome (`SessionDeletion`):
one that fails does not stop the rest, and none is reported deleted that is not gone. An
open session (its writer lock held, here or in another agent-cli) is refused and left
whole; an id that names one of the home's own folders (`memory`, `transcripts`) is no
session and nothing is removed for it; and of a session's folder only what the artifact
store wrote is removed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from agent_cli.errors import InvalidStoreInput, SessionNotFound, StoreError
from agent_cli.session.log import MESSAGE, USAGE, usage_from_payload
from agent_cli.session.same_folder import is_session_folder

if TYPE_CHECKING:
    from agent_cli.secret_forms import SecretForms
    from agent_cli.store.paths import StatePaths
    from agent_cli.store.transcript import SessionInfo, TranscriptStore


@dataclass(frozen=True)
class SessionSummary:
    """One saved session, as `/sessions` shows it."""

    session_id: str
    modified_at: datetime
    workspace: str | None
    first_request: str | None  # the first thing the user asked: the session's title
    turns: int  # requests the user typed
    answered_turns: int  # of those, how many the model answered
    tokens: int  # API-reported: input + cache writes + cache reads + output, never estimates
    readable: bool = True


@dataclass
class _Tally:
    first_request: str | None = None
    turns: int = 0
    answered: int = 0
    awaiting_answer: bool = False
    tokens: int = 0

    def note(self, record: dict[str, Any]) -> None:
        payload = record.get("payload") or {}
        if record.get("kind") == USAGE:
            self.tokens += usage_from_payload(payload).total_tokens
        elif record.get("kind") == MESSAGE and isinstance(payload.get("message"), dict):
            self._note_message(payload["message"])

    def _note_message(self, message: dict[str, Any]) -> None:
        text = typed_request(message)
        if text is not None:
            self.turns += 1
            self.awaiting_answer = True
            self.first_request = self.first_request or text
        elif message.get("role") == "assistant" and self.awaiting_answer:
            self.answered += 1
            self.awaiting_answer = False


def typed_text(message: dict[str, Any]) -> str | None:
    """The text of a message's text blocks (or its string content), joined; None for
    none or only blank text (`typed_request` tells the user's requests apart)."""
    content = message.get("content")
    if isinstance(content, str):
        return content.strip() or None
    if not isinstance(content, list):
        return None
    texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    joined = " ".join(t for t in texts if isinstance(t, str)).strip()
    return joined or None


def summarize(store: TranscriptStore, info: SessionInfo) -> SessionSummary:
    """One session's summary from its transcript; unreadable ones are marked, not dropped."""
    tally = _Tally()
    readable = True
    try:
        for record in store.replay(info.session_id):
            tally.note(record)
    except (StoreError, OSError):
        readable = False
    return SessionSummary(
        info.session_id,
        info.modified_at,
        info.workspace,
        tally.first_request,
        tally.turns,
        tally.answered,
        tally.tokens,
        readable,
    )


def summarize_sessions(paths: StatePaths, workspace: Path | None = None) -> list[SessionSummary]:
    """Every session (of `workspace` when given), newest first."""
    from agent_cli.store.transcript import TranscriptStore

    store = TranscriptStore(paths.transcripts)
    return [summarize(store, info) for info in _infos(store, workspace)]


def pick_session_to_continue(paths: StatePaths, workspace: Path) -> str | None:
    """The newest session here holding a request of the user's (answered or not), else
    the newest here, else None."""
    from agent_cli.store.transcript import TranscriptStore

    store = TranscriptStore(paths.transcripts)
    infos = _infos(store, workspace)
    for info in infos:
        if summarize(store, info).turns:
            return str(info.session_id)
    return str(infos[0].session_id) if infos else None


DELETED = "deleted"
NOT_FOUND = "not_found"
NOT_A_SESSION = "not_a_session"  # not a session id at all (bad grammar, a reserved name)
FAILED = "failed"  # nothing was removed
ARTIFACTS_LEFT = "artifacts_left"  # the transcript is gone, its artifacts folder is not


@dataclass(frozen=True)
class SessionDeletion:
    """What `delete_sessions` did with one id: `outcome` is one of the four constants
    above, `problem` the error behind `failed`, `artifacts_left` or `not_a_session` (None
    otherwise)."""

    session_id: str
    outcome: str
    problem: Exception | None = None


def delete_sessions(paths: StatePaths, session_ids: Iterable[str]) -> list[SessionDeletion]:
    """Delete each session's transcript, then its artifacts; one outcome per id, in order.
    A failure (a session open elsewhere, a file the OS refuses) is that id's outcome and
    the next id is still tried, so the caller can say exactly what is gone and what is not."""
    from agent_cli.store.artifacts import ArtifactStore
    from agent_cli.store.transcript import TranscriptStore

    transcripts = TranscriptStore(paths.transcripts)
    artifacts = ArtifactStore(paths.artifacts_root)
    outcomes: list[SessionDeletion] = []
    for session_id in session_ids:
        try:
            transcripts.delete(session_id)
        except SessionNotFound:
            outcomes.append(SessionDeletion(session_id, NOT_FOUND))
            continue
        except InvalidStoreInput as refused:  # checked before any path was built
            outcomes.append(SessionDeletion(session_id, NOT_A_SESSION, refused))
            continue
        except (StoreError, OSError) as problem:
            outcomes.append(SessionDeletion(session_id, FAILED, problem))
            continue
        try:
            artifacts.delete_session(session_id)
        except (StoreError, OSError) as problem:
            outcomes.append(SessionDeletion(session_id, ARTIFACTS_LEFT, problem))
            continue
        outcomes.append(SessionDeletion(session_id, DELETED))
    return outcomes


def _infos(store: Any, workspace: Path | None) -> list[Any]:
    infos = store.list_sessions()
    if workspace is None:
        return list(infos)
    wanted = Path(workspace).resolve()
    return [info for info in infos if is_session_folder(info.workspace, wanted)]


class Call(NamedTuple):
    """One tool call of an exchange: the tool's name and what became of the call
    (`call_outcome.OUTCOMES`: it ran, was denied, never started…)."""

    name: str
    outcome: str


@dataclass(frozen=True)
class Exchange:
    """One request and what came back: the answer's text and the tool calls it made,
    each with its outcome."""

    request: str
    answer: str
    calls: tuple[Call, ...]


def recent_exchanges(
    records: Iterable[dict[str, Any]], limit: int = 3, secrets: SecretForms | None = None
) -> list[Exchange]:
    """The last `limit` requests the user typed, from a transcript's `records` (in order),
    each with the assistant's text and tool calls up to the next request; a call's outcome
    is read from the result recorded for it (`call_outcome`). What tools and the model
    wrote is redacted of `secrets` (`resumed_secrets`), as a resumed view is.

    Why the transcript and not the view: compaction may drop a request's own message from
    the view and keep its calls and answer after an older request's, which then read as
    that request's. The transcript holds every message where it was said; it is streamed,
    and only the last `limit` requests' messages are kept."""
    if limit <= 0:
        return []
    groups: deque[list[dict[str, Any]]] = deque(maxlen=limit)
    for message in recorded_messages(records):
        if typed_request(message) is not None:
            groups.append([message])
        elif groups:  # before the first request there is nothing to file it under
            groups[-1].append(message)
    return [_build_exchange(group, secrets) for group in groups]


def typed_request(message: dict[str, Any]) -> str | None:
    """The text of a request the user typed; None for any other message, a tool-results
    message too (its text is a note agent-cli added after the results: `call_limit`)."""
    if message.get("role") != "user" or _blocks(message, "tool_result"):
        return None
    return typed_text(message)


def recorded_messages(records: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    """The messages among a transcript's `records`, in their order."""
    for record in records:
        payload = record.get("payload")
        if record.get("kind") == MESSAGE and isinstance(payload, dict):
            message = payload.get("message")
            if isinstance(message, dict):
                yield message


def _build_exchange(group: list[dict[str, Any]], secrets: SecretForms | None) -> Exchange:
    """The exchange of one request (`group[0]`) and the messages after it."""
    from agent_cli.session.resumed_secrets import redact_resumed_view

    request = typed_request(group[0]) or ""
    replies = group[1:] if secrets is None else redact_resumed_view(group[1:], secrets)[0]
    results = _results_by_id(replies)
    answer: list[str] = []
    calls: list[Call] = []
    for message in replies:
        if message.get("role") == "assistant":
            answer += [t for t in [typed_text(message)] if t]
            calls += _calls(message, results)
    return Exchange(request, "\n".join(answer), tuple(calls))


def _blocks(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict) and block.get("type") == kind]


def _results_by_id(messages: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each tool_result of the user's messages by the id of the call it answers."""
    return {
        str(block.get("tool_use_id")): block
        for message in messages
        if message.get("role") == "user"
        for block in _blocks(message, "tool_result")
    }


def _calls(message: dict[str, Any], results: dict[str, dict[str, Any]]) -> list[Call]:
    from agent_cli.session.call_outcome import read_call_outcome

    return [
        Call(str(block.get("name")), read_call_outcome(results.get(str(block.get("id")))))
        for block in _blocks(message, "tool_use")
    ]
