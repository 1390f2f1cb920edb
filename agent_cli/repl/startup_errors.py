"""Words for the errors that end the process while it opens its session.

Contract: `describe_startup_error(exc)` returns one line fitted to a process that is
about to exit (the advice names command-line flags, never REPL commands such as `/new`,
and never the flag that just failed), or None when the general wording of `error_text`
fits; `startup_exit_code(exc)` is 2 for what the user fixes on the command line.
What went wrong with a session is worded once, by `error_text.describe_session_fact`;
only the advice is the start-up's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_cli import errors as e
from agent_cli.repl.error_text import describe_session_fact, describe_session_id_rule

NEW_SESSION = "run agent-cli without --continue or --resume to start a new session"


def _bad_input(exc: e.InvalidStoreInput) -> str | None:
    if exc.field != "session_id":
        return None
    return (
        f"--resume: that is not a session id ({describe_session_id_rule(exc.reason)}); "
        "`agent-cli --resume` without an id lists this folder's sessions"
    )


_DESCRIBERS: dict[type, Callable[[Any], str | None]] = {
    e.TranscriptLocked: lambda exc: f"{describe_session_fact(exc)}, or {NEW_SESSION}",
    e.TranscriptCorrupt: lambda exc: (
        f"{describe_session_fact(exc)}. {NEW_SESSION}, or `agent-cli --resume` to pick another"
    ),
    e.SessionUnresumable: lambda exc: f"{describe_session_fact(exc)}. {NEW_SESSION}",
    e.TranscriptChangedUnderneath: lambda exc: (
        f"{describe_session_fact(exc)}; try again, or {NEW_SESSION}"
    ),
    e.InvalidStoreInput: _bad_input,
}


def describe_startup_error(exc: BaseException) -> str | None:
    """The start-up wording for `exc`, or None to use the general one."""
    for kind in type(exc).__mro__:
        describer = _DESCRIBERS.get(kind)
        if describer is not None:
            return describer(exc)
    return None


def startup_exit_code(exc: BaseException) -> int | None:
    """2 for a session id that is not one or an input over the cap (usage errors); None:
    the general code."""
    if isinstance(exc, e.InvalidStoreInput) and exc.field == "session_id":
        return 2
    if isinstance(exc, e.InputTooLarge):
        return 2
    return None
