"""The toolbox the session calls: one entry point that always answers with a `ToolOutcome`.

Contract: `run` never raises for a tool's failure. An unknown tool, bad input, a path
outside the workspace, a denial, a timeout or an exception inside a tool all come back as
`is_error=True` with a short message saying what to do instead, so every tool_use gets
exactly one tool_result. Only KeyboardInterrupt (and other BaseExceptions) propagate, and
`bash` ends its process group before letting one through; Ctrl-C while `bash` runs comes
through as a `ToolInterrupted` whose `outcome` is the output so far, finished like any
result (redacted, spilled), so it can be recorded and shown; so does Ctrl-C once an MCP
server answered a call (`CallInterrupted`), its `outcome` that whole answer; and a
termination signal while `bash` runs comes through as a `ToolTerminated` whose `outcome`
is the output so far, finished the same way. Order of a call: check the
input, prepare (paths, early errors), ask permission when the tool writes or executes,
execute, remove known secrets (`redaction`: from the result, errors included, before it
is stored, recorded or sent), then spill big output to the artifact store.

The workspace's dotenv files are watched (`watch_dotenv`, `tools.dotenv_watch`): checked
before a call runs, after it ends (before its result, error text or the rest of its live
output is redacted), while a command's output streams (at its first chunk, then at
most every `LIVE_CHECK_SECONDS`) and whenever the session calls `check_dotenv` (before
each request it sends: a file the user edits between turns). The toolbox is the one owner of what is redacted: a
check that finds new secret values adds them (never drops one) to its redactor, the
context tools read and the live-output redactor, then tells the session, which hands the
new forms to the other holders (`Session.note_dotenv_change`). Known gaps: a command
that has printed already, then writes a dotenv file and prints it within
`LIVE_CHECK_SECONDS` of the last check, shows the value in the live view (its result,
recorded and sent, is redacted); and a tool cuts its text (`ToolContext.secrets`, e.g. a
command's output past its byte cap) where none of the secrets known when it started is
split, not those learned while it ran.

No answer repeats the call's input, errors included (`tools.echo`): the redaction would
mark a secret in it, and so tell the model which of its guesses is one. A tool's own
messages name only what exists; an exception's text is passed on only when it repeats
none of the input. A result a tool marks `already_redacted` (`recall`'s pages of this
run's own records, which hold what the model was given as it is) is not redacted again.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_cli.errors import TerminationRequested, ToolError, ToolNotStarted, WorkspaceGone
from agent_cli.frozen import FrozenList
from agent_cli.secret_forms import SecretForms
from agent_cli.termination import termination_held
from agent_cli.tools.artifact_tool import prepare_read_artifact
from agent_cli.tools.context import (
    OutputWatcher,
    PreparedCall,
    RecallReader,
    ToolContext,
    ToolLimits,
)
from agent_cli.tools.echo import free_of_input, input_strings
from agent_cli.tools.file_tools import prepare_edit_file, prepare_read_file, prepare_write_file
from agent_cli.tools.listing import prepare_list_dir
from agent_cli.tools.output import (
    ArtifactSink,
    ToolInterrupted,
    ToolOutcome,
    ToolResult,
    ToolTerminated,
    build_error_outcome,
    build_outcome,
)
from agent_cli.tools.permissions import (
    PermissionAsker,
    PermissionGate,
    PermissionRequest,
    QuestionWatcher,
)
from agent_cli.tools.recall_tool import prepare_recall
from agent_cli.tools.redaction import (
    SecretRedactor,
    StreamRedactor,
    redact_message,
    redact_result,
)
from agent_cli.tools.schemas import RECALL_SCHEMA, TOOL_SCHEMAS, validate_input
from agent_cli.tools.search_tools import prepare_grep
from agent_cli.tools.seen_files import Fingerprint
from agent_cli.tools.seen_roots import SeenRecord, SeenRoot, reroot, rooted
from agent_cli.tools.shell import prepare_bash
from agent_cli.tools.state_folders import StateFolders
from agent_cli.tools.workspace import Workspace, describe_workspace_gone

if TYPE_CHECKING:
    from agent_cli.mcp_servers.offered_tools import OfferedTool
    from agent_cli.mcp_servers.states import CallOutcome, McpTools
    from agent_cli.tools.approval_scope import AlwaysScope
    from agent_cli.tools.dotenv_watch import DotenvChange, DotenvWatch

Preparer = Callable[[ToolContext, dict[str, Any]], PreparedCall]
# (the change a check found, the secret values it added to what is redacted)
DotenvTeller = Callable[["DotenvChange", tuple[str, ...]], None]
# The results of a call that needed permission and did not get it (`session.call_outcome`
# reads them back: the recap of a resumed session says the call did not run).
DENIED_TEXT = "Permission denied by the user: {name} was not run."
UNASKED_TEXT = (
    "{name} was not run: it needs permission and nobody could be asked (agent-cli runs with "
    "-p or without a terminal). The user can run it again with --yes to allow tools that "
    "write files, run commands or call MCP servers, or run agent-cli interactively."
)
# The result of an MCP call a termination signal stopped before its server answered
# (`session.call_outcome` reads it back as stopped). No command ran, so it says what may
# have happened on the server's side instead of a process group; true whether the signal
# came before the call was handed over or while it ran, and for a stdio server (stopped
# with agent-cli) as for an HTTP one (which goes on running elsewhere).
MCP_TERMINATED_TEXT = (
    "Stopped: agent-cli was ended by {signal} during the call of the tool {tool} of the "
    "MCP server {server}, before any answer came back. The server may have received the "
    "call and may have done part or all of its work: check before calling it again."
)
LIVE_CHECK_SECONDS = 0.5  # between dotenv checks while a command's output streams


@dataclass(frozen=True)
class ToolSpec:
    schema: dict[str, Any]
    prepare: Preparer
    needs_permission: bool = False
    may_spill: bool = True
    in_workspace: bool = True  # it reads, writes or runs in the workspace folder


def _build_specs(with_recall: bool) -> dict[str, ToolSpec]:
    schemas = {schema["name"]: schema for schema in TOOL_SCHEMAS}
    specs = [
        ToolSpec(schemas["read_file"], prepare_read_file),
        ToolSpec(schemas["write_file"], prepare_write_file, needs_permission=True),
        ToolSpec(schemas["edit_file"], prepare_edit_file, needs_permission=True),
        ToolSpec(schemas["list_dir"], prepare_list_dir),
        ToolSpec(schemas["grep"], prepare_grep),
        ToolSpec(schemas["bash"], prepare_bash, needs_permission=True),
        ToolSpec(
            schemas["read_artifact"], prepare_read_artifact, may_spill=False, in_workspace=False
        ),
    ]
    if with_recall:
        specs.append(ToolSpec(RECALL_SCHEMA, prepare_recall, may_spill=False, in_workspace=False))
    return {spec.schema["name"]: spec for spec in specs}


class ToolRunner(Protocol):
    """What a session needs of its tools (a `Toolbox`, or a test's fake): the schemas to
    offer the model, one call run to a `ToolOutcome` (see the module contract), the
    secrets they redact, and a watcher for a running command's output."""

    output_watcher: OutputWatcher | None
    # told of each permission question and its answer (`permissions.QuestionWatcher`)
    question_watcher: QuestionWatcher | None

    @property
    def secret_forms(self) -> SecretForms:
        """Every form of the secrets results are redacted of (empty: none)."""
        ...

    @property
    def redactor(self) -> SecretRedactor | None:
        """What the project instructions pass through too; None: the process
        environment's secrets (`load_project_instructions`' default)."""
        ...

    def schemas(self) -> list[dict[str, Any]]: ...

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome: ...

    def arguments_as_sent(self, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        """`tool_input` as the tool receives it (an MCP tool's under the server's own
        property names): what the call's header shows, as its question does."""
        ...

    def always_allowed(self) -> tuple[AlwaysScope, ...]:
        """The "always" answers in force (`PermissionGate.always_allowed`)."""
        ...

    def revoke_always(self, scope: AlwaysScope | None = None) -> int:
        """Take back one "always" answer, or all (`PermissionGate.revoke`)."""
        ...

    def workspace_gone(self) -> WorkspaceGone | None:
        """The workspace folder moved, deleted or replaced since the start (naming the
        session), or None while it is in place."""
        ...


class Toolbox:
    """The tools of one session, confined to `workspace`, spilling to `artifacts`; with
    `recall` (the session's pointer reader) the `recall` tool is offered too."""

    def __init__(
        self,
        workspace: Path,
        artifacts: ArtifactSink,
        session_id: str,
        ask_permission: PermissionAsker | None = None,
        auto_approve: bool = False,
        artifact_threshold_bytes: int = 16_384,
        bash_timeout_seconds: int = 120,
        max_output_bytes: int = 1_048_576,
        secret_environment: Mapping[str, str] | None = None,
        recall: RecallReader | None = None,
        extra_secrets: Iterable[str] = (),
        state_folders: Iterable[Path] = (),
    ) -> None:
        """`secret_environment` is where the secrets to redact are found (default: this
        process's environment; see `redaction.collect_secret_values`); `extra_secrets`
        are more values to redact (the credentials config.toml gives MCP servers,
        `redaction.collect_mcp_secret_values`); `state_folders` are agent-cli's own
        folders (`StatePaths.own_folders`), which the file tools never touch."""
        limits = ToolLimits(
            max_output_bytes=max_output_bytes,
            bash_timeout_seconds=bash_timeout_seconds,
            artifact_read_bytes=max(1, artifact_threshold_bytes),
        )
        self.output_watcher: OutputWatcher | None = None
        self._redactor = SecretRedactor.from_environment(secret_environment, extra_secrets)
        self._context = ToolContext(
            Workspace(workspace, StateFolders(state_folders)),
            artifacts,
            limits,
            session_id,
            watch_output=self._pass_output_on,
            recall=recall,
            secrets=self._redactor.forms,
        )
        self._session_id = session_id
        self._gate = PermissionGate(ask_permission, auto_approve)
        self._threshold = artifact_threshold_bytes
        self._specs = _build_specs(recall is not None)
        self._live_output = StreamRedactor(self._redactor)
        self._schemas = FrozenList(spec.schema for spec in self._specs.values())
        self._mcp: McpTools | None = None
        self._mcp_version = -1
        self._dotenv: tuple[DotenvWatch, DotenvTeller] | None = None
        self._dotenv_checked_at: float | None = None  # None: at the next live chunk

    def watch_dotenv(self, watch: DotenvWatch, tell: DotenvTeller) -> None:
        """Check `watch` around every call from now on and hide what it finds (module
        contract); `tell` hears of each change, with the values it added (maybe none:
        a change can be worth saying for what it could not hide)."""
        self._dotenv = (watch, tell)

    def check_dotenv(self) -> None:
        """Learn the secrets of dotenv files changed since the last check, if any: around
        each call (module contract) and, through the session, before every request it
        sends, so a file edited between turns is learned with no call running."""
        if self._dotenv is None:
            return
        watch, tell = self._dotenv
        self._dotenv_checked_at = time.monotonic()
        change = watch.check()
        if change is None:
            return
        known = set(self._redactor.forms.values)
        added = tuple(dict.fromkeys(v for v in change.found.values if v not in known))
        if added:
            self._redactor = self._redactor.with_secrets(added)
            self._context = dataclasses.replace(self._context, secrets=self._redactor.forms)
            self._live_output.use(self._redactor)
        tell(change, added)

    def _check_dotenv_while_live(self) -> None:
        """The check while output streams: at the first chunk, then now and then."""
        last = self._dotenv_checked_at
        if last is None or time.monotonic() - last >= LIVE_CHECK_SECONDS:
            self.check_dotenv()

    def record_seen_files(self, listener: Callable[[SeenRecord], None]) -> None:
        """Tell `listener` each file content the model sees from now on (`seen_files`),
        relative to the workspace folder (`seen_roots`)."""
        root = self._seen_root()

        def tell(path: Path, fingerprint: Fingerprint) -> None:
            record = rooted(path, fingerprint, root)
            if record is not None:
                listener(record)

        self._context.seen.tell_each(tell)

    def restore_seen_files(
        self, seen: Iterable[SeenRecord], key: bytes, workspace: Path | None
    ) -> None:
        """What the model saw of files in an earlier run of this session (`seen_files`),
        keyed with the session's `key` as it goes on to be, put back under the folder the
        tools run in now (`seen_roots.reroot`; `workspace`: the one the session recorded
        when it started): a write over one changed since is refused as in the run that
        saw it, wherever the folder was moved or linked to."""
        self._context.seen.use_key(key)
        self._context.seen.restore(reroot(seen, self._seen_root(), workspace))

    def _seen_root(self) -> SeenRoot:
        workspace = self._context.workspace
        return SeenRoot(workspace.root, workspace.identity())

    def attach_mcp(self, servers: McpTools) -> None:
        """Offer the tools of the ready MCP `servers` after the built-in ones, and run
        them like the others: asked about first, redacted, bounded, spilled when big. A
        call's arguments reach the server (and the user's question) under the server's
        own property names, where a tool's were renamed for the Messages API."""
        self._mcp = servers

    @property
    def secret_forms(self) -> SecretForms:
        """The forms of the secrets this toolbox redacts: every other place that shortens
        text (compaction, the REPL) cuts where none of them is split."""
        return self._redactor.forms

    @property
    def question_watcher(self) -> QuestionWatcher | None:
        """Told of each permission question and its answer (the gate's watcher)."""
        return self._gate.question_watcher

    @question_watcher.setter
    def question_watcher(self, watcher: QuestionWatcher | None) -> None:
        self._gate.question_watcher = watcher

    @property
    def workspace_root(self) -> Path:
        return self._context.workspace.root

    @property
    def redactor(self) -> SecretRedactor:
        """The redactor every result passes through; whatever else the session sends from
        the workspace (the project instructions) goes through the same one."""
        return self._redactor

    def _pass_output_on(self, chunk: bytes) -> None:
        """Hands a running command's output to whoever watches (`output_watcher`), if any,
        with secrets redacted as the result will be (a secret cut between two chunks is
        held back until it can be recognised; `_flush_live_output` gives the rest)."""
        if self.output_watcher is None:
            return
        if not chunk:
            self.output_watcher(chunk)
            return
        self._check_dotenv_while_live()
        shown = self._live_output.feed(chunk)
        if shown:
            self.output_watcher(shown.encode("utf-8"))

    def _flush_live_output(self, *, stopped: bool) -> None:
        """The rest of a command's live output; `stopped`: cut short (`StreamRedactor`)."""
        rest = self._live_output.finish(stopped=stopped)
        if rest and self.output_watcher is not None:
            self.output_watcher(rest.encode("utf-8"))

    def schemas(self) -> list[dict[str, Any]]:
        """Anthropic tool definitions, always in the same order: the built-in tools, then
        the MCP servers' sorted by name (rebuilt only when a server's tools change).
        Read-only (`frozen`): every request carries them, so they are built once instead
        of copied each time; a change raises `ReadOnlyValueError`."""
        hub = self._mcp
        if hub is not None and hub.version != self._mcp_version:
            self._mcp_version = hub.version
            offered = [dict(tool.definition) for tool in hub.offered_tools()]
            self._schemas = FrozenList([*(spec.schema for spec in self._specs.values()), *offered])
        return self._schemas

    def always_allowed(self) -> tuple[AlwaysScope, ...]:
        """The "always" answers in force, oldest first."""
        return self._gate.always_allowed

    def revoke_always(self, scope: AlwaysScope | None = None) -> int:
        """Take back the "always" answer `scope` (None: all); how many were taken back."""
        return self._gate.revoke(scope)

    def arguments_as_sent(self, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        """`tool_input` under the names the tool receives (`ToolRunner.arguments_as_sent`)."""
        offered = None if name in self._specs else self._offered_mcp_tool(name)
        return tool_input if offered is None else offered.server_arguments(tool_input)

    def _offered_mcp_tool(self, name: object) -> OfferedTool | None:
        if self._mcp is None or not isinstance(name, str):
            return None
        return {tool.name: tool for tool in self._mcp.offered_tools()}.get(name)

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome:
        """Run tool `name` with `tool_input`; see the module contract."""
        self.check_dotenv()
        spec = self._specs.get(name) if isinstance(name, str) else None
        offered = self._offered_mcp_tool(name) if spec is None else None
        if offered is not None:
            if isinstance(tool_input, dict):
                tool_input = offered.server_arguments(tool_input)
            return self._run_mcp(offered.server, offered.tool, name, tool_input)
        if spec is None:
            return self._error_outcome(  # the name is not repeated: `tools.echo`
                f"{self._why_unknown(name)} Available tools: {', '.join(self._offered_names())}.",
                "unknown tool",
            )
        try:
            if spec.in_workspace:
                self._context.workspace.require_same_root()
            result = self._prepare_and_execute(spec, tool_input)
        except ToolInterrupted as interrupt:  # the output so far, kept as its result
            outcome = self._finish(spec, interrupt.result)
            raise ToolInterrupted(interrupt.result, outcome) from None
        except ToolTerminated as stop:  # the same, and then agent-cli goes on ending
            outcome = self._finish(spec, stop.result)
            raise ToolTerminated(stop.signal_number, stop.result, outcome) from None
        except WorkspaceGone as gone:
            return self._workspace_gone_outcome(gone)
        except Exception as error:
            return self._failure_outcome(spec, name, tool_input, error)
        if result is None:
            return self._refusal_outcome(name)
        gone_now = self.workspace_gone() if spec.in_workspace else None
        if gone_now is None:
            return self._finish(spec, result)
        noted = self._finish(spec, self._note_workspace_gone(result, gone_now))
        return dataclasses.replace(noted, cause=gone_now)  # for the REPL to tell the user

    def _failure_outcome(
        self, spec: ToolSpec, name: str, tool_input: Any, error: Exception
    ) -> ToolOutcome:
        """The error result of a tool that raised `error`. When the workspace folder went
        away while it ran, that is the reason, whatever the tool tripped over (bash: a
        folder that cannot be entered; list_dir: no such directory)."""
        gone = self._context.workspace.gone_now() if spec.in_workspace else None
        if gone is not None:
            return self._workspace_gone_outcome(gone)
        if isinstance(error, ToolError):
            return self._error_outcome(str(error), f"error: {_first_words(str(error))}")
        if isinstance(error, OSError):
            message = (
                f"{name} failed: the operating system said "
                f"{error.strerror or type(error).__name__}."
            )
            return self._error_outcome(message, "error: " + _first_words(message))
        said = free_of_input(str(error), input_strings(tool_input), "its text repeats the input")
        message = f"{name} failed unexpectedly ({type(error).__name__}: {said})."
        return self._error_outcome(message, f"error: {type(error).__name__}")

    def workspace_gone(self) -> WorkspaceGone | None:
        """The workspace folder gone (`Workspace.gone_now`), naming this session; None
        while it is in place."""
        gone = self._context.workspace.gone_now()
        return None if gone is None else WorkspaceGone(gone.root, gone.now, self._session_id)

    def _workspace_gone_outcome(self, gone: WorkspaceGone) -> ToolOutcome:
        """The same words from every tool that works in the workspace folder, once it is
        gone (`describe_workspace_gone`), checked before each such call and after one
        that failed; the typed error goes with them, for the REPL to word for the user."""
        summary = "error: the workspace folder is gone"
        said = self._error_outcome(describe_workspace_gone(gone, self._session_id), summary)
        cause = WorkspaceGone(gone.root, gone.now, self._session_id)
        return dataclasses.replace(said, cause=cause)

    def _note_workspace_gone(self, result: ToolResult, gone: WorkspaceGone) -> ToolResult:
        """`result` of a call that went well, with a line saying the workspace folder is
        gone (`gone`) when it went away during the call (`bash` removed it): the model
        learns it now, not from the next call's error."""
        said = describe_workspace_gone(gone, self._session_id, after_call=True)
        return dataclasses.replace(result, header=f"{result.header}\n[After this call: {said}]")

    def _why_unknown(self, name: object) -> str:
        """Why a call names no offered tool: for an MCP-style name, what its server says
        (`McpTools.not_offered`: left out, and why; or not listed), else that no running
        server offers it; never the name itself."""
        if not isinstance(name, str) or not name.startswith("mcp__"):
            return "There is no tool by that name."
        why = None if self._mcp is None else self._mcp.not_offered(name)
        return why or (
            "There is no tool by that name. No MCP server that is running offers it now: its "
            "server may have failed or exited (the user can see why with /mcp, and restart it "
            "with /mcp restart)."
        )

    def _offered_names(self) -> list[str]:
        """The names of every tool offered now: the built-in ones, then the MCP ones."""
        mcp = [] if self._mcp is None else [tool.name for tool in self._mcp.offered_tools()]
        return [*self._specs, *mcp]

    def _finish(self, spec: ToolSpec, result: ToolResult) -> ToolOutcome:
        """What a tool produced, secrets removed, big output spilled to an artifact."""
        return build_outcome(
            redact_result(result, self._redactor),
            artifacts=self._context.artifacts,
            session_id=self._session_id,
            threshold_bytes=self._threshold,
            may_spill=spec.may_spill,
            secrets=self._redactor.forms,
        )

    def _run_mcp(self, server: str, tool: str, name: str, tool_input: Any) -> ToolOutcome:
        """One MCP call (see `attach_mcp`): the arguments must be an object; the user sees
        server, tool and every argument before it runs; "always" covers this tool."""
        from agent_cli.mcp_servers.states import CallInterrupted, CallTerminated
        from agent_cli.tools.approval import build_content_approval
        from agent_cli.tools.approval_scope import mcp_tool_target

        assert self._mcp is not None
        if not isinstance(tool_input, dict):
            return self._error_outcome(f"{name} takes an object of arguments.", "bad input")
        shown = f"{server} {tool}"
        arguments = json.dumps(tool_input, ensure_ascii=False, indent=2, default=str)
        request = PermissionRequest(
            name,
            f"MCP {shown}",
            build_content_approval(f"MCP server {server}, tool {tool}, arguments:\n{arguments}"),
            mcp_tool_target(name, shown),
            secrets=self._redactor.forms,
            folder=str(self.workspace_root),
        )
        try:
            allowed = self._gate.is_allowed(request)
        except ToolError as error:  # allowed, but it must not start (`CallStartUnrecorded`)
            return self._error_outcome(str(error), f"error: {_first_words(str(error))}")
        if not allowed:
            return self._refusal_outcome(name)
        self._pass_output_on(b"")  # it runs now: the REPL shows the spinner and elapsed time
        answer: CallOutcome | None = None
        try:
            answer = self._mcp.call(server, tool, tool_input)
            return self._answer_kept(name, server, tool, answer)[1]
        except CallInterrupted as answered:  # Ctrl-C once it was answered: keep the answer
            raise ToolInterrupted(
                *self._answer_kept(name, server, tool, answered.outcome)
            ) from None
        except ToolTerminated:  # a signal while the answer was made the result: it is kept
            raise
        except TerminationRequested as stop:  # a signal before, at or just after the answer
            if isinstance(stop, CallTerminated):
                answer = stop.outcome
            if answer is None:  # no answer: say so, then agent-cli ends
                raise self._mcp_terminated(stop.signal_number, server, tool) from None
            kept = self._answer_kept(name, server, tool, answer)
            raise ToolTerminated(stop.signal_number, *kept) from None

    def _answer_kept(
        self, name: str, server: str, tool: str, answer: CallOutcome
    ) -> tuple[ToolResult, ToolOutcome]:
        """The server's answer made the call's result (the dotenv check first: a server may
        write one in the workspace), with a termination signal held meanwhile: one that
        came is raised after, as a `ToolTerminated` carrying that result, so an answer that
        had come is never lost to a signal (SIGTERM between the answer and its result)."""
        with termination_held() as release:
            self.check_dotenv()
            kept = self._mcp_result(name, server, tool, answer)
            try:
                release()
            except TerminationRequested as stop:
                raise ToolTerminated(stop.signal_number, *kept) from None
        return kept

    def _mcp_terminated(self, signal_number: int, server: str, tool: str) -> ToolTerminated:
        """The call a signal stopped before its server answered, as a `ToolTerminated`
        whose outcome says so (`MCP_TERMINATED_TEXT`), for the session to record."""
        from agent_cli.termination import signal_name

        signal = signal_name(signal_number)
        text = MCP_TERMINATED_TEXT.format(signal=signal, server=server, tool=tool)
        result = ToolResult(text, is_error=True)
        return ToolTerminated(
            signal_number, result, self._error_outcome(text, f"stopped by {signal}")
        )

    def _mcp_result(
        self, name: str, server: str, tool: str, outcome: CallOutcome
    ) -> tuple[ToolResult, ToolOutcome]:
        """What an MCP call gave, as the tool's result and its finished outcome."""
        from agent_cli.mcp_servers.call_results import render_call_result

        if outcome.failure is not None:
            message = f"{name} failed: {outcome.failure}."
            summary = "error: " + _first_words(outcome.failure)
            return ToolResult(message, is_error=True), self._error_outcome(message, summary)
        result, images = render_call_result(
            server,
            tool,
            outcome.items,
            outcome.is_error,
            self._save_blob,
            self._redactor.forms,
            max_text_bytes=self._context.limits.max_output_bytes,
            structured=outcome.structured,
        )
        built = build_outcome(
            redact_result(result, self._redactor),
            artifacts=self._context.artifacts,
            session_id=self._session_id,
            threshold_bytes=self._threshold,
            secrets=self._redactor.forms,
        )
        return result, dataclasses.replace(built, images=images) if images else built

    def _save_blob(self, data: bytes, suffix: str) -> str:
        """Store binary content a tool returned (its secrets already redacted by
        `render_call_result`); its pointer, or why it is not stored."""
        try:
            return str(self._context.artifacts.put(self._session_id, data, suffix=suffix).pointer)
        except Exception as error:  # a store failure: say so in the result, lose no call
            return f"(not stored: {type(error).__name__})"

    def _refusal_outcome(self, name: str) -> ToolOutcome:
        """The tool was not run: a person said no, or nobody could be asked at all."""
        if self._gate.last_refusal_unasked:
            return self._error_outcome(
                UNASKED_TEXT.format(name=name), "not run: nobody could be asked"
            )
        return self._error_outcome(DENIED_TEXT.format(name=name), "denied")

    def _error_outcome(self, message: str, summary: str) -> ToolOutcome:
        """An error result, secrets removed: a message may quote what a tool saw."""
        redacted = redact_message(message, self._redactor)
        summary = self._redactor.redact(summary).text
        if redacted != message:
            summary += " (secrets redacted)"
        return build_error_outcome(redacted, summary)

    def _prepare_and_execute(self, spec: ToolSpec, tool_input: Any) -> ToolResult | None:
        """The tool's result, or None when the user denied it (it then never ran)."""
        arguments = validate_input(spec.schema, tool_input)
        try:
            call = spec.prepare(self._context, arguments)
        except KeyboardInterrupt as interrupt:
            if type(interrupt) is not KeyboardInterrupt:
                raise
            raise ToolNotStarted(spec.schema["name"]) from interrupt
        if spec.needs_permission:
            request = PermissionRequest(
                spec.schema["name"],
                call.description,
                call.approval,
                call.target,
                secrets=self._redactor.forms,
                folder=str(self.workspace_root),
            )
            if not self._gate.is_allowed(request):
                return None
        self._live_output = StreamRedactor(self._redactor)
        self._dotenv_checked_at = None  # the first chunk of output is checked before shown
        self._pass_output_on(b"")  # it runs now: an empty chunk tells the watcher so
        result: ToolResult | None = None
        try:
            result = call.execute()
            return result
        except (ToolInterrupted, ToolTerminated) as stop:
            result = stop.result
            raise
        finally:
            self.check_dotenv()  # before the result, an error or the held output is redacted
            self._flush_live_output(stopped=result is None or result.stopped_short)


def _first_words(message: str, limit: int = 60) -> str:
    line = message.splitlines()[0] if message else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
