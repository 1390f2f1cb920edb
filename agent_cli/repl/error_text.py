"""Words and exit codes for typed errors: the only place errors become sentences.

Contract: `describe_error(exc)` returns one short line that says what went wrong and
what to do; `exit_code_for(exc)` the process exit code (2 for bad usage or
configuration, 1 otherwise). Field values that could carry outside text (ids, reasons,
paths) are flattened with `clip_line`, so an error line can never rewrite the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_cli import errors as e
from agent_cli.repl.plain_words import explain_pending_reason
from agent_cli.repl.safe_text import clip_line

USAGE_EXIT = 2
FAILURE_EXIT = 1

_USAGE_REASONS = {
    "missing_argument": "missing argument",
    "unexpected_argument": "takes no arguments",
    "one_id_expected": "expects exactly one id",
    "missing_reason": "needs a reason after the id",
    "bad_option": "unknown option",
    "already_current": "that session is already open here",
    "current_session": "the open session cannot be deleted; /new or /resume another first",
    "bad_days": "give a whole number of days, e.g. delete --older-than 30",
}


def _c(value: object, limit: int = 160) -> str:
    return clip_line(str(value), limit)


def _config(exc: e.ConfigError) -> str:
    where = f" (from {_c(exc.source)})" if exc.source else ""
    return f"config error: {_c(exc.key)}{where}: {_c(exc.reason, 240)}"


def _provider_failed(exc: e.ProviderRequestFailed) -> str:
    if exc.kind == "model_not_found":
        from agent_cli.session.describe import model_not_found

        return model_not_found(exc.model)
    status = f", HTTP {exc.status}" if exc.status else ""
    attempts = f", {exc.attempts} attempts" if exc.attempts > 1 else ""
    return (
        f"model request failed ({_c(exc.kind)}{status}{attempts}): "
        "the conversation is unchanged; try again"
    )


def _blocked(exc: e.MessageViewLimitExceeded) -> str:
    return (
        f"request blocked: the view is {exc.tokens_after:,} tokens, over the hard limit "
        f"{exc.hard_limit:,}; nothing was sent. Try /compact <focus>, a higher "
        "--hard-limit, or /new"
    )


def _too_large(exc: e.InputTooLarge) -> str:
    return (
        f"that input ({_c(exc.source, 20)}) is {exc.size_bytes / 2**20:,.1f} MB, over the "
        f"{exc.limit_bytes / 2**20:,.0f} MB one message may be; nothing was sent or recorded. "
        "Save large content to a file in the workspace and ask the agent to read it"
    )


SESSION_ID_SHAPE = "20261203-091436-68f9c2"

_FILE_KINDS = {
    "fifo": "a FIFO (named pipe)",
    "directory": "a folder",
    "socket": "a socket",
    "device": "a device",
    "symlink": "a symbolic link",
}


def describe_session_id_rule(reason: str) -> str:
    """Why a string is no session id, for an `InvalidStoreInput` on `session_id`."""
    if reason == "reserved_name":
        return "it names one of agent-cli's own folders or files, like memory or transcripts"
    return f"ids look like {SESSION_ID_SHAPE}"


def _locked_fact(exc: e.TranscriptLocked) -> str:
    return f"session {_c(exc.session_id)} is open in another agent-cli process; quit it there first"


def _damaged_fact(exc: e.TranscriptCorrupt) -> str:
    return (
        f"the transcript of session {_c(exc.session_id)} is damaged at line "
        f"{exc.line_number} ({_c(exc.reason)}); the file is left as it is"
    )


def _unresumable_fact(exc: e.SessionUnresumable) -> str:
    where = f" at line {exc.line_number}" if exc.line_number is not None else ""
    return (
        f"session {_c(exc.session_id)} cannot be resumed: its transcript{where} holds a "
        f"conversation the API would refuse ({_c(exc.reason)}); the file is left as it is"
    )


def _changed_fact(exc: e.TranscriptChangedUnderneath) -> str:
    return f"the transcript of session {_c(exc.session_id)} changed underneath ({_c(exc.reason)})"


_SESSION_FACTS: dict[type, Callable[[Any], str]] = {
    e.TranscriptLocked: _locked_fact,
    e.TranscriptCorrupt: _damaged_fact,
    e.SessionUnresumable: _unresumable_fact,
    e.TranscriptChangedUnderneath: _changed_fact,
}


def describe_session_fact(exc: BaseException) -> str | None:
    """What went wrong with a session's transcript (locked, damaged, unresumable, changed
    underneath), without advice: the REPL and the start-up each add what to do where they
    are. None for any other error. The one place these facts are worded."""
    for kind in type(exc).__mro__:
        fact = _SESSION_FACTS.get(kind)
        if fact is not None:
            return fact(exc)
    return None


NEW_SESSION_HERE = "start a new session with /new"


_DESCRIBERS: dict[type, Callable[[Any], str]] = {
    e.InputTooLarge: _too_large,
    e.InvalidStoreInput: lambda exc: (
        f"that is not a session id ({describe_session_id_rule(exc.reason)}); /sessions lists them"
        if exc.field == "session_id"
        else f"refused: {_c(exc.field)} is not acceptable ({_c(exc.reason)})"
    ),
    e.SessionFolderKept: lambda exc: (
        f"{_c(exc.folder, 300)} still holds {exc.foreign_entries} entr"
        f"{'y' if exc.foreign_entries == 1 else 'ies'} agent-cli did not write there; "
        "they were left as they were (remove them yourself if they are not needed)"
    ),
    e.StoreFileNotRegular: lambda exc: (
        f"{_c(exc.path, 300)} is {_FILE_KINDS.get(exc.kind, 'not a regular file')}, not a "
        "regular file; agent-cli did not open it. Move it out of the way and try again"
    ),
    e.HeldResultsLost: lambda exc: (
        f"{exc.result_count} tool result(s) of session {_c(exc.session_id)} could not be "
        f"recorded ({_c(exc.reason)}) and are lost; a resumed session tells the model the "
        "result was not recorded. Free disk space before going on"
    ),
    e.ConfigError: _config,
    e.MissingApiKey: lambda exc: "No ANTHROPIC_API_KEY: set it, or run with --provider offline",
    e.ProviderRequestFailed: _provider_failed,
    e.ModelSwitchRefused: lambda exc: (
        "the offline demo model has no other models; set ANTHROPIC_API_KEY to use Claude"
        if exc.reason == "offline"
        else "that is not a model id (letters, digits and . _ - : @ / only); /model lists them"
    ),
    e.WireFormatError: lambda exc: (
        f"request refused before sending ({_c(exc.reason)}): the conversation is unchanged"
    ),
    e.SummarizerFailed: lambda exc: (
        f"summary failed ({_c(exc.reason)}): the view is unchanged; try /compact again"
    ),
    e.MessageViewLimitExceeded: _blocked,
    e.TranscriptLocked: lambda exc: f"{_locked_fact(exc)}, or /new for a new session here",
    e.StateDirUnavailable: lambda exc: (
        f"cannot use the state folder {_c(exc.path, 300)} ({_c(exc.reason)}): set "
        "AGENT_CLI_HOME to a writable folder"
    ),
    e.SessionNotFound: lambda exc: (
        f"no session {_c(exc.session_id)}: /sessions (or --resume without an id) lists them"
    ),
    e.TranscriptCorrupt: lambda exc: f"{_damaged_fact(exc)}; {NEW_SESSION_HERE}",
    e.SessionUnresumable: lambda exc: f"{_unresumable_fact(exc)}; {NEW_SESSION_HERE}",
    e.TranscriptWriteFailed: lambda exc: (
        f"could not write the transcript of session {_c(exc.session_id)} "
        f"({_c(exc.errno_name)}); free disk space, then /resume {_c(exc.session_id)}"
    ),
    e.TranscriptChangedUnderneath: lambda exc: f"{_changed_fact(exc)}; {NEW_SESSION_HERE}",
    e.MemoryFileDamaged: lambda exc: (
        f"the durable memory file {_c(exc.path, 300)} is "
        f"{'a symbolic link' if exc.reason == 'symlink' else 'not a regular file'}; agent-cli "
        "left it alone. Move it out of the way to save durable facts again"
        if exc.reason in ("not_a_file", "symlink")
        else f"the durable memory file {_c(exc.path, 300)} could not be loaded ({_c(exc.reason)})"
        + (f"; the damaged copy was kept at {_c(exc.kept_at, 300)}" if exc.kept_at else "")
    ),
    e.SourcePointerError: lambda exc: (
        f"bad pointer ({_c(exc.reason)}): expected transcript:<session>:<sequence> or "
        "artifact:<session>:<file>:<sha256 prefix>"
    ),
    e.PendingTransitionError: lambda exc: explain_pending_reason(
        exc.reason, getattr(exc, "item_id", None)
    ),
    e.DurableItemNotFound: lambda exc: (
        f"there is no fact or pending item {_c(exc.item_id, 40)}; /facts lists them "
        "(F1, F2, ... and T1, T2, ...)"
    ),
    e.DurableStateError: lambda exc: (
        f"durable state refused it ({_c(exc.field)}: {_c(exc.reason)})"
    ),
    e.UnknownCommand: lambda exc: (
        f"unknown command {_c(exc.name, 40)}: "
        + (f"did you mean {_c(exc.suggestion, 40)}? " if getattr(exc, "suggestion", None) else "")
        + "/help lists the commands"
    ),
    e.CommandUsageError: lambda exc: (
        f"{_c(exc.command, 40)}: {_USAGE_REASONS.get(exc.reason, _c(exc.reason))}"
    ),
}


def describe_error(exc: BaseException) -> str:
    """One line for the user; the most specific describer along the class hierarchy wins."""
    for kind in type(exc).__mro__:
        describer = _DESCRIBERS.get(kind)
        if describer is not None:
            return describer(exc)
    return f"{type(exc).__name__}: {_c(exc, 300)}"


def exit_code_for(exc: BaseException) -> int:
    """2 for what the user can fix on the command line or in the config; 1 otherwise."""
    usage_errors = (e.ConfigError, e.MissingApiKey, e.SessionNotFound, e.CommandUsageError)
    return USAGE_EXIT if isinstance(exc, usage_errors) else FAILURE_EXIT
