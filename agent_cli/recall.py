"""Recall: read back, by pointer, what compaction took out of the view.

Contract: one path serves the model's `recall` tool and the REPL's `/expand`. A pointer
is resolved through `SourcePointerResolver` (so every read is re-verified and comes back
with one of the five statuses); a transcript record is shown as readable text (the
message's role and blocks, or the record's payload), an artifact as its text (a binary
one, such as a stored image, as what it is: `sources.binary_artifacts`). The tool
is authorized for this session's own records only: a pointer of another session is
`denied` before any file is looked at (a model must not read another conversation). The
user at the REPL may expand any pointer of this workspace's state, with the same checks.
The tool answers at most `page_chars` characters a call, with the offset to go on from,
so its result stays within the tool-result limits. A page begins and ends where no pointer
and none of `secrets` (the ones the session's tools redact) is split (`safe_cuts`): the
page is redacted afterwards, and half a key would no longer be recognised; the model
chooses the offset, so it would choose where the key is cut.

A record this run wrote (from `written_from` on) is shown as it was recorded
(`RecallPage.as_recorded`): all of it was given to the model as it is, tool results
redacted when they were made, with the same secrets, and the model's own words as it
wrote them. Redacting them again would be an oracle: a model that wrote 3,360 guesses of
a password, then recalled its message, would find `[REDACTED]` at the right one (a
seventh outside attack; `tools.echo`). Only the user's typed words in it are redacted
(`recall_render`), before the page is cut, so its bounds need no secret (a record longer
than the read limit cannot be parsed: it is shown raw, as it was sent). A record of an
earlier run (`--continue`) may hold a value named a secret since: it is cut as above and
redacted whole by the toolbox, as artifacts are, and where that run cut a tool result
inside the value (a preview's head ending inside a token), the piece left is hidden
(`recall_render.with_pieces_hidden`, as in a resumed view; `/expand` too). No answer repeats the pointer or the
offset the model gave unless the pointer was read (`tools.echo`). A value learned
mid-session (`note_learned`, `learned_secrets`) is redacted from the view the model is
given from then on, so a page of a record this run wrote before it was learned has that
value redacted too (and the piece of it at a result's cut hidden, as above), and so has
the search of it: recall never hands back whole what the view no longer holds.

A record of the user's commands to agent-cli (`user_command`: `/remember`, `/todo`,
`/block`, `/forget`, ...) is the tool's only while a fact or pending item of the durable
state cites it (`cited`, which the session sets): those words reach the model through the
durable block anyway, and a fact the user took back with `/forget` must not come back
through its record (a sixteenth outside attack read a forgotten password so). `/expand`
shows it to the user all the same.

`search` finds what the pointers do not say: it reads this session's transcript only (by
its own session id, never a pointer or path from the model), and the artifacts its
messages name through the same authorization as the tool, and answers the pointers of
the matching messages and artifacts with short excerpts, a bounded page at a time
(`recall_search`, which redacts what it shows itself, by the same rule).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from agent_cli.errors import SessionNotFound, SourcePointerError, ToolError
from agent_cli.learned_secrets import LearnedSecrets
from agent_cli.recall_render import render_evidence
from agent_cli.recall_search import (
    SEARCH_PAGE_MATCHES,
    SEARCH_TIMEOUT_SECONDS,
    parse_query,
    render_search_page,
    search_records,
)
from agent_cli.safe_cuts import safe_head_end, safe_tail_start, stopped_secret_start
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.sources import SourcePointerResolver, SourceResolution, SourceResolutionStatus
from agent_cli.sources.pointers import parse_source_pointer
from agent_cli.tools.context import RecallPage

RECALL_PAGE_CHARS = 8_000
RESOLVER_EXCERPT_CHARS = 400_000  # what is read to render a record; a page is cut from it
COMMAND_RECORD = "user_command"  # `session.log.USER_COMMAND`
COMMAND_WITHHELD = (
    "Cannot recall that pointer: it is a record of the user's commands to agent-cli "
    "(such as /remember or /forget), which recall reads only while a fact or pending item "
    "in the durable context cites it; the durable context holds what is still in force."
)


def recall_page_chars(policy: Any) -> int:
    """A page that fits the tool-result limit L1 would hold it to, so a recalled page is
    not cut again at the next compaction: 1.6 characters a token (numbered lines of code
    run near 2) leaves room for the header."""
    per_result: int = min(policy.max_tool_result_tokens, policy.soft_threshold // 4)
    return max(400, min(RECALL_PAGE_CHARS, per_result * 8 // 5))


class Recall:
    """Resolves and renders pointers; see the module contract."""

    def __init__(
        self,
        session_id: str,
        transcript_root: Any,
        artifact_root: Any,
        page_chars: int = RECALL_PAGE_CHARS,
        search_timeout: float = SEARCH_TIMEOUT_SECONDS,
    ) -> None:
        self.session_id = session_id
        self.page_chars = page_chars
        self.search_timeout = search_timeout
        self.secrets: SecretForms = NO_SECRETS  # the session sets its toolbox's
        # the first record this run writes (the session sets it); None: no record is
        # taken as this run's, every one is redacted
        self.written_from: int | None = None
        # values learned mid-session, and which of this run's records came before them
        self.learned = LearnedSecrets()
        # the pointers the durable state cites now (the session sets it; module contract)
        self.cited: Callable[[], Collection[str]] = lambda: ()
        self._transcript_root = Path(transcript_root)
        self._own = SourcePointerResolver(
            transcript_root,
            artifact_root,
            authorize=lambda parsed: parsed.session_id == session_id,
            max_excerpt_chars=RESOLVER_EXCERPT_CHARS,
        )
        self._any = SourcePointerResolver(
            transcript_root, artifact_root, max_excerpt_chars=RESOLVER_EXCERPT_CHARS
        )

    def resolve(self, pointer: str, *, own_session_only: bool = True) -> SourceResolution:
        """The resolution, with a readable excerpt of what the pointer names."""
        resolver = self._own if own_session_only else self._any
        resolution = resolver.resolve(pointer.strip() if isinstance(pointer, str) else pointer)
        if resolution.status is not SourceResolutionStatus.AVAILABLE or not resolution.excerpt:
            return resolution
        excerpt = render_evidence(resolution.pointer, resolution.excerpt, secrets=self.secrets)
        return dataclasses.replace(resolution, excerpt=excerpt)

    def answer(self, pointer: str, offset: int = 0) -> RecallPage:
        """The tool's page of what `pointer` names (as recorded, or to be redacted: module
        contract); `ToolError` when it cannot be shown, with the status and what to do."""
        resolution = self._own.resolve(pointer.strip() if isinstance(pointer, str) else pointer)
        if resolution.status is not SourceResolutionStatus.AVAILABLE:
            raise ToolError(_refusal(resolution))
        if self._is_withheld_command(resolution):
            raise ToolError(COMMAND_WITHHELD)
        as_recorded = self.is_this_runs(resolution.pointer)
        typed_text = self.secrets.redact if as_recorded else None
        secrets = self._learned_since(resolution.pointer) if as_recorded else self.secrets
        text = render_evidence(resolution.pointer, resolution.excerpt or "", typed_text, secrets)
        if offset >= len(text) and text:
            raise ToolError(f"offset is past the end ({len(text):,} characters).")
        start, end = self._page_bounds(text, offset, resolution.excerpt_truncated, secrets)
        # the toolbox does not redact a page of this run's again: what was learned since
        # its record was written is redacted here (the view has it redacted)
        page = secrets.redact(text[start:end]) if as_recorded else text[start:end]
        if end < len(text):
            tail = f"\n[more follows: call recall again with offset={end}]"
        elif resolution.excerpt_truncated:
            tail = "\n[the record goes on; read an artifact's rest with read_artifact]"
        else:
            tail = "\n[end]"
        header = f"{resolution.pointer} (available, sha256 {resolution.evidence_sha256})"
        return RecallPage(f"{header}\n{page}{tail}", as_recorded)

    def _is_withheld_command(self, resolution: SourceResolution) -> bool:
        """True for a `user_command` record that no durable item cites now."""
        if not resolution.pointer.startswith("transcript:"):
            return False
        try:
            record = json.loads(resolution.excerpt or "")
        except (ValueError, RecursionError):  # too long to read whole, or too deep
            return False  # a message, never a command
        if not isinstance(record, dict) or record.get("kind") != COMMAND_RECORD:
            return False
        named = _record_place(resolution.pointer)
        return named is None or named not in {_record_place(p) for p in self.cited()}

    def note_learned(self, values: tuple[str, ...], from_sequence: int) -> None:
        """`values` were learned mid-session, before record `from_sequence` was written:
        pages of this run's earlier records have them redacted (module contract)."""
        self.learned = self.learned.with_learned(values, from_sequence)

    def _learned_since(self, pointer: str) -> SecretForms:
        """The forms of the values learned after the record `pointer` names was written."""
        sequence = parse_source_pointer(pointer).sequence
        return NO_SECRETS if sequence is None else self.learned.forms_before(sequence)

    def is_this_runs(self, pointer: str) -> bool:
        """True when `pointer` names a record of this session that this run wrote."""
        try:
            parsed = parse_source_pointer(pointer)
        except SourcePointerError:
            return False
        return (
            parsed.is_transcript
            and parsed.session_id == self.session_id
            and self.written_from is not None
            and parsed.sequence is not None
            and parsed.sequence >= self.written_from
        )

    def search(self, query: str, *, regex: bool = False, offset: int = 0) -> str:
        """The tool's text for a search of this session's messages: one page of matching
        pointers with excerpts (see `recall_search`); `ToolError` for an unusable query."""
        from agent_cli.store.transcript import TranscriptStore

        parsed = parse_query(query, is_regex=regex)
        try:
            records = TranscriptStore(self._transcript_root).replay(self.session_id)
        except SessionNotFound:
            raise ToolError("This session has no transcript to search yet.") from None
        try:
            page = search_records(
                records,
                parsed,
                offset=offset,
                per_page=search_page_matches(self.page_chars),
                timeout=self.search_timeout,
                read_artifact=self._read_own_artifact,
                secrets=self.secrets,
                as_recorded_from=self.written_from,
                learned=self.learned,
            )
        finally:
            getattr(records, "close", lambda: None)()  # a page found early leaves the file
        return render_search_page(page)

    def _read_own_artifact(self, pointer: str) -> str | None:
        """An artifact's text for the search, checked as `recall` checks it (this
        session's only, its digest verified); None when it cannot be read. The first
        `RESOLVER_EXCERPT_CHARS` of it, as recall shows, less an ending that may be the
        start of a secret the read limit cut (the search redacts, and could not see it)."""
        resolution = self._own.resolve(pointer)
        if resolution.status is not SourceResolutionStatus.AVAILABLE or not resolution.excerpt:
            return None
        text = resolution.excerpt
        if not resolution.excerpt_truncated:
            return text
        return text[: safe_head_end(text, len(text), self.secrets, stream_stopped=True)]

    def _page_bounds(
        self, text: str, offset: int, is_cut: bool, secrets: SecretForms
    ) -> tuple[int, int]:
        """The page from `offset`: moved past a secret of `secrets` it would begin inside,
        ended before one it would end inside (or, when `is_cut`, one the read limit may
        have cut)."""
        start = safe_tail_start(text, offset, secrets)
        wanted = start + self.page_chars
        end = safe_head_end(text, wanted, secrets, stream_stopped=is_cut)
        if end > start:
            return start, end
        open_match = stopped_secret_start(text, secrets) if is_cut else None
        if open_match is not None and open_match <= start:
            return len(text), len(text)  # all that is left may be a key cut by the limit
        # Something longer than a page: taken whole (a secret is redacted afterwards).
        end = max(safe_tail_start(text, wanted, secrets), min(wanted, len(text)))
        return start, end


def _record_place(pointer: str) -> tuple[str, int | None] | None:
    """(session, record number) of a transcript pointer, None for any other."""
    try:
        parsed = parse_source_pointer(pointer)
    except SourcePointerError:
        return None
    return (parsed.session_id, parsed.sequence) if parsed.is_transcript else None


def search_page_matches(page_chars: int) -> int:
    """Matches a search page lists: about 400 characters each (pointer, excerpt of up to
    280), so a page stays within what a pointer's page may hold."""
    return max(1, min(SEARCH_PAGE_MATCHES, page_chars // 400))


def _refusal(resolution: SourceResolution) -> str:
    status = str(resolution.status.value)
    advice = {
        "denied": "recall reads only this session's records; use a pointer from this "
        "conversation's digest or tool results.",
        "missing": "there is no such record or artifact; check the pointer.",
        "corrupt": "the pointer is malformed or the record failed its check; copy the "
        "pointer exactly.",
        "unsupported": "only transcript: and artifact: pointers can be recalled.",
    }.get(status, "it cannot be read.")
    # the pointer is not repeated (`tools.echo`); the reason is a short code
    return f"Cannot recall that pointer: {status} ({resolution.reason}); {advice}"
