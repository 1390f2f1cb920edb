"""What became of a tool call, read back from the result the transcript recorded for it.

Why: the "where you left off" recap of a resumed session said `used write_file, bash`
of two calls the user had denied (and of calls a kill left at their permission
question): it listed every call the model made as one that ran.

Contract: `read_call_outcome(result)` gives one of `OUTCOMES` for a call, from its
`tool_result` block (None: the view holds no result for it). Every result that says a
call did not run, did not finish, or was refused by its tool with nothing written, is
written by agent-cli itself from the texts below (their owners keep them; they are error
results the model reads): a result that is one of them, whole (a template's field
standing for any text), is that outcome. Any other result is `RAN`: the tool ran, whether
it succeeded or failed. No result, or the one a resume writes for a call whose result was
never recorded, is `UNKNOWN`: it may have run.

Also why: a write_file refused as stale ("…nothing was written"), an edit_file whose old
text was not found and a command ended by its timeout were all recapped as `used`.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

from agent_cli.session.question_marks import (
    AFTER_QUESTION_TEXT,
    AT_QUESTION_TEXT,
    DENIED_TEXT,
    RESUMED_TOOL_TEXT,
    UNRECORDED_TEXT,
)
from agent_cli.session.turn import (
    ASKING_INTERRUPTED_TEXT,
    CUT_TOOL_TEXT,
    INTERRUPTED_TOOL_TEXT,
    NOT_RUN_TOOL_TEXT,
    NOT_STARTED_TEXT,
    STOPPED_TOOL_TEXT,
    TERMINATED_ASKING_TEXT,
    TERMINATED_TOOL_TEXT,
)
from agent_cli.tools.file_replace import DIRECTORY_TEXT
from agent_cli.tools.file_state import APPEARED_TEXT, CHANGED_TEXT, DELETED_TEXT
from agent_cli.tools.file_tools import (
    EMPTY_OLD_TEXT,
    MANY_PLACES_TEXT,
    MOVED_TARGET_TEXT,
    NOT_FOUND_TEXT,
    SAME_TEXT,
    SECRET_OVERWRITE_TEXT,
)
from agent_cli.tools.output import INTERRUPTED_TEXT
from agent_cli.tools.seen_files import STALE_TEXT, STALE_UNREADABLE_TEXT
from agent_cli.tools.shell import (
    INTERRUPTED_HEADER,
    OUTPUT_CAP_HEADER,
    TERMINATED_HEADER,
    TIMED_OUT_HEADER,
)
from agent_cli.tools.toolbox import DENIED_TEXT as USER_DENIED_TEXT
from agent_cli.tools.toolbox import MCP_TERMINATED_TEXT, UNASKED_TEXT

RAN = "ran"  # it ran (to its end, or to an error of its own)
STOPPED = "stopped"  # it started and was stopped before it finished (Ctrl-C, a signal)
UNKNOWN = "unknown"  # its result was never recorded: it may have run
DENIED = "denied"  # the user said no
ASKED = "asked"  # its permission question was up when the turn or session ended
NOT_RUN = "not_run"  # it never started (an earlier call stopped the turn, a cut answer…)
REFUSED = "refused"  # its tool refused it, and wrote nothing (a stale file, text not found…)
OUTCOMES = (RAN, STOPPED, UNKNOWN, DENIED, ASKED, NOT_RUN, REFUSED)

# (template, outcome): a `{field}` stands for any text.
_WRITTEN_RESULTS = (
    (USER_DENIED_TEXT, DENIED),
    (DENIED_TEXT, DENIED),
    (AT_QUESTION_TEXT, ASKED),
    (ASKING_INTERRUPTED_TEXT, ASKED),
    (TERMINATED_ASKING_TEXT, ASKED),
    (AFTER_QUESTION_TEXT, NOT_RUN),
    (NOT_RUN_TOOL_TEXT, NOT_RUN),
    (NOT_STARTED_TEXT, NOT_RUN),
    (CUT_TOOL_TEXT, NOT_RUN),
    (STOPPED_TOOL_TEXT, NOT_RUN),
    (UNRECORDED_TEXT, NOT_RUN),
    (UNASKED_TEXT, NOT_RUN),
    (INTERRUPTED_TOOL_TEXT, STOPPED),
    (TERMINATED_TOOL_TEXT, STOPPED),
    (MCP_TERMINATED_TEXT, STOPPED),
    (INTERRUPTED_TEXT, STOPPED),
    (INTERRUPTED_HEADER + "\n{output}", STOPPED),  # a command's output so far follows
    (TERMINATED_HEADER + "\n{output}", STOPPED),
    (TIMED_OUT_HEADER + "\n{output}", STOPPED),
    (OUTPUT_CAP_HEADER + "\n{output}", STOPPED),
    (STALE_TEXT, REFUSED),
    (STALE_UNREADABLE_TEXT, REFUSED),
    (APPEARED_TEXT, REFUSED),
    (DELETED_TEXT, REFUSED),
    (CHANGED_TEXT, REFUSED),
    (MOVED_TARGET_TEXT, REFUSED),
    (DIRECTORY_TEXT, REFUSED),
    (SECRET_OVERWRITE_TEXT, REFUSED),
    (EMPTY_OLD_TEXT, REFUSED),
    (SAME_TEXT, REFUSED),
    (NOT_FOUND_TEXT, REFUSED),
    (MANY_PLACES_TEXT, REFUSED),
    (RESUMED_TOOL_TEXT, UNKNOWN),
)


def _pattern(template: str) -> re.Pattern[str]:
    """`template` as a pattern matching it whole, each `{field}` any text."""
    parts = []
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append("(?s:.+)")
    return re.compile("".join(parts))


_PATTERNS = tuple((_pattern(template), outcome) for template, outcome in _WRITTEN_RESULTS)


def read_call_outcome(result: Mapping[str, Any] | None) -> str:
    """The outcome (`OUTCOMES`) of the call that `result` (a tool_result block, or None
    when there is none) answers; see the module contract."""
    if result is None:
        return UNKNOWN
    if result.get("is_error") is not True:
        return RAN
    text = _result_text(result.get("content"))
    for pattern, outcome in _PATTERNS:
        if pattern.fullmatch(text):
            return outcome
    return RAN


def _result_text(content: Any) -> str:
    """A result's text: its string content, or its first text block's."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                return str(block.get("text", ""))
    return ""
