"""The permission question in the transcript, so a resume can tell a call that never ran.

Why: a session killed while the question was up (SIGKILL, a crash, power loss) resumed
saying "the session had stopped while a tool ran" and told the model the unapproved
command "may have run": nothing recorded that it was only being asked about.

Contract: `QuestionMarks(log, tool_use_id)` is the toolbox's `question_watcher` for one
call (`tools.permissions.QuestionWatcher`). `asking()` appends a `permission_asked`
record before the question is put; a write the disk refuses is skipped (the call then
resumes as one that may have run: the safe side). `answered(allowed)` appends
`permission_answered` with the answer; when the record of an allowed call cannot be
written it raises `CallStartUnrecorded` and the call does not run, since its
`permission_asked` record alone would resume it as never run.

`read_question(payload)` reads one of these records back (`log.rebuild_from_records`
keeps the state of each call's question), and `resumed_texts(tool_uses, questions)`
words the results a resume gives the calls left without one: a call whose question was
put and never answered did not run, and neither did any call after it in the same answer
(calls run in order); a call denied did not run; of every other call nothing is said
here (it may have run: `RESUMED_TOOL_TEXT`, the text a resume gives them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from agent_cli.errors import CallStartUnrecorded, StoreError

PERMISSION_ASKED = "permission_asked"
PERMISSION_ANSWERED = "permission_answered"
ASKED, ALLOWED, DENIED = "asked", "allowed", "denied"

AT_QUESTION_TEXT = (
    "Not run: the session ended while the user was being asked for permission to run this "
    "tool; it never started."
)
AFTER_QUESTION_TEXT = (
    "Not run: the session ended while the user was being asked for permission to run an "
    "earlier tool of this answer; this one never started."
)
DENIED_TEXT = (
    "Not run: the user denied permission to run this tool; the session ended before that "
    "was recorded."
)
# The transcript cannot tell a crash while the tool ran from a result that a full disk
# kept from being recorded, so the words fit both and do not claim the tool never ended.
RESUMED_TOOL_TEXT = (
    "The result was not recorded: the session ended (or its disk was full) before this "
    "tool's result was written. The tool may have run, in full or in part; check its "
    "effects before running it again."
)
UNRECORDED_TEXT = (
    "Not run: permission was given, but the transcript could not record it (is the disk "
    "full?), and a call must not start unrecorded. Ask the user to free space, then try "
    "again."
)


class RecordAppender(Protocol):
    """Where the records go: the session's log (`SessionLog.append`), which raises a
    `StoreError` for a record that did not land whole."""

    def append(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]: ...


class QuestionMarks:
    """Records the permission question of the call `tool_use_id` (module contract)."""

    def __init__(self, log: RecordAppender, tool_use_id: str) -> None:
        self._log = log
        self._tool_use_id = tool_use_id
        self._asked_recorded = False

    def asking(self) -> None:
        try:
            self._log.append(PERMISSION_ASKED, {"tool_use_id": self._tool_use_id})
        except StoreError:
            return  # unrecorded: the call resumes as one that may have run
        self._asked_recorded = True

    def answered(self, allowed: bool) -> None:
        payload = {"tool_use_id": self._tool_use_id, "allowed": allowed}
        try:
            self._log.append(PERMISSION_ANSWERED, payload)
        except StoreError:
            if allowed and self._asked_recorded:
                raise CallStartUnrecorded(UNRECORDED_TEXT) from None


def read_question(kind: str, payload: Mapping[str, Any]) -> tuple[str, str] | None:
    """(tool_use_id, ASKED / ALLOWED / DENIED) of a question record; None for any other
    record, or one whose fields are not what these records hold."""
    if kind not in (PERMISSION_ASKED, PERMISSION_ANSWERED) or not isinstance(payload, Mapping):
        return None
    tool_use_id = payload.get("tool_use_id")
    if not isinstance(tool_use_id, str):
        return None
    if kind == PERMISSION_ASKED:
        return tool_use_id, ASKED
    allowed = payload.get("allowed")
    if kind == PERMISSION_ANSWERED and isinstance(allowed, bool):
        return tool_use_id, ALLOWED if allowed else DENIED
    return None


def resumed_texts(
    tool_uses: Sequence[Mapping[str, Any]], questions: Mapping[str, str]
) -> dict[str, str]:
    """tool_use_id -> the "not run" text, for the calls of one answer (in order) that
    were left without results and certainly never started; see the module contract."""
    texts: dict[str, str] = {}
    stopped_at_question = False
    for block in tool_uses:
        tool_use_id = block.get("id")
        if not isinstance(tool_use_id, str):
            continue
        state = questions.get(tool_use_id)
        if stopped_at_question:
            texts[tool_use_id] = AFTER_QUESTION_TEXT
        elif state == ASKED:
            texts[tool_use_id] = AT_QUESTION_TEXT
            stopped_at_question = True
        elif state == DENIED:
            texts[tool_use_id] = DENIED_TEXT
    return texts
