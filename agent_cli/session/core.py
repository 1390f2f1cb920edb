"""The session: a thin facade over the parts of one conversation.

Contract: a `Session` is built from four parts, each the one owner of its state:
`Conversation` (the view, the transcript log, held results; the only writer of the
view, which changes only after the transcript holds the change), `DurableContext` (the
durable state, its memory store and resolver, the rendered block), `Compactor` (policy,
calibration, loop guard; one `compact` method for `/compact` and for every request) and
`TurnRunner` (the turn loop, with the provider and the toolbox). The facade keeps the
operations and read-only figures the REPL and outside code use; `run_turn` and
`compact_now` yield `SessionEvent`s and never print. Before each request the view is
compacted against the effective budget, durable sources are resolved and the durable
block is rendered for the request (the wire puts it in the newest user turn, after the
cached prefix; it is never stored in the view or the transcript).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.compaction import CompactionPolicy
from agent_cli.compaction.markers import find_last_summary
from agent_cli.durable import (
    DurableContextState,
    DurableFact,
    ItemsElsewhere,
    PendingItem,
    PendingStatus,
)
from agent_cli.errors import HeldResultsLost, StoreError, failure_reason
from agent_cli.events import (
    ContextPreview,
    Gauge,
    ModelRequest,
    Notice,
    SessionEvent,
    SessionStats,
    StreamRestarted,
    ToolFinished,
)
from agent_cli.models import ModelInfo
from agent_cli.safe_cuts import stopped_secret_start
from agent_cli.session import stats
from agent_cli.session.compactor import Compactor
from agent_cli.session.conversation import Conversation
from agent_cli.session.durable_context import DurableContext
from agent_cli.session.durable_room import FixedPart, check_durable_room, fixed_part_notice
from agent_cli.session.input_limit import check_input_size
from agent_cli.session.instructions import ProjectInstructions, load_project_instructions
from agent_cli.session.log import SessionLog
from agent_cli.session.model_choice import ModelListing, list_models, switch_model
from agent_cli.session.request_context import RequestFrame, count_offered_schema_tokens
from agent_cli.session.turn import TurnRunner
from agent_cli.sources import SourceResolution

# Reads the whole artifact: a tool's output is capped (`ToolLimits.max_output_bytes`).
WHOLE_ARTIFACT = 1 << 40

if TYPE_CHECKING:
    from agent_cli.provider.base import Provider
    from agent_cli.recall import Recall
    from agent_cli.session.catalog import Exchange
    from agent_cli.session.mcp_part import McpPart, McpServerView
    from agent_cli.sources import SourcePointerResolver
    from agent_cli.store.artifacts import ArtifactStore
    from agent_cli.store.memory import MemoryStore
    from agent_cli.tokens import TokenCounter
    from agent_cli.tools.approval_scope import AlwaysScope
    from agent_cli.tools.dotenv_watch import DotenvChange
    from agent_cli.tools.toolbox import ToolRunner

__all__ = ["Session"]


class Session:
    """One conversation. Build it with `open_session`; see the module contract."""

    def __init__(
        self,
        *,
        log: SessionLog,
        provider: Provider,
        toolbox: ToolRunner,
        resolver: SourcePointerResolver,
        memory: MemoryStore,
        workspace: Path,
        policy: CompactionPolicy,
        counter: TokenCounter,
        system_prompt: str,
        clock: Callable[[], datetime],
        view: list[dict[str, Any]] | None = None,
        durable_state: DurableContextState | None = None,
        artifacts: ArtifactStore,
        recall: Recall | None,
        max_tokens: int = 8192,
    ) -> None:
        self._conversation = Conversation(log, counter, view or ())
        self._durable = DurableContext(
            log=log,
            memory=memory,
            resolver=resolver,
            workspace=workspace,
            clock=clock,
            state=durable_state,
        )
        self._compactor = Compactor(
            conversation=self._conversation,
            provider=provider,
            counter=counter,
            policy=policy,
            clock=clock,
            secret_forms=toolbox.secret_forms,
            answer_tokens=max_tokens,
        )
        self._runner = TurnRunner(
            conversation=self._conversation,
            compactor=self._compactor,
            durable=self._durable,
            provider=provider,
            toolbox=toolbox,
            counter=counter,
            system_prompt=system_prompt,
            max_tokens=max_tokens,
            artifacts=artifacts,
        )
        self._mcp: McpPart | None = None
        self._recall = recall  # the pointer reader of /expand
        self._startup_notices: list[Notice] = []

    # --- identity and parts, read-only --------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        """The view, its transcript and held results (the one writer of the view)."""
        return self._conversation

    @property
    def durable(self) -> DurableContext:
        """The durable state, its memory store and resolver, and the rendered block."""
        return self._durable

    @property
    def compactor(self) -> Compactor:
        """Policy, calibration and loop guard; the one way the view is compacted."""
        return self._compactor

    @property
    def runner(self) -> TurnRunner:
        """The turn loop, with the provider and the toolbox."""
        return self._runner

    @property
    def session_id(self) -> str:
        return self._conversation.session_id

    @property
    def transcript_path(self) -> str:
        return self._conversation.log.path

    @property
    def log(self) -> SessionLog:
        return self._conversation.log

    @property
    def workspace(self) -> Path:
        return self._durable.workspace

    @property
    def provider(self) -> Provider:
        return self._runner.provider

    @property
    def toolbox(self) -> ToolRunner:
        return self._runner.toolbox

    @property
    def counter(self) -> TokenCounter:
        return self._runner.counter

    @property
    def system_prompt(self) -> str:
        return self._runner.system_prompt

    @property
    def artifacts(self) -> ArtifactStore:
        """The artifact store, where oversized user messages are stored whole."""
        return self._runner.artifacts

    @property
    def recall(self) -> Recall | None:
        return self._recall

    @property
    def policy(self) -> CompactionPolicy:
        return self._compactor.policy

    @property
    def policy_as_set(self) -> CompactionPolicy:
        return self._compactor.policy_as_set

    @property
    def calibration(self) -> float | None:
        return self._compactor.calibration

    @property
    def project_instructions(self) -> ProjectInstructions:
        return self._runner.project_instructions

    @property
    def tool_names(self) -> frozenset[str]:
        """The tools the model may call in this session (their schemas' names)."""
        return frozenset(str(schema.get("name")) for schema in self.toolbox.schemas())

    @property
    def view(self) -> list[dict[str, Any]]:
        """The prompt view, read-only (`Conversation.view`): only the conversation writes
        it, after the transcript holds the change."""
        return self._conversation.view

    @property
    def held_results(self) -> tuple[dict[str, Any], dict[str, Any]] | None:
        return self._conversation.held_results

    @property
    def sent_view(self) -> tuple[dict[str, Any], ...]:
        """The messages of the last request."""
        return self._conversation.sent

    @property
    def durable_state(self) -> DurableContextState:
        return self._durable.state

    @property
    def last_resolutions(self) -> tuple[SourceResolution, ...]:
        return self._durable.resolutions

    @property
    def last_durable_text(self) -> str:
        """The durable block as last rendered into a request or a figure."""
        return self._durable.text

    @property
    def startup_notices(self) -> list[Notice]:
        """What opening the session found worth saying (shown after the banner); a copy.
        It ends with why every turn will be blocked, or have little room, when the durable
        block (facts and items saved before, a resumed session's) fills the hard limit."""
        room = fixed_part_notice(self._fixed_part(self._durable.text), self._durable.state)
        return [*self._startup_notices, *([room] if room else [])]

    def announce(self, notice: Notice) -> None:
        """Add a notice to say once the session is shown (`startup_notices`)."""
        self._startup_notices.append(notice)

    # --- turns --------------------------------------------------------------------------

    def run_turn(self, text: str) -> Iterator[SessionEvent]:
        """Run one user turn to its end; see `session.turn` for the guarantees.

        Raises `InputTooLarge` at once, before anything is recorded, for a message over
        the input cap (`session.input_limit`)."""
        check_input_size(text, "message")
        if self._mcp is None:
            return self._runner.run_turn(text)
        return self._run_turn_after_mcp(self._mcp, text)

    def _run_turn_after_mcp(self, mcp: McpPart, text: str) -> Iterator[SessionEvent]:
        """The turn once the MCP servers are ready (or given up on); Ctrl-C while waiting
        for them still records the message (`TurnRunner.cancel_before_start`)."""
        try:
            yield from mcp.before_request()
        except KeyboardInterrupt:
            yield from self._runner.cancel_before_start(text, "mcp_start")
            return
        yield from self._runner.run_turn(text)

    # --- MCP servers --------------------------------------------------------------------

    def use_mcp(self, mcp: McpPart) -> None:
        """Own `mcp` (the session's servers): started by `start_mcp`, closed with it; a
        server's tools changed during a call are said after that call's result."""
        self._mcp = mcp
        mcp.say_tool_changes_with(self._runner.say_after_tool)

    def start_mcp(self) -> None:
        """Start the MCP servers in the background (the REPL calls it once its prompt is
        up); nothing without servers."""
        if self._mcp is not None:
            self._mcp.start()

    def mcp_servers(self) -> tuple[McpServerView, ...]:
        return () if self._mcp is None else self._mcp.servers()

    def restart_mcp(self, name: str) -> bool:
        """Restart MCP server `name`; False when there is none by that name."""
        return self._mcp is not None and self._mcp.restart(name)

    def compact_now(self, focus: str | None = None) -> Iterator[SessionEvent]:
        """Compact the view now, whatever its size; `focus` steers the summary."""
        return self._runner.compact_now(focus)

    def prepare_request(self) -> Generator[SessionEvent, None, ModelRequest]:
        """Compact if needed, render the durable block, and build the next request."""
        return self._runner.prepare_request()

    def request_frame(self, durable_text: str) -> RequestFrame:
        """The parts the next request carries around its messages."""
        return self._runner.request_frame(durable_text)

    def reserved_tokens(self, durable_text: str) -> int:
        """Tokens a request carries outside the view: system prompt, project instructions,
        durable block, tools."""
        return self._runner.reserved_tokens(durable_text)

    def recent_exchanges(self, limit: int = 3) -> list[Exchange]:
        """The last few requests of the session with what came back (for `/resume`), read
        from its transcript, not the view, which compaction may have cut between a request
        and its calls (`catalog.recent_exchanges`); redacted of the secrets known now, as
        the view is. A transcript that cannot be read now gives none."""
        from agent_cli.session.catalog import recent_exchanges

        try:
            return recent_exchanges(self.log.replay(), limit, self.toolbox.secret_forms)
        except (StoreError, OSError):
            return []

    def last_recorded_tool_result(self) -> ToolFinished | None:
        """The newest tool call's result as the transcript recorded it (for `/last` before
        a call runs in this run: a resumed session), redacted of the secrets known now
        (`last_result`). None when there is none, or the transcript cannot be read now."""
        from agent_cli.session.last_result import read_last_tool_result

        try:
            return read_last_tool_result(
                self.log.replay(), self.session_id, self.toolbox.secret_forms
            )
        except (StoreError, OSError):
            return None

    def always_allowed(self) -> tuple[AlwaysScope, ...]:
        """The "always" answers in force in this session, oldest first."""
        return self.toolbox.always_allowed()

    def revoke_always(self, scope: AlwaysScope | None = None) -> int:
        """Take back the "always" answer `scope` (None: all); how many were taken back.
        What it covered is asked about again."""
        return self.toolbox.revoke_always(scope)

    def note_dotenv_change(self, change: DotenvChange, hidden: tuple[str, ...]) -> None:
        """The toolbox found dotenv files changed and now hides `hidden` too
        (`Toolbox.watch_dotenv`): from now on every other holder of the secrets (the
        compaction policy, recall, the MCP servers) uses the toolbox's forms, and what is
        worth saying is said after the tool's result, or before the request when no call
        runs (a check before a request: `check_dotenv_before_requests`;
        `session.dotenv_secrets`). What was taken in before they were learned and rides in
        every request has them redacted too: the project instructions and the MCP servers'
        offered tools at once, the view once the running call is finished or before the
        request is built (`TurnRunner.hide_learned`); and recall's pages
        of the records written before (`Recall.note_learned`). A server's tool withdrawn
        because its name holds a learned value is said after the dotenv notice."""
        from agent_cli.session.dotenv_secrets import dotenv_change_notices
        from agent_cli.tools.redaction import SecretRedactor

        withdrawn: list[Notice] = []
        if hidden:
            forms = self.toolbox.secret_forms
            self._compactor.use_secret_forms(forms)
            if self._recall is not None:
                self._recall.secrets = forms
                self._recall.note_learned(hidden, self.log.writer.next_sequence)
            if self._mcp is not None:
                withdrawn = self._mcp.use_secrets(forms)
        for notice in [*dotenv_change_notices(change, hidden), *withdrawn]:
            self._runner.say_after_tool(notice)
        if hidden:  # after the notice that says the values were learned
            self._runner.hide_learned(SecretRedactor(hidden))

    def check_dotenv_before_requests(self, check: Callable[[], None]) -> None:
        """Call `check` (`Toolbox.check_dotenv`, whose changes reach `note_dotenv_change`)
        before every request the session sends, so a dotenv file edited between turns is
        learned, hidden and said before the next request (`TurnRunner.learn_before_request`)."""
        self._runner.dotenv_check = check

    def learn_dotenv_changes(self) -> Iterator[SessionEvent]:
        """Check the dotenv files now, as before a request (`TurnRunner.learn_before_request`):
        what they gained is learned and hidden at once from all the next request carries,
        and the notices a request would be preceded by are yielded. For the views that show
        what the next request carries or what the model got (`/context`, `/last`): they
        send nothing, yet must not show a value written to `.env` since the last request."""
        return self._runner.learn_before_request()

    def redact_known_secrets(self, text: str) -> str:
        """`text` with every secret known now redacted, as the view and the read-back of a
        stored output are: for what the REPL kept of a result made before a value was
        learned and shows again (`/last`)."""
        return self.toolbox.secret_forms.redact(text)

    def watch_tool_output(self, watcher: Callable[[bytes], None] | None) -> None:
        """Show a running command's output as it arrives (the REPL's live view); None stops."""
        self.toolbox.output_watcher = watcher

    def watch_model_requests(self, watcher: Callable[[], None] | None) -> None:
        """Call `watcher` as each request of a turn is sent to the model, before anything
        comes back (the REPL's waiting spinner); None stops."""
        self._runner.request_watcher = watcher

    def measure_thresholds_above_added_context(self) -> None:
        """From now on the soft threshold and hard limit are measured above what this
        workspace and configuration add to every request: MCP servers' tool schemas (they
        rise as servers start, and fall back as they stop), the project instructions and
        the durable block as last rendered. For the offline demo, whose small thresholds
        are tuned to the system prompt and built-in tools alone: the conversation keeps
        the same room, so the README's reads still show every layer."""
        self._compactor.threshold_lift = self._added_context_tokens

    def _added_context_tokens(self) -> int:
        counter = self._runner.counter
        schemas = count_offered_schema_tokens(counter, self._runner.toolbox.schemas())
        instructions = counter.count_text(self._runner.project_instructions.text)
        return schemas + instructions + counter.count_text(self._durable.text)

    def watch_summary_requests(self, watcher: Callable[[], None] | None) -> None:
        """Call `watcher` as compaction asks for a summary (L4, `/compact`), before it
        comes back (the REPL's summarizing spinner); None stops."""
        self._compactor.summary_watcher = watcher

    def watch_summary_retries(self, watcher: Callable[[StreamRestarted], None] | None) -> None:
        """Call `watcher` as each retry of a summary request comes (what an ordinary
        request's retry yields as an event); None stops."""
        self._compactor.summary_retry_watcher = watcher

    # --- durable context ----------------------------------------------------------------

    def render_durable(self) -> str:
        """Resolve every source pointer now and render the durable block."""
        return self._durable.render()

    def resolve_sources(self) -> tuple[SourceResolution, ...]:
        """Resolve every durable source pointer now (the REPL's /sources and /facts)."""
        self._durable.render()
        return self._durable.resolutions

    def expand(self, pointer: str) -> SourceResolution:
        """The record or artifact behind a pointer, re-verified, with a readable excerpt:
        the same path as the model's `recall` tool, with the user's authority (any session
        of this state folder, where the tool reads only this session's records). The
        excerpt is shown whole, so it is redacted here (the tool's pages are redacted as
        its results): a record or artifact written before a secret was known, or by an
        older version, may hold one. An excerpt cut at the read limit loses an ending
        that may be a secret's start."""
        if self._recall is None:
            found = self._durable.resolver.resolve(pointer)
        else:
            found = self._recall.resolve(pointer, own_session_only=False)
        if not found.excerpt:
            return found
        secrets = self.toolbox.secret_forms
        excerpt = found.excerpt
        open_match = stopped_secret_start(excerpt, secrets) if found.excerpt_truncated else None
        return dataclasses.replace(found, excerpt=secrets.redact(excerpt[:open_match]))

    def read_tool_output(self, pointer: str) -> str:
        """The whole text a tool's output was stored as (the artifact `pointer` names, of
        any session in this state folder), read back and verified against its digest
        (`/last`); raises `ArtifactUnavailable` when it cannot be. The toolbox stores what
        it kept after redacting secrets, but an artifact written before a secret was known
        (or by an older version, or an MCP server's binary content) may hold one: it is
        redacted again, as bytes and as text."""
        whole, _ = self.toolbox.secret_forms.redact_bytes(
            self.artifacts.read_range(pointer, 0, WHOLE_ARTIFACT)
        )
        return self.toolbox.secret_forms.redact(whole.decode("utf-8", errors="replace"))

    def last_summary(self) -> str | None:
        """The text of the last compaction summary in the view, in full; None if none yet.
        The one source for `/summary` and for `/context`."""
        return find_last_summary(self.view)

    def reload_project_instructions(self) -> ProjectInstructions:
        """Read AGENTS.md (or CLAUDE.md) again (`/reload`); the next request carries it.
        `WorkspaceGone` when the workspace folder was moved, deleted or replaced: there is
        nothing of this session's folder to read, and requests keep what they carried (a
        folder gone is no sign the instructions no longer hold)."""
        gone = self.toolbox.workspace_gone()
        if gone is not None:
            raise gone
        found = load_project_instructions(self.workspace, self.toolbox.redactor)
        self._runner.use_project_instructions(found)
        return found

    def switch_model(self, model_id: str) -> ModelInfo:
        """`/model <id>`: later requests use it; recorded, so resume keeps it."""
        return switch_model(self.provider, self.log, model_id, self.toolbox.secret_forms)

    def list_models(self) -> ModelListing:
        """`/model`: the models to choose from (Models API, else the model table)."""
        return list_models(self.provider, secrets=self.toolbox.secret_forms)

    def remember(self, text: str) -> DurableFact:
        """Add a fact; refused (`DurableBlockTooLarge`, nothing recorded) when with it the
        fixed part of every request would leave the conversation too little room."""
        return self._durable.remember(text, fits=self._check_durable_room)

    def add_pending(self, text: str) -> PendingItem:
        """Add a pending item; refused as `remember` is."""
        return self._durable.add_pending(text, fits=self._check_durable_room)

    def _check_durable_room(self, command: str, block: str) -> None:
        """`durable_room.check_durable_room` for the frame carrying `block`."""
        figures = self._fixed_part(block)
        check_durable_room(command, figures, self._durable.state)

    def _fixed_part(self, block: str) -> FixedPart:
        """What every request would carry besides the conversation with `block` as its
        durable block, in API tokens. With the demo's lifted thresholds the hard limit
        rises with the block as well."""
        frame = self._runner.request_frame(block)
        shown = self._compactor.to_request_tokens
        durable = shown(frame.durable_tokens)
        hard = self._compactor.policy.hard_limit
        if self._compactor.threshold_lift is not None:
            hard += durable - self.durable_block_tokens()
        return FixedPart(shown(frame.reserved_tokens), durable, hard)

    def mark_done(self, item_id: str) -> PendingItem:
        return self._durable.move_pending(item_id, PendingStatus.DONE)

    def mark_blocked(self, item_id: str, reason: str) -> PendingItem:
        """Block a pending item; its reason is refused as `add_pending` refuses a text."""
        return self._durable.move_pending(
            item_id, PendingStatus.BLOCKED, reason, fits=self._check_durable_room
        )

    def forget(self, item_id: str) -> None:
        """Drop a fact or pending item from the durable state (and the memory file)."""
        self._durable.forget(item_id)

    def earlier_durable(self) -> tuple[ItemsElsewhere, ...]:
        """This session's facts and pending items kept for other folders than this one and
        not held here alike, one entry per folder, with the ids that would stop a bring
        (`session.durable_folder`); empty when there are none."""
        return self._durable.earlier_items()

    def bring_earlier_durable(self) -> tuple[ItemsElsewhere, ...]:
        """`/facts bring`: copy the items of `earlier_durable` into this folder's memory, ids
        kept, their folders' files untouched; per folder what was added, or the ids that
        kept it apart (nothing of it copied). Store errors raise."""
        return self._durable.bring_earlier()

    # --- figures ------------------------------------------------------------------------

    def stats(self) -> SessionStats:
        return stats.build_stats(self._runner)

    def gauge(self) -> Gauge:
        return stats.build_gauge(self._runner)

    def durable_block_tokens(self) -> int:
        """What every request carries for the facts and pending items (API tokens)."""
        return stats.durable_block_tokens(self._runner)

    def context_preview(self) -> ContextPreview:
        return stats.build_preview(self._runner)

    def close(self) -> None:
        """Record held tool results if the disk allows it now, then release the transcript.

        If they still cannot be recorded, the transcript is released all the same and
        `HeldResultsLost` says how many results are lost (a resume then tells the model
        that the call's result was not recorded), so the loss is never silent."""
        held = self._conversation.held_results
        if self._mcp is not None:
            self._mcp.close()
        try:
            self._conversation.record_held_results()
        except StoreError as error:
            self.log.close()
            count = len(held[1].get("content") or []) if held else 0
            raise HeldResultsLost(self.session_id, count, failure_reason(error)) from error
        self.log.close()
