"""Words and exit codes for what the session reports: the only place its typed errors,
notice codes and reason codes become sentences.

Contract: `describe_error(exc)` returns one short line that says what went wrong and
what to do; `exit_code_for(exc)` the process exit code (2 for bad usage or
configuration, 1 otherwise); `describe_startup_error(exc)` and `startup_exit_code(exc)`
the same for a process about to exit while it opens its session (None: the general
ones fit); `notice_text(notice)` words a session `Notice` from its code
and fields (and the typed error it carries); `explain_resolution(status, reason)` says
what a pointer's status means and `explain_pending_reason(reason, item_id)` why a change
to a pending item was refused, without the code (codes stay in `--json` output, the
transcript and the logs); `describe_instructions_problem` and
`describe_instructions_redaction` say what is wrong with AGENTS.md. The session emits
codes and fields only. Field values that could carry outside text (ids, reasons, paths)
are flattened with `clip_line` in error lines, so an error line can never rewrite the
screen; notice lines are flattened where they are rendered (`render.build_notice_text`).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_cli import errors as e
from agent_cli.provider.stream_assembly import MAX_TOOL_INPUT_DEPTH
from agent_cli.repl.pointer_forms import show_pointer
from agent_cli.repl.safe_text import clip_line
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.output import count_noun

if TYPE_CHECKING:
    from agent_cli.durable import ItemsElsewhere
    from agent_cli.events import Notice

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
    "bad_days": "give a whole number of days (up to 99999), e.g. delete --older-than 30",
    "unknown_argument": "unknown argument",
    "no_such_answer": "give the number /permissions shows before the answer to take back",
}


def describe_usage_reason(reason: str) -> str:
    """A `CommandUsageError` reason code in words, without the command's name."""
    return _USAGE_REASONS.get(reason, _c(reason))


def _c(value: object, limit: int = 160) -> str:
    return clip_line(str(value), limit)


def _capital(clause: str) -> str:
    return clause[:1].upper() + clause[1:]


# Why a folder or a write in it cannot be used, for the reason codes and errno names the
# stores raise, and what makes a write there work again (`describe_folder_fix`; none: free
# disk space or fix the folder). A read-only file system is no matter of permissions: no
# chmod fixes it, and freeing disk space does not either.
_FOLDER_PROBLEMS: dict[str, tuple[str, str | None]] = {
    "not_a_directory": ("it is a file, not a folder", None),
    "not_writable": ("you have no permission to write there", "get write permission there"),
    "ENOTDIR": ("a part of its path is a file, not a folder", None),
    "ENAMETOOLONG": ("its name is too long for the file system", None),
    "EACCES": ("you have no permission to create or open it", "get write permission there"),
    "EPERM": ("the system does not allow creating or opening it", None),
    "EROFS": ("it is on a read-only file system", "remount that file system read-write"),
    "ENOSPC": ("the disk is full", "free disk space"),
    "EDQUOT": ("your disk quota is used up", "free space within your disk quota"),
    "short_write": ("the disk took only part of a write", "free disk space"),
    "ELOOP": ("its path has a loop of symbolic links", None),
    "dangling_link": ("it is a symbolic link to something that does not exist", None),
    "ENOENT": ("a part of its path does not exist", None),
    "EEXIST": ("something else is already at that path", None),
    "EFBIG": (
        "the file would be bigger than this system's file-size limit allows",
        "raise the file-size limit (ulimit -f)",
    ),
}
_FOLDER_FIX = "free disk space or fix the state folder"


def describe_folder_problem(reason: str) -> str:
    """Why a folder cannot be used, in plain words (no errno names or reason codes)."""
    known = _FOLDER_PROBLEMS.get(reason)
    if known is not None:
        return known[0]
    number = getattr(errno, reason, None) if reason.isupper() else None
    if isinstance(number, int):
        return f"the system refused it ({os.strerror(number).lower()})"
    return "the system refused it"


def describe_folder_fix(reason: str) -> str:
    """What makes a write the disk refused with `reason` work again, as a clause ("free
    disk space"): the table's own, else freeing disk space or fixing the folder."""
    known = _FOLDER_PROBLEMS.get(reason)
    return (known[1] if known is not None else None) or _FOLDER_FIX


def describe_limit_restart(go_on: str) -> str:
    """What makes a write refused by a file-size limit (EFBIG) work, as a sentence after
    one that names the limit. The limit holds for the process started under it: "then try
    again" in the same run would only fail again, so it says to quit, raise it where
    agent-cli is started, and `go_on` ("go on with `agent-cli --resume <id>`"). Short: a
    notice or an error line shows 400 characters."""
    return (
        "This run keeps that limit: quit, raise it (ulimit -f) in the shell that starts "
        f"agent-cli, and {go_on}."
    )


def go_on_with_session(session_id: str | None) -> str:
    """How to go on with a session from the command line: by its id when known, else the
    newest session of this folder."""
    if session_id:
        return f"go on with `agent-cli --resume {_c(session_id, 80)}`"
    return "go on with `agent-cli --continue` (this folder's newest session)"


def _failed_write(reason: str) -> str:
    """A refused write's reason for a parenthesis: its words and its code ("the disk is
    full, ENOSPC"), the code alone when it has no words of its own."""
    if reason in _FOLDER_PROBLEMS:
        return f"{describe_folder_problem(reason)}, {reason}"
    return reason


def _state_folder_advice(reason: str) -> str:
    """What to do about a state folder that cannot be used at all."""
    if reason == "EROFS":  # `os.access` said no: chmod cannot help, even as root
        return (
            "Changing permissions will not help: set AGENT_CLI_HOME to a folder on a "
            "writable file system (or remount this one read-write)"
        )
    return "Set AGENT_CLI_HOME to a folder you can write to"


def describe_unsaved_history(error: OSError) -> str:
    """The prompt history file refused a line (a full disk); the line itself was sent."""
    name = errno.errorcode.get(error.errno or 0)
    known = _FOLDER_PROBLEMS.get(name or "")
    reason = (
        known[0]
        if known is not None
        else (os.strerror(error.errno).lower() if error.errno else type(error).__name__)
    )
    code = f" ({name})" if name else ""
    return (
        f"Could not add that line to the prompt history file: {reason}{code}. The line is "
        "sent all the same and Up still recalls it in this run; later lines are kept the "
        "same way, without saying so again, until the file can be written."
    )


def _config(exc: e.ConfigError) -> str:
    where = f" (from {_c(exc.source)})" if exc.source else ""
    return f"config error: {_c(exc.key)}{where}: {_c(exc.reason, 240)}"


def _print_prompt_refused(reason: str, command: str | None) -> str:
    if reason == "empty":
        return "-p needs a prompt, and it was empty: give the request after -p (or -p - to read it from stdin)"
    return (
        f"{_c(command, 40)} is a command of the interactive prompt, and -p runs none: start "
        "agent-cli without -p to use it (a request that begins with / is sent as //…)"
    )


def _provider_failed(exc: e.ProviderRequestFailed) -> str:
    if exc.kind == "model_not_found":
        return model_not_found(exc.model)
    if exc.kind in WRONG_ENDPOINT_KINDS:
        return describe_wrong_endpoint(exc)
    if is_foreign_stream(exc):
        return describe_foreign_stream(exc, "the conversation is unchanged; try again")
    status = f", HTTP {exc.status}" if exc.status else ""
    attempts = f", {exc.attempts} attempts" if exc.attempts > 1 else ""
    return (
        f"model request failed ({_c(exc.kind)}{status}{attempts}): "
        "the conversation is unchanged; try again"
    )


def _blocked(exc: e.MessageViewLimitExceeded) -> str:
    durable, reserved = exc.durable_tokens, exc.reserved_tokens
    if exc.sized_content_over:
        advice = (
            "An image or a document in the conversation was billed above its estimate, and "
            f"the request is weighed at that count (what every request carries is {reserved:,} "
            "tokens, under the limit): /new starts a session without it, or raise --hard-limit"
        )
    elif reserved >= exc.hard_limit and durable and reserved - durable < exc.hard_limit:
        advice = (
            f"The durable block (/remember facts, /todo items) is {durable:,} of the "
            f"{exc.reserved_tokens:,} tokens every request carries besides the conversation: "
            "/forget those no longer needed (/facts lists them) or raise --hard-limit"
        )
    elif exc.reserved_tokens >= exc.hard_limit:
        advice = (
            f"What every request carries besides the conversation is {exc.reserved_tokens:,} "
            "tokens alone (/context shows it): turn off MCP servers, /forget facts no longer "
            "needed, or raise --hard-limit"
        )
    else:
        advice = "Try /compact <focus>, a higher --hard-limit, or /new"
    return (
        f"request blocked: the view is {exc.tokens_after:,} tokens, over the hard limit "
        f"{exc.hard_limit:,}; nothing was sent. {advice}"
    )


def _blocked_one_shot(exc: e.MessageViewLimitExceeded, session_id: str | None = None) -> str:
    """`_blocked` for `-p`, which has no command to run between prompts (`session_id`: the
    session the turn ran in, named for `--resume`)."""
    advice = blocked_one_shot_advice(
        hard_limit=exc.hard_limit,
        reserved_tokens=exc.reserved_tokens,
        durable_tokens=exc.durable_tokens,
        largest_message_tokens=exc.largest_message_tokens,
        sized_content_over=exc.sized_content_over,
        session_id=session_id,
    )
    return (
        f"request blocked: the view is {exc.tokens_after:,} tokens, over the hard limit "
        f"{exc.hard_limit:,}; nothing was sent. {advice}"
    )


def blocked_one_shot_advice(
    *,
    hard_limit: int,
    reserved_tokens: int,
    durable_tokens: int,
    largest_message_tokens: int,
    sized_content_over: bool,
    session_id: str | None,
) -> str:
    """What a `-p` run blocked over the hard limit does next: every layer already ran, so
    the session goes on in a run with a higher --hard-limit (`--continue`, or `--resume`
    with its id); what the request carries is shrunk outside `-p`. A new session is not
    offered: a run without --continue/--resume would not carry this conversation, and a
    run that had neither is already one."""
    resume = f"--resume {_c(session_id, 80)}" if session_id else "--resume <session id>"
    go_on = (
        f"To go on from this session, run agent-cli --continue -p … (or {resume}) with "
        f"--hard-limit above {hard_limit:,}"
    )
    if sized_content_over:
        return f"An image or a document in the conversation was billed above its estimate. {go_on}."
    if reserved_tokens >= hard_limit:
        durable = f" (the durable block {durable_tokens:,} of them)" if durable_tokens else ""
        return (
            f"What every request carries besides the conversation is {reserved_tokens:,} "
            f"tokens{durable}. {go_on}; or turn off MCP servers in config.toml, or /forget "
            "facts in agent-cli without -p"
        )
    if largest_message_tokens >= hard_limit:
        return (
            f"One message alone is {largest_message_tokens:,} tokens, so compacting cannot "
            f"help. {go_on}, or save large content to a file and ask the agent to read it."
        )
    return f"{go_on}."


def describe_print_turn_error(exc: BaseException, session_id: str | None) -> str:
    """What `-p` says of an error its turn raised: as at start-up (`describe_startup_error`),
    a blocked request with the session to go on from."""
    if isinstance(exc, e.MessageViewLimitExceeded):
        return _blocked_one_shot(exc, session_id)
    return describe_startup_error(exc) or describe_error(exc)


def describe_durable_block_too_large(exc: e.DurableBlockTooLarge) -> str:
    """`/remember` or `/todo` refused for room (`session.durable_room`): the figures, and
    what makes room (never /compact or /new: neither shrinks the durable block)."""
    left = exc.hard_limit - exc.fixed_tokens
    leaves = (
        f"at or over the hard limit {exc.hard_limit:,}, so no request could be sent"
        if left <= 0
        else f"leaving the conversation {left:,} of the hard limit {exc.hard_limit:,}, "
        f"under the {exc.room_needed:,} (a quarter) it keeps"
    )
    forget = f"/forget {_c(exc.oldest_fact, 40)} or another" if exc.oldest_fact else "/forget a"
    kept = "nothing changed" if exc.command == "block" else "nothing added"  # (a reason)
    return (
        f"/{_c(exc.command)} refused, {kept}: with it every request would carry "
        f"{exc.fixed_tokens:,} tokens besides the conversation (the durable block "
        f"{exc.durable_tokens:,} of them), {leaves}. {forget} fact or item no longer needed "
        "(/facts lists them), or raise --hard-limit"
    )


def describe_durable_text_too_long(exc: e.DurableTextTooLong) -> str:
    """A `/remember` or `/todo` text, or a `/block` reason, over the characters one item may
    hold: nothing was recorded, and where big content belongs."""
    if exc.command == "block":
        return (
            f"/block takes a reason of at most {exc.limit:,} characters; this has "
            f"{exc.characters:,}, and the durable state goes with every request. Nothing was "
            "changed. Put the details in a file and name it in the reason"
        )
    return (
        f"/{_c(exc.command)} takes at most {exc.limit:,} characters; this has "
        f"{exc.characters:,}, and the durable state goes with every request. Nothing was "
        "added. Put big content in a file and remember where it is "
        "(/remember the API notes are in docs/api.md)"
    )


def _model_refused(reason: str) -> str:
    """Why a model id was not taken (`ModelSwitchRefused`)."""
    if reason == "offline":
        return "the offline demo model has no other models; set ANTHROPIC_API_KEY to use Claude"
    if reason == "secret_model_id":
        return (
            "that model id holds one of your secrets (an API key or token?); it was not used "
            "or recorded. Give a model id such as claude-sonnet-4-5 (--model, ANTHROPIC_MODEL "
            "or config.toml's model; /model lists them)"
        )
    return "that is not a model id (letters, digits and . _ - : @ / only); /model lists them"


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


def _not_whole(exc: e.CommandNotWhole) -> str:
    """A command input refused before it ran (`commands.check_command_whole`)."""
    name = _c(exc.name, 40)
    if exc.placeholder is not None:
        why = (
            f"that input starts with {name} but holds a paste shown only as "
            f"{_c(exc.placeholder, 60)}, and a command runs only when all of it is on screen"
        )
    else:
        why = f"{name} takes one line, and that input has {exc.lines}"
    return (
        f"nothing was run: {why}. It is back in the prompt: edit it, or make it start with // "
        "to send it to the model as a message"
    )


# --- the workspace folder gone ------------------------------------------------------------
# The user's words; the model's (which speak of "the user") are `tools.workspace`'s. Every
# piece of advice holds: `--resume` goes on in the recorded folder while it exists, else in
# the folder it is run in (`session.opening`), and is refused only when both are gone.


def _gone_fact(gone: e.WorkspaceGone, when: str = "while this session ran") -> str:
    folder = f"The workspace folder {_c(gone.root, 300)}"
    if gone.now == "another folder":
        return f"{folder} was replaced by another folder {when}"
    return f"{folder} no longer exists (moved or deleted {when})"


def _resume_command(session_id: str | None) -> str:
    return (
        f"`agent-cli --resume {_c(session_id, 80)}`"
        if session_id
        else "`agent-cli --resume` with this session's id"
    )


def _gone_advice(gone: e.WorkspaceGone) -> str:
    """What the user can do, from the prompt of the session whose folder is gone."""
    resume = _resume_command(gone.session_id)
    if gone.now == "another folder":
        return (
            "This session's file tools and commands work only in the folder it started "
            f"in. To work in the folder now there, quit and run {resume}: it goes on with "
            "this conversation there."
        )
    return (
        "No file tool or command can work in this session now. To go on with this "
        f"conversation, quit and run {resume} in a folder that exists: its tools then work "
        f"in {_c(gone.root, 300)} if you make that folder again, else in the folder you run "
        "it in."
    )


def describe_workspace_gone(gone: e.WorkspaceGone, after_call: bool = False) -> str:
    """A tool's call refused because the workspace folder is gone, as the user reads it;
    `after_call`: the call that ran removed it (it was done)."""
    if after_call:
        return f"{_gone_fact(gone, 'during this call')}. {_gone_advice(gone)}"
    return f"{_gone_fact(gone)}; nothing was done. {_gone_advice(gone)}"


def describe_reload_workspace_gone(gone: e.WorkspaceGone, kept: str | None) -> str:
    """`/reload` once the workspace folder is gone: nothing to read, and what requests go
    on carrying (`kept`: the file loaded before, None: none was)."""
    carried = (
        f"Requests keep carrying the {_c(kept, 40)} loaded before"
        if kept
        else "Requests go on without project instructions, as before"
    )
    nothing = "there is no AGENTS.md or CLAUDE.md to read again"
    return f"{_gone_fact(gone)}: {nothing}. {carried}. {_gone_advice(gone)}"


def describe_new_session_refused(missing: e.WorkspaceMissing, session_id: str) -> str:
    """`/new` refused because the folder agent-cli was started in is gone; `session_id`:
    the session still open."""
    folder = _c(missing.root, 300) if missing.root else "agent-cli was started in"
    return (
        f"The folder {folder} no longer exists (moved or deleted), so a new session cannot "
        "start in it. Quit, then start agent-cli in a folder that exists (or make that "
        f"folder again); {_resume_command(session_id)} run there goes on with this "
        "conversation."
    )


def _workspace_missing(exc: e.WorkspaceMissing) -> str:
    """A session refused at opening: no existing folder for its tools (`session.opening`)."""
    where = "cd to a folder that exists, or give one with --workspace DIR"
    if exc.session_id is None and exc.root is None:
        return f"the current folder no longer exists (deleted or moved): {where}"
    if exc.session_id is None:
        folder = _c(exc.root, 300)
        return f"the current folder {folder} no longer exists (deleted or moved): {where}"
    worked_in = (
        f"worked in {_c(exc.root, 300)}, which" if exc.root else "has no recorded folder that"
    )
    return (
        f"session {_c(exc.session_id, 80)} {worked_in} no longer exists, and neither does the "
        f"folder agent-cli was started in: {where}; {_resume_command(exc.session_id)} then "
        "goes on with it there"
    )


def _held_results_lost(exc: e.HeldResultsLost) -> str:
    """Held tool results a closing session could not record: how many, why, and what makes
    the session's next write work. A file-size limit holds for the process started under
    it, so raising it "before going on" in this run would not help (`describe_limit_restart`)."""
    head = (
        f"{exc.result_count} tool result(s) of session {_c(exc.session_id)} could not be "
        f"recorded ({_c(_failed_write(exc.reason))}) and are lost; a resumed session tells "
        "the model the result was not recorded."
    )
    if exc.reason == "EFBIG":
        return f"{head} {describe_limit_restart(go_on_with_session(exc.session_id))}"
    return f"{head} {_capital(describe_folder_fix(exc.reason))} before going on"


_DESCRIBERS: dict[type, Callable[[Any], str]] = {
    e.InputTooLarge: _too_large,
    e.PasteNotKept: lambda exc: (
        f"that line holds {_c(exc.placeholder, 60)}, recalled from an earlier run: the history "
        "keeps a long paste's placeholder, not its text, so nothing was sent. Paste the text "
        "again"
    ),
    e.CommandNotWhole: lambda exc: _not_whole(exc),
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
    e.HeldResultsLost: _held_results_lost,
    e.ConfigError: _config,
    e.WorkspaceGone: describe_workspace_gone,
    e.WorkspaceMissing: _workspace_missing,
    e.PrintPromptRefused: lambda exc: _print_prompt_refused(exc.reason, exc.command),
    e.MissingApiKey: lambda exc: "No ANTHROPIC_API_KEY: set it, or run with --provider offline",
    e.ProviderRequestFailed: _provider_failed,
    e.ModelSwitchRefused: lambda exc: _model_refused(exc.reason),
    e.WireFormatError: lambda exc: (
        f"request refused before sending ({_c(exc.reason)}): the conversation is unchanged"
    ),
    e.SummarizerFailed: lambda exc: (
        f"summary failed ({_c(exc.reason)}): the view is unchanged; try /compact again"
    ),
    e.MessageViewLimitExceeded: _blocked,
    e.TranscriptLocked: lambda exc: f"{_locked_fact(exc)}, or /new for a new session here",
    e.StateDirUnavailable: lambda exc: (
        f"cannot use the state folder {_c(exc.path, 200)}: "
        f"{describe_folder_problem(str(exc.reason))}. {_state_folder_advice(str(exc.reason))}"
    ),
    e.SessionNotFound: lambda exc: (
        f"no session {_c(exc.session_id)}: /sessions (or --resume without an id) lists them"
    ),
    e.TranscriptCorrupt: lambda exc: f"{_damaged_fact(exc)}; {NEW_SESSION_HERE}",
    e.SessionUnresumable: lambda exc: f"{_unresumable_fact(exc)}; {NEW_SESSION_HERE}",
    e.TranscriptWriteFailed: lambda exc: _transcript_failed(exc, "/resume {id}", "/new"),
    e.TranscriptChangedUnderneath: lambda exc: f"{_changed_fact(exc)}; {NEW_SESSION_HERE}",
    e.MemoryWriteFailed: lambda exc: _memory_not_saved(exc),
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
    e.PendingTransitionError: lambda exc: explain_pending_reason(exc.reason, exc.item_id),
    e.DurableItemNotFound: lambda exc: (
        f"there is no fact or pending item {_c(exc.item_id, 40)}; /facts lists them "
        "(F1, F2, ... and T1, T2, ...)"
    ),
    e.DurableTextTooLong: lambda exc: describe_durable_text_too_long(exc),
    e.DurableBlockTooLarge: lambda exc: describe_durable_block_too_large(exc),
    e.DurableStateError: lambda exc: (
        f"durable state refused it ({_c(exc.field)}: {_c(exc.reason)})"
    ),
    e.UnknownCommand: lambda exc: (
        f"unknown command {_c(exc.name, 40)}: "
        + (f"did you mean {_c(exc.suggestion, 40)}? " if exc.suggestion else "")
        + "/help lists the commands"
    ),
    e.CommandUsageError: lambda exc: f"{_c(exc.command, 40)}: {describe_usage_reason(exc.reason)}",
    e.ArtifactUnavailable: lambda exc: describe_artifact_problem(exc.reason),
    e.PointerHandleUnknown: lambda exc: describe_unknown_handle(exc.number, exc.numbered),
    e.SessionChoiceAmbiguous: lambda exc: describe_ambiguous_session(
        exc.prefix, exc.candidates, exc.asked_by
    ),
    e.OutputClosed: lambda _: (
        "agent-cli stopped: the program reading its output closed it (a broken pipe, as "
        "with | head), so nothing more of its input was read or sent; what the session "
        "did so far is in its transcript"
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
    usage_errors = (
        e.ConfigError,
        e.MissingApiKey,
        e.SessionNotFound,
        e.SessionChoiceAmbiguous,
        e.CommandUsageError,
        e.PrintPromptRefused,
        e.WorkspaceMissing,  # where agent-cli runs, or --workspace
    )
    return USAGE_EXIT if isinstance(exc, usage_errors) else FAILURE_EXIT


# --- errors that end the process while it opens its session ---------------------------
# The advice names command-line flags, never REPL commands such as `/new`, and never the
# flag that just failed; what went wrong with a session is worded once, by
# `describe_session_fact`, and only the advice is the start-up's own.

NEW_SESSION_ON_START = "run agent-cli without --continue or --resume to start a new session"


def _bad_input(exc: e.InvalidStoreInput) -> str | None:
    if exc.field != "session_id":
        return None
    return (
        f"--resume: that is not a session id ({describe_session_id_rule(exc.reason)}); "
        "`agent-cli --resume` without an id lists this folder's sessions"
    )


def _memory_not_saved(exc: e.MemoryWriteFailed) -> str:
    """The memory file could not be saved (the previous one is untouched): why, and what
    makes the command work: a file-size limit needs a new run (`describe_limit_restart`)."""
    head = (
        f"could not save the durable memory file {_c(exc.path, 300)} "
        f"({describe_folder_problem(exc.errno_name)}), so no fact or pending item changed"
    )
    if exc.errno_name == "EFBIG":
        go_on = "run the command again after `agent-cli --continue`"
        return f"{head}. {describe_limit_restart(go_on)}"
    return f"{head}; {describe_folder_fix(exc.errno_name)}, then run the command again"


def _transcript_failed(exc: e.TranscriptWriteFailed, resume: str, start: str) -> str:
    """A session whose transcript could not be written: what to fix, then how to go on:
    `resume` (a template of `{id}`) the session, or `start` a new one when the new session
    left no file to resume. Under a file-size limit, neither works in this run: the words
    say to start agent-cli again under a raised one (`describe_limit_restart`)."""
    if exc.errno_name == "EFBIG":
        return _transcript_failed_at_limit(exc)
    why = f"({_c(_failed_write(exc.errno_name))}); {describe_folder_fix(exc.errno_name)}"
    if not exc.session_kept:
        return f"could not start a new session, its transcript could not be written {why}, then {start}"
    go_on = resume.format(id=_c(exc.session_id))
    return f"could not write the transcript of session {_c(exc.session_id)} {why}, then {go_on}"


def _transcript_failed_at_limit(exc: e.TranscriptWriteFailed) -> str:
    why = f"({_c(_failed_write(exc.errno_name))})"
    if not exc.session_kept:
        return (
            f"could not start a new session, its transcript could not be written {why}. "
            + describe_limit_restart("run agent-cli again")
        )
    return (
        f"could not write the transcript of session {_c(exc.session_id)} {why}. "
        + describe_limit_restart(go_on_with_session(exc.session_id))
    )


_STARTUP_DESCRIBERS: dict[type, Callable[[Any], str | None]] = {
    e.TranscriptWriteFailed: lambda exc: _transcript_failed(
        exc, "`agent-cli --resume {id}`", "run agent-cli again"
    ),
    e.TranscriptLocked: lambda exc: f"{describe_session_fact(exc)}, or {NEW_SESSION_ON_START}",
    e.TranscriptCorrupt: lambda exc: (
        f"{describe_session_fact(exc)}. {NEW_SESSION_ON_START}, or `agent-cli --resume` to pick another"
    ),
    e.SessionUnresumable: lambda exc: f"{describe_session_fact(exc)}. {NEW_SESSION_ON_START}",
    e.TranscriptChangedUnderneath: lambda exc: (
        f"{describe_session_fact(exc)}; try again, or {NEW_SESSION_ON_START}"
    ),
    e.InvalidStoreInput: _bad_input,
    e.MessageViewLimitExceeded: _blocked_one_shot,  # raised by a `-p` turn, never at start
}


def describe_startup_error(exc: BaseException) -> str | None:
    """The start-up wording for `exc`, or None to use the general one."""
    for kind in type(exc).__mro__:
        describer = _STARTUP_DESCRIBERS.get(kind)
        if describer is not None:
            return describer(exc)
    return None


def startup_exit_code(exc: BaseException) -> int | None:
    """2 for a session id that is not one, an input over the cap (usage errors) or a
    state folder that cannot be used (configuration); None: the general code."""
    if isinstance(exc, e.InvalidStoreInput) and exc.field == "session_id":
        return 2
    if isinstance(exc, e.InputTooLarge):
        return 2
    if isinstance(exc, e.StateDirUnavailable):
        return USAGE_EXIT  # AGENT_CLI_HOME (or the platform folder) is configuration
    if isinstance(exc, e.ModelSwitchRefused):
        return USAGE_EXIT  # the model --model, ANTHROPIC_MODEL or config.toml named
    return None


# --- the session's failures, as notices say them ------------------------------------------

MODEL_CHOICES = (
    "choose another with --model, the config key `model`, ANTHROPIC_MODEL, or /model "
    "at the prompt (/model alone lists the models)"
)

_PROVIDER_ADVICE = {
    "overloaded": "the API is overloaded; try again in a moment",
    "rate_limited": "rate limited; wait a little and try again",
    "connection": "could not reach the API; check the network or ANTHROPIC_BASE_URL",
    "timeout": "the API did not answer in time; try again",
    "auth": "the API key was refused; check ANTHROPIC_API_KEY",
    "permission": "the API key is not allowed to use this; check its access in the console",
    "bad_request": "the API rejected the request",
    "tool_input_too_deep": (
        "the model's answer held a tool call whose input is nested more than "
        f"{MAX_TOOL_INPUT_DEPTH} levels deep, more than agent-cli takes, so it was not "
        "run; ask for the input less deeply nested"
    ),
}
# Failures the same process cannot get past: its key is read once, at start.
_RESTART_TO_RETRY = frozenset({"auth", "permission"})


def model_not_found(model: str | None) -> str:
    """Which model the API does not know, and every way to pick another."""
    printable = "".join(ch for ch in model or "" if ch.isprintable())[:80]
    name = f"'{printable}'" if printable else "the requested model"
    return (
        f"The API has no model {name} (HTTP 404 not_found_error): {MODEL_CHOICES}. "
        "The conversation is unchanged but for your message, which is kept."
    )


def describe_failed_request(error: BaseException | None) -> str:
    """A model request that ended a turn: what failed and how to go on."""
    if error is None:
        return "The provider ended the stream without an answer."
    if not isinstance(error, e.ProviderRequestFailed):
        return f"{type(error).__name__}: {error}. The conversation is unchanged."
    if error.kind == "model_not_found":
        return model_not_found(error.model)
    if error.kind == "bad_request" and error.tool:
        return _refused_tool(error, error.tool)
    if error.kind in WRONG_ENDPOINT_KINDS:
        return describe_wrong_endpoint(error)
    if is_foreign_stream(error):
        return describe_foreign_stream(error)
    advice = _unreached_advice(error.kind, error.url) or _PROVIDER_ADVICE.get(
        error.kind, "the request failed"
    )
    status = f" (HTTP {error.status})" if error.status else ""
    tries = f" after {error.attempts} attempts" if error.attempts > 1 else ""
    detail = f": {error.detail}" if error.detail and error.kind == "bad_request" else ""
    go_on = (
        "quit, fix the key and start again with `agent-cli --continue` (this session keeps "
        "the key it started with)"
        if error.kind in _RESTART_TO_RETRY
        else RETRY_WITH_CONTINUE
    )
    return (
        f"Model request failed{status}{tries}: {advice}{detail}. "
        f"The conversation is unchanged but for your message, which is kept: {go_on}."
    )


# The paths the SDK adds to ANTHROPIC_BASE_URL: a Messages request's, the Models API's.
MESSAGES_PATH = "/v1/messages"
MODELS_PATH = "/v1/models"


def _unreached_advice(kind: str, url: str | None) -> str | None:
    """For a connection that failed and a timeout (a turn's, a summary's, the Models
    API's): the base URL the request went to (its credentials already left out,
    `endpoint_answers.shown_url`) and what to check, so a wrong ANTHROPIC_BASE_URL (a port
    nothing listens on) is seen; None without a URL."""
    if kind not in ("connection", "timeout") or not url:
        return None
    base = url.removesuffix(MESSAGES_PATH).removesuffix(MODELS_PATH) or url
    if kind == "connection":
        return (  # refused, or dropped mid-answer: the transport's errors are alike
            f"the connection to {_c(base, 120)} failed or dropped; check ANTHROPIC_BASE_URL "
            "(where requests go) and the network"
        )
    return (
        f"{_c(base, 120)} did not answer in time; if this goes on, check ANTHROPIC_BASE_URL "
        "(where requests go) and the network"
    )


RESTART_WITH_CONTINUE = "quit and start again with `agent-cli --continue`"

# Failures that say ANTHROPIC_BASE_URL leads to no Messages API: sending again cannot help.
WRONG_ENDPOINT_KINDS = frozenset({"wrong_endpoint"})
# A stream broken this way whose content type named no event stream (`is_foreign_stream`).
STREAM_FAULT_KINDS = frozenset({"stream_incomplete", "stream_malformed"})
RETRY_WITH_CONTINUE = "send 'continue' to retry (sending it again would repeat it)"
FIX_BASE_URL = "quit, fix ANTHROPIC_BASE_URL, then start again with `agent-cli --continue`"
NOTICE_CHARS = 400  # what a notice or an error line shows (`render`)


def describe_wrong_endpoint(error: e.ProviderRequestFailed, go_on: str = FIX_BASE_URL) -> str:
    """A request whose URL is no Messages API (a 404 not about the model, a 405, an answer
    that is no event stream): where it went, what came back, what to check in
    ANTHROPIC_BASE_URL, then how to `go_on` (-p says its own). No retry is offered: the
    same URL answers the same. The server's words get the room left of the 400 characters
    a notice shows, so the advice is never cut off."""
    url = _c(error.url, 80) if error.url else "the endpoint"
    status = f"HTTP {error.status}" if error.status else "no status"
    head = f"Model request failed ({status}): {url} is not the Messages API"
    tail = f". {_base_url_advice(error.url or '')} Your message is kept: {go_on}."
    return head + _it_said(error, head, tail) + tail


def is_foreign_stream(error: e.ProviderRequestFailed) -> bool:
    """A stream that broke (retried, as any) whose content type named no event stream."""
    return error.kind in STREAM_FAULT_KINDS and bool(error.content_type)


def describe_foreign_stream(
    error: e.ProviderRequestFailed, go_on: str = RETRY_WITH_CONTINUE
) -> str:
    """Retries ran out on answers that were no event stream (a gateway's page, plain
    text): what came and what the server said. One such answer may be a passing fault,
    so the URL is not called wrong: check it if this goes on; the message is kept and
    `go_on` says how to send it again (-p says its own)."""
    url = _c(error.url, 80) if error.url else "the endpoint"
    tries = f" after {error.attempts} attempts" if error.attempts > 1 else ""
    came = _c(error.content_type, 40)
    head = (
        f"Model request failed{tries}: {url} answered {came}, not the Messages API's event stream"
    )
    tail = (
        "; if this goes on, check ANTHROPIC_BASE_URL. The conversation is unchanged but "
        f"for your message, which is kept: {go_on}."
    )
    return head + _it_said(error, head, tail) + tail


def _it_said(error: e.ProviderRequestFailed, head: str, tail: str) -> str:
    """ " (it said: …)" with the server's words, in the room a notice's 400 characters
    leave beside `head` and `tail` (at most 80), so the advice is never cut off."""
    room = min(80, NOTICE_CHARS - len(head) - len(tail) - len(" (it said: )"))
    return f" (it said: {_c(error.detail, room)})" if error.detail and room >= 20 else ""


def _base_url_advice(url: str) -> str:
    if url.endswith("/v1/v1/messages"):
        return "ANTHROPIC_BASE_URL ends in /v1, which the SDK adds itself: drop it."
    return (
        "Check ANTHROPIC_BASE_URL: the API's root, such as https://api.anthropic.com, without /v1."
    )


def _refused_tool(
    error: e.ProviderRequestFailed, tool: str, go_on: str = RESTART_WITH_CONTINUE
) -> str:
    """A request the API refused over one of its tools: every request carries the tool,
    so sending again cannot help; what can, then how to `go_on` (-p says its own). Short:
    a notice shows 400 characters."""
    from agent_cli.mcp_servers.offered_tools import split_offered_name

    status = f" (HTTP {error.status})" if error.status else ""
    said = f" ({_c(error.detail, 120)})" if error.detail else ""
    parts = split_offered_name(tool)
    if parts is None:
        return (
            f"Model request failed{status}: the API refused agent-cli's own tool "
            f"{_c(tool, 64)}{said}. Sending again would fail the same way: this is a bug in "
            "agent-cli; please report it."
        )
    server = _c(parts[0], 64)
    return (
        f"Model request failed{status}: the API refused {_c(tool, 64)}, a tool of the MCP "
        f"server {server}{said}. Sending again would fail the same way: turn that server off "
        f"(enabled = false under [mcp_servers.{server}] in config.toml), then {go_on}."
    )


def _transcript_fix(error: e.TranscriptWriteFailed) -> str:
    """What makes the transcript writable again, as a sentence. A file-size limit holds
    for the process started under it: raising it means starting agent-cli again, so
    "then try again" in the same run would only fail again."""
    if error.errno_name != "EFBIG":
        return f"{_capital(describe_folder_fix(error.errno_name))}, then try again."
    return describe_limit_restart(go_on_with_session(error.session_id))


def describe_failed_write(error: BaseException | None) -> str:
    """A transcript write that failed during a turn; nothing was half-written."""
    if isinstance(error, e.TranscriptWriteFailed):
        return (
            f"Could not write the transcript ({_c(_failed_write(error.errno_name))}); nothing "
            f"was half-written. {_transcript_fix(error)}"
        )
    if isinstance(error, e.TranscriptChangedUnderneath):
        return (
            f"The transcript file changed under this session ({error.reason}). "
            "Start a new session with /new; the old record is left as it is."
        )
    if isinstance(error, e.ArtifactWriteFailed):
        fix = f"{_capital(describe_folder_fix(error.errno_name))}, then try again."
        if error.errno_name == "EFBIG":
            fix = describe_limit_restart(go_on_with_session(error.session_id))
        return (
            f"Could not store a large part of this turn in the state folder "
            f"({_c(_failed_write(error.errno_name))}); nothing was half-written or recorded. "
            f"{fix}"
        )
    if isinstance(error, e.InvalidStoreInput):  # the value was refused, not the folder
        return (
            f"Not recorded: the {error.field} was refused before anything was written "
            f"({error.reason}); the state folder is fine and the transcript is unchanged."
        )
    return f"Storage error: {type(error).__name__}. Check the state folder (AGENT_CLI_HOME)."


def describe_answer_not_kept(error: BaseException | None) -> str:
    """The model's answer arrived (and was billed) but the store refused its large part:
    none of it was recorded and none of its calls ran."""
    if isinstance(error, e.ArtifactWriteFailed | e.TranscriptWriteFailed):
        reason = _c(_failed_write(error.errno_name))
        if error.errno_name == "EFBIG":
            return _answer_not_kept_at_limit(reason, error.session_id)
        fix = _capital(describe_folder_fix(error.errno_name))
        cause = f"storing it in the state folder failed ({reason}). {fix}"
    elif isinstance(error, e.InvalidStoreInput):
        cause = f"the store refused its {error.field} ({error.reason}); the state folder is fine"
    else:
        cause = "the state folder could not store it. Check the state folder (AGENT_CLI_HOME)"
    return (
        f"The model's answer arrived (its tokens are billed) but could not be kept: {cause}, "
        "then send the request again. Nothing was half-written, the transcript is unchanged "
        "and none of its tool calls ran."
    )


def _answer_not_kept_at_limit(reason: str, session_id: str | None) -> str:
    go_on = f"{go_on_with_session(session_id)}, then send the request again"
    return (
        f"The model's answer arrived (its tokens are billed) but could not be kept ({reason}); "
        f"nothing was recorded and none of its tool calls ran. {describe_limit_restart(go_on)}"
    )


def describe_damaged_memory(error: BaseException | None) -> str:
    """The memory file could not be loaded at start-up; the session starts without it."""
    if not isinstance(error, e.MemoryFileDamaged):
        return "The durable memory file could not be read. Starting with no durable facts."
    if error.reason in ("not_a_file", "symlink"):  # left where it is, not opened for real
        what = "a symbolic link" if error.reason == "symlink" else "not a regular file"
        return (
            f"The durable memory file {error.path} is {what}; agent-cli left it alone. "
            "Starting with no durable facts; move it out of the way to save new ones."
        )
    kept = f" A copy was kept at {error.kept_at}." if error.kept_at else ""
    return (
        f"The durable memory file could not be read ({error.reason}).{kept} "
        "Starting with no durable facts; /remember saves a new file."
    )


MODELS_API_PROBLEMS = {
    "not_offered": "this provider has no Models API",
    "not_found": "the endpoint does not offer the Models API",
    "timeout": "the Models API did not answer in time",
    "connection": "the Models API could not be reached",
    "auth": "the API key was refused",
    "malformed_answer": "the Models API's answer was not a list of models",
    "no_models": "the Models API listed no models",
    "too_large": "the Models API's answer was too large to read",
    "failed": "the Models API's answer could not be read",
}


def explain_models_api_problem(problem: str | None, url: str | None = None) -> str:
    """Why `/model` lists the built-in table instead of the Models API's answer; a
    connection that failed or a timeout names the base URL it went to (`url`, shown)."""
    unreached = _unreached_advice(str(problem), url)
    if unreached is not None:
        return f"the Models API could not be used: {unreached}"
    return MODELS_API_PROBLEMS.get(str(problem), f"the Models API failed ({problem})")


# --- project instructions -----------------------------------------------------------------

INSTRUCTIONS_PROBLEMS = {
    "unreadable": "could not be read",
    "not_utf8": "is not UTF-8 text",
    "not_a_file": "is not a regular file",
    "binary": "looks like a binary file",
    "outside_workspace": "is a link that leads outside the workspace",
    "hidden_target": "is a link to a hidden file or folder (such as .env or .git/), "
    "which is never sent as instructions",
    "not_markdown_target": "is a link to a file that is not Markdown (such as a key or "
    "settings file), which is never sent as instructions",
}
# Problems of a link, which the user fixes where the link points, not in the file.
LINK_PROBLEMS = frozenset({"outside_workspace", "hidden_target", "not_markdown_target"})


def describe_instructions_problem(
    source: object, problem: object, *, one_shot: bool = False
) -> str:
    """One line: which file, what is wrong, what happens now, what to do (`one_shot`:
    `-p`, whose next run reads the file again, has no /reload)."""
    words = INSTRUCTIONS_PROBLEMS.get(str(problem or ""), "could not be used")
    then = "the next run reads it" if one_shot else "run /reload"
    advice = (
        f"Point the link at a Markdown file in the workspace, or make {source} a plain "
        f"file; then {then}."
        if problem in LINK_PROBLEMS
        else f"Fix the file; then {then}."
    )
    return f"Project instructions: {source} {words}, so requests go without it. {advice}"


def describe_unused_instructions(source: object, problem: object) -> str:
    """The `stats` and `/context` words for a project instructions file that is there but
    not used: the file and why, without the code."""
    words = INSTRUCTIONS_PROBLEMS.get(str(problem or ""), "could not be used")
    return f"{clip_line(str(source), 40)} {words}, so it is not used"


def describe_instructions_redaction(
    source: object, redacted: object, *, one_shot: bool = False
) -> str:
    """One line when secrets were taken out of the text requests carry (`one_shot`:
    `-p`, whose next run reads the file again, has no /reload)."""
    noun, them = ("value", "it") if redacted == 1 else ("values", "them")
    then = "the next run reads it" if one_shot else "run /reload"
    return (
        f"Project instructions: {source} holds {redacted} secret {noun} that "
        f"agent-cli holds (an API key or token); requests carry {REDACTED_MARK} instead. "
        f"Take {them} out of the file; then {then}."
    )


# --- waiting -------------------------------------------------------------------------------


def describe_model_wait(seconds: float) -> str:
    """The spinner's words while a request waits for its first token: how long since it
    was sent, and how to stop waiting."""
    return f"waiting for the model · {seconds:.0f}s · Ctrl-C cancels"


def describe_summary_wait(seconds: float) -> str:
    """The spinner's words while compaction waits for a summary of the older messages."""
    return f"summarizing the older messages to make room · {seconds:.0f}s · Ctrl-C cancels"


# --- notices ------------------------------------------------------------------------------

# A resumed session's facts and pending items kept for another folder (`session.durable_folder`):
# each line says where the items are, and what copies them here or why nothing can.

BRING_EARLIER_ITEMS = "/facts bring copies them here, under the same ids"


def describe_elsewhere(fields: Mapping[str, object]) -> str:
    """`durable_elsewhere`: the items were kept for another folder; `/facts bring`."""
    return f"{_kept(fields)}; they are not this folder's: {BRING_EARLIER_ITEMS}."


def describe_elsewhere_one_shot(fields: Mapping[str, object], session_id: str | None) -> str:
    """`durable_elsewhere` in `-p`, where no command can follow."""
    resume = f"agent-cli --resume {clip_line(session_id, 80)}" if session_id else "agent-cli"
    return (
        f"{_kept(fields)}; they are not this folder's: run {resume} here and type "
        "/facts bring to copy them here, under the same ids."
    )


def describe_clash(fields: Mapping[str, object], *, one_shot: bool = False) -> str:
    """`durable_clash`: this folder gave some of the same ids to items of its own
    (`one_shot`: `-p`, where what to retype is typed in agent-cli without -p)."""
    ids = fields.get("ids")
    ids = ids if isinstance(ids, list) else []
    if one_shot:
        return (
            f"{_kept(fields)}; they cannot be copied here: this folder gave {_ids(ids, 6)} "
            "to items of its own; retype what still holds in agent-cli without -p "
            "(/facts lists them, /remember and /todo add them)."
        )
    return f"{_kept(fields)}; {_cannot_bring(ids)}."


def describe_not_brought(fields: Mapping[str, object]) -> str:
    """`durable_not_brought`: that memory file could not be read."""
    return (
        f"This session kept facts and pending items for {_path(fields['folder'])}, in "
        f"{_path(fields['file'])}, which cannot be read "
        f"({clip_line(str(fields.get('reason')), 60)}); they are not shown here."
    )


def describe_earlier_items(found: ItemsElsewhere) -> str:
    """The line `/facts` ends with for one folder whose items of this session wait there."""
    counts = _items(
        {"facts": len(found.waiting.facts), "pending": len(found.waiting.pending_items)}
    )
    kept = f"not here: {counts} of this session, kept for {_path(found.folder)}"
    if found.clashes:
        return f"{kept}; {_cannot_bring(found.clashes)}"
    return f"{kept}: {BRING_EARLIER_ITEMS}"


def describe_brought(found: ItemsElsewhere) -> str:
    """What `/facts bring` did with the items kept for one folder: the ids it copied here,
    or the ids that kept them apart."""
    if found.clashes:
        return f"not brought from {_path(found.folder)}: {_kept_apart(found.clashes)}"
    ids = [fact.fact_id for fact in found.waiting.facts]
    ids += [item.item_id for item in found.waiting.pending_items]
    return f"brought {_ids(ids, 12)} from {_path(found.folder)} (/facts lists them)"


def _cannot_bring(ids: Sequence[object]) -> str:
    return f"/facts bring cannot copy them: {_kept_apart(ids)}"


def _kept_apart(ids: Sequence[object]) -> str:
    return (
        f"this folder gave {_ids(ids, 6)} to items of its own (/facts lists them); retype "
        "what still holds with /remember or /todo"
    )


def _kept(fields: Mapping[str, object]) -> str:
    return (
        f"This session kept {_items(fields)} for {_path(fields['folder'])}, "
        f"in {_path(fields['file'])}"
    )


def _items(fields: Mapping[str, object]) -> str:
    facts, pending = fields.get("facts"), fields.get("pending")
    facts = facts if type(facts) is int else 0
    pending = pending if type(pending) is int else 0
    return f"facts and pending items ({count_noun(facts, 'fact')}, " + (
        f"{count_noun(pending, 'pending item')})"
    )


def _ids(ids: Sequence[object], most: int) -> str:
    shown = [clip_line(str(item_id), 40) for item_id in ids[:most]]
    more = f" and {len(ids) - most:,} more" if len(ids) > most else ""
    return ", ".join(shown) + more if shown else "the same ids"


def _path(value: object) -> str:
    return clip_line(str(value), 300)


_CANCELLED = {
    "turn": "Cancelled: the turn was interrupted.",
    "compaction": "Cancelled: compaction was interrupted.",
    "answer": "Cancelled: the answer was interrupted.",
    "tool": "Cancelled: the running tool was interrupted.",
    "mcp_start": "Cancelled while waiting for the MCP servers to start: your message is "
    "recorded but was not sent; send 'continue' when you want an answer.",
}
LAYER_FAILURES = {
    "summary_not_smaller": "L4: the summary was not smaller than the messages it would "
    "replace, so it was not used.",
    "summary_too_large": "L4: the view would still have been over the hard limit with "
    "the summary, so it was not used; older messages were pruned instead.",
    "skipped_no_summarizer": "L4 was needed but no summarizer is available.",
}
# A summary asked for that failed (`session.compactor.FAILED_SUMMARY_OUTCOMES`): what
# went wrong, then what comes next. A compaction asks for no summary again until the
# user's next message; `/compact` (the notice's field `forced`) may be typed again.
_FAILED_SUMMARIES = {
    "summary_failed": "L4: the summarizer failed",
    "summary_blank": "L4: the summarizer returned nothing",
    "summary_not_unicode": "L4: the summary held text that is not valid Unicode (a lone "
    "surrogate, which no request can carry), so it was not used",
}
_AFTER_FAILED_SUMMARY = (
    "The view was left as it was; until your next message, compaction prunes older "
    "messages instead of asking for a summary again."
)
_AFTER_FAILED_COMPACT = "The view was left as it was; try /compact again later."
_AFTER_FAILED_SUMMARY_ONE_SHOT = (
    "The view was left as it was; the rest of this run prunes older messages instead of "
    "asking for a summary again."
)
# Why a summary request failed at the API (`ProviderRequestFailed.kind`); a kind not here
# is a refusal, said with the API's own short message.
_SUMMARY_REQUEST_CAUSES = {
    "overloaded": "the API was overloaded",
    "rate_limited": "the API's rate limit was reached",
    "connection": "the connection to the API failed or dropped",
    "timeout": "the API did not answer in time",
    "stream_incomplete": "the API's answer broke off",
    "stream_malformed": "the API's answer could not be read",
    "api_error": "the API had an internal error",
    "server_error": "the API had a server error",
    "unavailable": "the API was unavailable",
    "conflict": "the API reported a conflict",
    "auth": "the API key was refused",
    "permission": "the API key is not allowed to do this",
}
# Why a summary request's answer was no summary (`SummarizerFailed.reason`).
_SUMMARY_REPLY_FAULTS = {
    "no_response": "the stream ended without an answer",
    "called_tool": "the model answered with a tool call instead of a summary",
    "stopped_early": "the model's answer stopped before it was complete",
    "no_text": "the model's answer held no summary",
}


def describe_failed_summary(
    code: str, error: BaseException | None, *, forced: bool, one_shot: bool = False
) -> str:
    """A summary that failed (`summary_failed`, `summary_blank`, `summary_not_unicode`):
    why, in the user's words, from the `SummarizerFailed` the notice carries (the API's
    cause, how many attempts, its short message for a refusal), then what comes next
    (`forced`: `/compact` asked for it; `one_shot`: `-p`, where no next message comes)."""
    head = _FAILED_SUMMARIES.get(code, f"L4: {_c(code, 40)}")
    if code == "summary_failed" and isinstance(error, e.SummarizerFailed):
        head = _summary_failure(error)
    if forced:
        then = _AFTER_FAILED_COMPACT
    else:
        then = _AFTER_FAILED_SUMMARY_ONE_SHOT if one_shot else _AFTER_FAILED_SUMMARY
    return f"{head}. {then}"


def _summary_failure(error: e.SummarizerFailed) -> str:
    """ "L4: the summary request failed ...": the cause `error` carries."""
    failed = error.provider_failure
    if failed is not None:
        tries = f" after {failed.attempts} attempts" if failed.attempts > 1 else ""
        status = f" (HTTP {failed.status})" if failed.status else ""
        cause = _unreached_advice(failed.kind, failed.url) or _SUMMARY_REQUEST_CAUSES.get(
            failed.kind
        )
        if cause is None:
            said = f": {_c(failed.detail, 160)}" if failed.detail else f" ({_c(failed.kind, 40)})"
            cause = f"the API refused it{said}"
        return f"L4: the summary request failed{tries}{status}: {cause}"
    if error.reason == "timeout":
        waited = error.timeout_seconds
        within = f" within {waited:,.0f} s" if waited is not None else " in time"
        return f"L4: the summary request timed out: no answer came{within}"
    fault = _SUMMARY_REPLY_FAULTS.get(error.reason)
    if fault is None:
        return _FAILED_SUMMARIES["summary_failed"]
    return f"L4: the summary request failed: {fault}"


_FIXED_NOTICES = {
    **LAYER_FAILURES,
    "empty_answer": "The model returned an empty answer.",
    "refusal": "The model declined to answer this request.",
    "results_held": "The tool results are kept in memory and will be recorded before your "
    "next message, once the transcript can be written again.",
    "results_recorded": "The tool results held in memory are now recorded.",
    "resumed_mid_tool": "The session had stopped while a tool ran; that call was answered "
    "with an error.",
}


def _cut_answer(fields: Mapping[str, object]) -> str:
    if fields.get("kept"):
        return (
            "The answer hit the output limit and was cut; what arrived is kept. "
            "Ask the agent to continue."
        )
    return (
        "The answer hit the output limit before any part of it was whole; "
        "nothing was kept. Ask again, perhaps for less at once."
    )


def _unreachable_low_water(fields: Mapping[str, object]) -> str:
    low, fixed, aim = fields["low"], fields["fixed"], fields["aim"]
    return (
        f"The low-water mark ({low:,} tokens) is not above what every request carries "
        f"besides the conversation ({fixed:,} tokens: system prompt, tool schemas, durable "
        f"block), so compaction could never get under it. Compacting down to {aim:,} "
        f"instead, halfway to the soft threshold; set --low-water (config low_water) "
        f"above {fixed:,} to choose the mark."
    )


def _durable_block_fills_limit(f: Mapping[str, object], *, one_shot: bool = False) -> str:
    """A session opened with a durable block that leaves the conversation too little
    room (`session.durable_room`): the facts are the cause, and /forget the fix (in
    agent-cli without -p, for `one_shot`); never /compact or /new, which cannot shrink it."""
    fixed, durable, hard, needed = f["fixed"], f["durable"], f["hard"], f["needed"]
    assert isinstance(fixed, int) and isinstance(hard, int)
    if fixed >= hard:
        effect = f"over the hard limit {hard:,}: every request will be blocked"
    else:
        effect = (
            f"leaving the conversation {hard - fixed:,} of the hard limit {hard:,}, under "
            f"the {needed:,} (a quarter) it needs: turns may be blocked"
        )
    oldest = f"; {_c(f['oldest'], 40)} is the oldest" if f.get("oldest") else ""
    return (
        f"Your facts and pending items (the durable block, {durable:,} tokens) make every "
        f"request carry {fixed:,} tokens besides the conversation, {effect}. Neither "
        f"compacting nor a new session shrinks them: {'in agent-cli without -p, ' if one_shot else ''}"
        f"/forget those no longer needed (/facts lists them{oldest}),"
        " or raise --hard-limit."
    )


def _calls_not_run(fields: Mapping[str, object]) -> str:
    asked, ran = fields["asked"], fields["ran"]
    return (
        f"The model asked for {asked:,} tool calls in one answer; the first {ran:,} fit in "
        "one step and run, the others do not (the whole answer is stored, and the model "
        "is told to ask for the rest in smaller steps)."
    )


def _uncounted_denser(fields: Mapping[str, object]) -> str:
    estimate, bound, hard = fields["estimate"], fields["bound"], fields["hard"]
    return (
        f"Part of the request may be denser than estimated (what the API has not counted "
        f"yet, or content it counted at more than the usual ratio): about {estimate:,} "
        f"tokens, but up to {bound:,}, over the hard limit of {hard:,}. Compacting again "
        "to make room."
    )


def _repeated_tool_id(fields: Mapping[str, object]) -> str:
    if fields.get("retry"):
        return (
            "The model's answer repeated a tool call id; it was not recorded and nothing ran. "
            "Asking once more."
        )
    return (
        "The model's answer repeated a tool call id again; nothing ran and nothing was "
        "recorded, so the session stays resumable. Send your message again."
    )


def _malformed_tool_call(fields: Mapping[str, object]) -> str:
    if fields.get("retry"):
        return (
            "The model's answer held a tool call the API would not take back (an empty or "
            "malformed id or tool name, or an input with NaN, Infinity or text that is not "
            "UTF-8); it was not recorded and nothing ran. Asking once more."
        )
    return (
        "The model's answer held a malformed tool call again; nothing ran and nothing was "
        "recorded, so the session stays resumable. Send your message again."
    )


def _paused_answers(fields: Mapping[str, object]) -> str:
    return (
        f"The API paused its answer {fields['pauses']} times in this turn (stop reason "
        "pause_turn), though agent-cli asks for no server tools it could be waiting on; the "
        "turn stops here instead of sending more paid requests"
    )


def _unsendable_answer(fields: Mapping[str, object]) -> str:
    if fields.get("retry"):
        return (
            "The model's answer held text that is not valid Unicode (a lone surrogate, which "
            "a broken endpoint can send) or a value JSON cannot carry, so it could not be "
            "recorded; it was dropped and nothing ran. Asking once more."
        )
    return (
        "The model's answer again held text that is not valid Unicode (or a value JSON "
        "cannot carry); nothing ran and "
        "nothing was recorded, so the session stays resumable. Send your message again "
        "(if it keeps happening, check ANTHROPIC_BASE_URL's endpoint)."
    )


def _credentials_not_hidden(fields: Mapping[str, object]) -> str:
    """Which credentials the tools will show the model as they are, and why."""
    parts = []
    if fields.get("short"):
        parts.append(
            f"{_c(fields['short'], 300)} (under 8 characters: hiding so short a value "
            "would blank ordinary text)"
        )
    if fields.get("word"):
        parts.append(
            f"{_c(fields['word'], 300)} (the value is one ordinary word: hidden, that word "
            "would vanish from every file and search; name the variable in "
            "AGENT_CLI_SECRET_NAMES to hide it anyway)"
        )
    if fields.get("long"):
        parts.append(
            f"{_c(fields['long'], 300)} (a value over "
            f"{int(str(fields.get('hidden_chars', 0))) // 1024} KB: no credential is so long, "
            "and hiding it would slow every start by seconds)"
        )
    if fields.get("many"):
        parts.append(
            f"the rest of the values of {_c(fields['many'], 300)} (its values add up to over "
            f"{int(str(fields.get('file_chars', 0))) // 1024} KB, as a chain of NAME+= lines "
            "makes them; hiding more would slow every start by seconds)"
        )
    return "Not hidden from the model: " + "; ".join(parts) + "."


def _dotenv_not_read(fields: Mapping[str, object]) -> str:
    """Which dotenv files (or parts, or folders) were not read at start, and why: their
    values are not hidden from the model."""
    parts = []
    if fields.get("not_regular"):
        parts.append(
            f"{_c(fields['not_regular'], 200)} (a pipe, socket or device, not a file: a read "
            "could wait forever)"
        )
    if fields.get("unreadable"):
        parts.append(f"{_c(fields['unreadable'], 200)} (could not be read)")
    if fields.get("cut"):
        size = int(str(fields.get("read_bytes", 0))) / 2**20
        parts.append(f"{_c(fields['cut'], 200)} past its first {size:,.0f} MB")
    if fields.get("folders_not_read"):
        parts.append(
            f"the dotenv files in {fields['folders_not_read']} more folders (only the first "
            f"{fields.get('folders_read')} are looked in)"
        )
    when = "when they changed" if fields.get("during") == "session" else "at start"
    return (
        f"Not read for secrets {when}, so their values are not hidden from the model: "
        + "; ".join(parts)
        + "."
    )


def _mcp_tools_changed(fields: Mapping[str, object]) -> str:
    """A server said its tools changed and was listed again: how many tools it offers
    that it did not, no longer offers, and offers changed (those that happened only)."""
    parts = [
        f"{int(str(fields.get(key, 0))):,} {key}"
        for key in ("added", "removed", "changed")
        if int(str(fields.get(key, 0)))
    ]
    return (
        f"MCP server {fields['server']} changed its tools ({', '.join(parts)}); the model is "
        "offered its new list from now on."
    )


def _mcp_tools_withdrawn(fields: Mapping[str, object], *, one_shot: bool = False) -> str:
    """How many tools of a server are no longer offered because their names hold a secret
    learned during the session (never the names); `-p` (`one_shot`) has no `/mcp`."""
    count = int(str(fields.get("count", 0)))
    tools = "1 tool" if count == 1 else f"{count:,} tools"
    said = (
        f"MCP server {fields['server']}: {tools} no longer offered to the model, their names "
        "holding a secret value learned during the session"
    )
    return f"{said}." if one_shot else f"{said}; /mcp lists them, redacted."


def _dotenv_learned(fields: Mapping[str, object]) -> str:
    """Which dotenv files changed during the session, and that their secrets are hidden
    from now on (names only, never a value)."""
    count = int(str(fields.get("count", 0)))
    noun = "value" if count == 1 else "values"
    files = str(fields.get("files", ""))
    names = f" ({_c(fields['names'], 200)})" if fields.get("names") else ""
    owner = "their" if "," in files else "its"
    return (
        f"{_c(files, 200)} changed during the session: {owner} {count:,} new secret {noun}"
        f"{names} {'is' if count == 1 else 'are'} hidden from the model from now on."
    )


_NOTICE_FIELDS_WORDS: dict[str, Callable[[Mapping[str, object]], str]] = {
    "mcp_waiting": lambda f: (
        f"Waiting for MCP servers to start: {f['servers']} (at most {f['limit']:g} s)."
    ),
    "mcp_still_starting": lambda f: (
        f"MCP servers still starting, left out of this request: {f['servers']}. "
        "/mcp shows how they stand."
    ),
    "mcp_failed": lambda f: (
        f"MCP server {f['server']} is not available: {f['reason']}. The session goes on "
        f"without it; /mcp restart {f['server']} tries again."
    ),
    "mcp_tools_changed": _mcp_tools_changed,
    "mcp_tools_withdrawn": _mcp_tools_withdrawn,
    "mcp_launcher_exited": lambda f: (
        f"MCP server {f['server']}: the process agent-cli started for it exited, but the "
        "server answers on (that process launched it and left), so its tools stay offered."
    ),
    "cancelled": lambda f: _CANCELLED.get(str(f.get("during")), "Cancelled."),
    "permission_cancelled": lambda f: (
        f"Cancelled at the permission question: {f['tool']} was not run."
    ),
    "tool_not_started": lambda f: f"Cancelled before {f['tool']} started: it was not run.",
    "resumed_at_question": lambda f: (
        f"The session had stopped while asking for permission to run {_c(f['tool'], 60)}: it "
        "was not run, and the model is told so."
    ),
    "step_limit": lambda f: f"Stopped after {f['steps']} model requests in one turn.",
    "pause_limit": lambda f: (
        f"{_paused_answers(f)}: what arrived is kept. Send 'continue' to go on."
    ),
    "max_tokens": _cut_answer,
    "low_water_under_reserve": _unreachable_low_water,
    "durable_block_fills_limit": _durable_block_fills_limit,
    "uncounted_denser": _uncounted_denser,
    "calls_not_run": _calls_not_run,
    "calls_at_stop": lambda f: (
        f"The answer asked for {f['calls']:,} tool call{'' if f['calls'] == 1 else 's'} but "
        f"ended with stop reason {_c(f['reason'], 40)}, not tool_use: not run, and the model "
        "is told so."
    ),
    "duplicate_tool_id": _repeated_tool_id,
    "bad_tool_id": _malformed_tool_call,
    "unsendable_answer": _unsendable_answer,
    "message_stored": lambda f: (
        f"Your message ({f['characters']:,} characters) is large: it was stored whole as an "
        "artifact and the conversation carries its beginning, its end and its pointer."
    ),
    "workspace_switched": lambda f: (
        f"This session worked in {f['recorded']}; its tools run there, not in {f['current']} "
        "(the folder this run was given: the current one, or --workspace)."
        if not f.get("current_gone")
        else f"This session worked in {f['recorded']}; its tools run there (the folder "
        "agent-cli was started in no longer exists)."
    ),
    "workspace_missing": lambda f: (
        f"This session worked in {f['recorded']}, which no longer exists; its tools now run "
        f"in {f['current']}."
    ),
    "durable_elsewhere": describe_elsewhere,
    "durable_clash": describe_clash,
    "durable_not_brought": describe_not_brought,
    "credentials_not_hidden": _credentials_not_hidden,
    "dotenv_not_read": _dotenv_not_read,
    "dotenv_learned": _dotenv_learned,
    "torn_record_set_aside": lambda f: (
        f"The transcript's last record was cut off ({f['bytes']:,} bytes, most likely a "
        "crash or power loss while it was written): the session goes on without it, and "
        f"its bytes are kept in {_c(str(f['kept_at']), 300)}. What it held (a message, an "
        "answer or a usage figure) is not in this session's history."
    ),
    "model_restored": lambda f: (
        f"Model {str(f['model'])[:200]} (chosen with /model in this session; --model at "
        "start or /model changes it)."
    ),
    "model_flag_over_choice": lambda f: (
        f"Model {str(f['model'])[:200]} (--model), instead of {str(f['chosen'])[:200]} chosen "
        "with /model in this session; the session goes on with it."
    ),
    "tool_ids_renamed": lambda f: (
        f"{f['count']} tool call id(s) in this transcript, recorded by an earlier agent-cli, "
        "are not ones the API accepts; the requests carry them renamed (toolu_renamed_...). "
        "The transcript keeps them as recorded."
    ),
    "project_instructions_unusable": lambda f: describe_instructions_problem(
        f["source"], f["problem"]
    ),
    "project_instructions_redacted": lambda f: describe_instructions_redaction(
        f["source"], f["redacted"]
    ),
}
_NOTICE_ERROR_WORDS: dict[str, Callable[[BaseException | None], str]] = {
    "provider_failed": describe_failed_request,
    "transcript_write_failed": describe_failed_write,
    "answer_not_kept": describe_answer_not_kept,
    "memory_damaged": describe_damaged_memory,
    "invalid_view": lambda error: f"The view cannot be sent: {error}.",
}


def notice_text(notice: Notice, *, one_shot: bool = False, session_id: str | None = None) -> str:
    """The sentence for a session notice, from its code, fields and error; a code this
    table does not know is shown as it is (a newer session, a test's own code).
    `one_shot` (`-p`): nobody can send a next message, so advice that needs one says to
    run the command again instead, naming the session (`session_id`) it goes on from."""
    if one_shot and notice.code in _ONE_SHOT_NOTICES:
        return _ONE_SHOT_NOTICES[notice.code](notice, session_id)
    if notice.code in _NOTICE_ERROR_WORDS:
        return _NOTICE_ERROR_WORDS[notice.code](notice.error)
    if notice.code == "message_not_stored":
        return describe_message_not_stored(notice.fields, notice.error)
    if notice.code in _FAILED_SUMMARIES:
        forced = notice.fields.get("forced") is True
        return describe_failed_summary(notice.code, notice.error, forced=forced, one_shot=one_shot)
    if notice.code in _FIXED_NOTICES:
        return _FIXED_NOTICES[notice.code]
    words = _NOTICE_FIELDS_WORDS.get(notice.code)
    return words(notice.fields) if words is not None else notice.code


def describe_message_not_stored(fields: Mapping[str, Any], error: BaseException | None) -> str:
    """`message_not_stored`: a large message whose artifact could not be written was not
    sent; nothing was recorded. What to fix, then how to send it again: Up brings it back
    in this run; under a file-size limit only a new run can store it, so it is copied
    first (`describe_limit_restart`). `-p` says its own (`_one_shot_message_not_stored`)."""
    reason = str(fields["reason"])
    characters = f"{fields['characters']:,} characters"
    if reason != "EFBIG":
        return (
            f"Your message ({characters}) was not sent: a message this large is stored whole "
            f"as an artifact first, and that write failed ({_failed_write(reason)}). Nothing "
            f"was recorded or half-written. {_capital(describe_folder_fix(reason))}, then "
            "send it again (Up brings it back)."
        )
    session_id = error.session_id if isinstance(error, e.ArtifactWriteFailed) else None
    go_on = f"{go_on_with_session(session_id)} to send it"
    return (
        f"Your message ({characters}) was not sent: its artifact could not be written "
        f"({_failed_write(reason)}); nothing was recorded. Up brings it back, to copy it. "
        f"{describe_limit_restart(go_on)}"
    )


def _one_shot_message_not_stored(notice: Notice, session_id: str | None) -> str:
    """`message_not_stored` in `-p`: the prompt is the command's own, so no Up key brings it
    back and the run ends here: fix the folder (or raise the limit where agent-cli is
    started), then run the command again, which sends it again."""
    reason = str(notice.fields["reason"])
    return (
        f"Your prompt ({notice.fields['characters']:,} characters) was not sent: a prompt this "
        f"large is stored whole as an artifact first, and that write failed "
        f"({_failed_write(reason)}). Nothing was recorded or half-written. "
        f"{_capital(describe_folder_fix(reason))}, then run the command again."
    )


def run_again_with_continue(session_id: str | None) -> str:
    """How a `-p` user goes on from the session that just ran: `--continue` picks the
    newest session here holding a request, which this one is; `--resume <id>` names it
    whatever runs in between."""
    named = f" (or --resume {_c(session_id, 80)})" if session_id else ""
    return (
        f"run the command again with --continue{named} to go on from this session "
        "(without either, a new session starts)"
    )


def _one_shot_failed_request(notice: Notice, session_id: str | None) -> str:
    error = notice.error
    if isinstance(error, e.ProviderRequestFailed) and error.kind == "bad_request" and error.tool:
        named = f" (or --resume {_c(session_id, 80)})" if session_id else ""
        return _refused_tool(error, error.tool, f"run the command again with --continue{named}")
    if isinstance(error, e.ProviderRequestFailed) and error.kind in WRONG_ENDPOINT_KINDS:
        named = f" (or --resume {_c(session_id, 80)})" if session_id else ""
        return describe_wrong_endpoint(
            error, f"fix ANTHROPIC_BASE_URL, then run the command again with --continue{named}"
        )
    if isinstance(error, e.ProviderRequestFailed) and is_foreign_stream(error):
        named = f" (or --resume {_c(session_id, 80)})" if session_id else ""
        return describe_foreign_stream(error, f"run the command again with --continue{named}")
    said = describe_failed_request(error)
    interactive_tail = f"{RETRY_WITH_CONTINUE}."
    if said.endswith(interactive_tail):
        said = said[: -len(interactive_tail)] + run_again_with_continue(session_id) + "."
    return said


def _one_shot_cut_answer(notice: Notice, session_id: str | None) -> str:
    if notice.fields.get("kept"):
        return (
            "The answer hit the output limit and was cut; what arrived is kept. To get the "
            f"rest, {run_again_with_continue(session_id)}, asking the agent to continue."
        )
    return (
        "The answer hit the output limit before any part of it was whole; nothing was "
        "kept. Run the command again, perhaps asking for less at once."
    )


def _one_shot_paused_answers(notice: Notice, session_id: str | None) -> str:
    return (
        f"{_paused_answers(notice.fields)}: what arrived is kept. To go on, "
        f"{run_again_with_continue(session_id)}, asking the agent to continue."
    )


def _one_shot_mcp_failed(notice: Notice, session_id: str | None) -> str:
    """-p runs no `/mcp restart`: the server stays out of this run; the next starts it."""
    f = notice.fields
    return (
        f"MCP server {f['server']} is not available: {f['reason']}. This run goes on without "
        "it (the next run of agent-cli starts it again)."
    )


def _one_shot_mcp_still_starting(notice: Notice, session_id: str | None) -> str:
    return (
        f"MCP servers still starting, left out of this request: {notice.fields['servers']} "
        "(each was waited for as long as its startup_timeout in config.toml allows)."
    )


_ONE_SHOT_NOTICES: dict[str, Callable[[Notice, str | None], str]] = {
    "mcp_failed": _one_shot_mcp_failed,
    "mcp_still_starting": _one_shot_mcp_still_starting,
    "provider_failed": _one_shot_failed_request,
    "max_tokens": _one_shot_cut_answer,
    "pause_limit": _one_shot_paused_answers,
    "durable_elsewhere": lambda notice, session_id: describe_elsewhere_one_shot(
        notice.fields, session_id
    ),
    "message_not_stored": _one_shot_message_not_stored,
    "mcp_tools_withdrawn": lambda notice, _session_id: _mcp_tools_withdrawn(
        notice.fields, one_shot=True
    ),
    "model_restored": lambda notice, _session_id: (
        f"Model {str(notice.fields['model'])[:200]} (chosen with /model in this session; "
        "--model changes it)."
    ),
    "durable_block_fills_limit": lambda notice, _session_id: _durable_block_fills_limit(
        notice.fields, one_shot=True
    ),
    "durable_clash": lambda notice, _session_id: describe_clash(notice.fields, one_shot=True),
    "project_instructions_unusable": lambda notice, _session_id: describe_instructions_problem(
        notice.fields["source"], notice.fields["problem"], one_shot=True
    ),
    "project_instructions_redacted": lambda notice, _session_id: describe_instructions_redaction(
        notice.fields["source"], notice.fields["redacted"], one_shot=True
    ),
}


# --- pointers and pending items -----------------------------------------------------------

POINTER_FORMS = (
    "transcript:<session>:<sequence> or artifact:<session>:<file>:<sha256 prefix> "
    "(tool panels, /facts and /sources show them)"
)
# Reasons the pointer parser gives: the text is not a pointer at all.
_SYNTAX_REASONS = frozenset(
    {
        "backslash",
        "bad_character",
        "bad_first_character",
        "component_too_long",
        "control_character",
        "digest_length",
        "digest_not_hex",
        "dot_component",
        "empty",
        "empty_part",
        "missing_scheme",
        "non_ascii",
        "not_text",
        "sequence_not_digits",
        "slash",
        "too_long",
        "whitespace",
        "wrong_part_count",
    }
)
_MISSING = {
    "sequence_not_found": "that session has no record with that number",
    "not_found": "nothing is stored there: no such session or file",
    "root_not_found": "the folder that would hold it does not exist",
    "vanished": "it was deleted while being read",
}
_STATUS_WORDS = {
    "missing": "what it points at is gone or was never saved",
    "denied": "it leads to something agent-cli will not read (a link or a special file)",
    "corrupt": "what is stored there no longer matches the pointer (changed or damaged)",
    "unsupported": "agent-cli cannot expand this kind of pointer; use a transcript: or "
    "artifact: pointer",
}
_PENDING = {
    "unknown_item": "there is no pending item {item}; /facts lists them (T1, T2, ...)",
    "illegal_transition": "{item} cannot change that way from where it stands (a done "
    "item stays done); /facts shows each item's status",
    "required_when_blocked": "blocking {item} needs a reason: /block {item} <reason>",
    "not_later": "{item} was changed a moment ago; try again",
}


CHANGED_POINTER = "found, but changed since the fact or item citing it was saved: not verified"


def describe_changed_source(expand_label: str) -> str:
    """/facts beside an item whose source no longer holds what it held when the item was
    made (`source_status=changed`); `expand_label` is `(/expand 3)` or ""."""
    see = f"; {expand_label.strip('()')} shows what it says now" if expand_label else ""
    return (
        "its source no longer says what it said when this was saved, so it is not "
        f"verified{see}; /forget it, or /remember it again if it still holds"
    )


def is_not_a_pointer(status: str, reason: str) -> bool:
    """True when what the user gave could not be read as a pointer at all."""
    return status == "corrupt" and reason in _SYNTAX_REASONS


def describe_not_a_pointer() -> str:
    """`/expand` of text that is no pointer: what is wrong and what to type instead."""
    return (
        f"that is not a pointer: a pointer looks like {POINTER_FORMS}. "
        "Type /expand and a pointer copied from one of them, or the number shown after "
        "it: /expand 1"
    )


def explain_resolution(status: str, reason: str) -> str:
    """What a pointer's status means, for a person (see the module contract). Unknown
    codes get a general sentence for their status, never the code."""
    if status == "available":
        return "found and verified"
    if is_not_a_pointer(status, reason):
        return f"that is not a pointer: a pointer looks like {POINTER_FORMS}"
    if status == "missing" and reason in _MISSING:
        return _MISSING[reason]
    return _STATUS_WORDS.get(status, "it cannot be shown")


def explain_pending_reason(reason: str, item_id: str | None) -> str:
    """Why a change to a pending item was refused, naming the item when known."""
    item = clip_line(item_id, 40) if item_id else "that item"
    template = _PENDING.get(reason, "that change to {item} is not possible; /facts shows it")
    return template.format(item=item)


# --- /last, /expand <number>, /resume <prefix> -------------------------------------------

_ARTIFACT_PROBLEMS = {
    "missing": "its file is gone",
    "symlink": "a link stands where its file was, and agent-cli does not follow it",
    "not_a_file": "something other than a file stands where it was",
    "digest_mismatch": "the stored file no longer matches it (changed or damaged)",
    "malformed_pointer": "that is not an artifact pointer",
    "wrong_scheme": "that is not an artifact pointer",
}


def describe_artifact_problem(reason: str) -> str:
    """Why a stored tool output could not be read back, in plain words."""
    if reason.startswith("unreadable:"):
        return f"its file could not be read ({describe_folder_problem(reason.split(':', 1)[1])})"
    return _ARTIFACT_PROBLEMS.get(reason, "its file could not be read")


def describe_pager_missing(wanted: str) -> str:
    """The line above a long text printed without a pager: why there was none."""
    return (
        f"no pager could be started ({_c(wanted, 60)} was not found), so all of it follows "
        "here; set PAGER to a pager you have, such as less"
    )


SHOWN_HANDLES = 3


def describe_unknown_handle(number: int, numbered: tuple[tuple[int, str], ...]) -> str:
    """`/expand 9` when no pointer has the number 9: which numbers there are."""
    if not numbered:
        return (
            f"/expand {number}: no pointer has a number yet. Numbers appear after the "
            "pointers in tool lines, /last, /sources and /facts, as (/expand 1)"
        )
    if len(numbered) == 1:
        only, pointer = numbered[0]
        return (
            f"/expand {number}: no pointer has that number. The only number is {only}, "
            f"for {_c(show_pointer(pointer), 100)}"
        )
    numbers = sorted(found for found, _ in numbered)
    newest = "; ".join(
        f"{found} is {_c(show_pointer(pointer), 100)}"
        for found, pointer in numbered[:SHOWN_HANDLES]
    )
    return (
        f"/expand {number}: no pointer has that number. The numbers are {numbers[0]} to "
        f"{numbers[-1]} ({newest})"
    )


SHOWN_CANDIDATES = 5


def describe_ambiguous_session(
    prefix: str, candidates: tuple[str, ...], asked_by: str = "/resume"
) -> str:
    """`/resume 2026` (or `--resume 2026`: `asked_by`) when several session ids start so:
    which, and what to type."""
    named = ", ".join(_c(session_id, 80) for session_id in candidates[:SHOWN_CANDIDATES])
    more = len(candidates) - SHOWN_CANDIDATES
    rest = f" and {more:,} more" if more > 0 else ""
    return (
        f"{asked_by} {_c(prefix, 40)}: {count_noun(len(candidates), 'session')} start with that: "
        f"{named}{rest}. Type more of the id, or its number in /sessions"
    )
