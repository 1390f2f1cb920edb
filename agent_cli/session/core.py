"""The session: owner of the prompt view, the record, the durable state and the provider.

Contract: `run_turn` and `compact_now` yield `SessionEvent`s and never print. The view is
only ever changed after the transcript holds the change (see `session.log`). Before each
request the view is compacted against the effective budget, durable sources are resolved
and the durable block is rendered for the request (the wire puts it in the newest user
turn, after the cached prefix; it is never stored in the view or the transcript).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from agent_cli.compaction import CompactionPolicy
from agent_cli.compaction.markers import find_last_summary
from agent_cli.durable import DurableContextState, DurableFact, PendingItem, PendingStatus
from agent_cli.errors import HeldResultsLost, ProviderRequestFailed, StoreError
from agent_cli.events import ModelRequest, Notice, SessionEvent, Usage
from agent_cli.session import describe, stats
from agent_cli.session.compactor import Compactor
from agent_cli.session.conversation import Conversation
from agent_cli.session.durable_context import DurableContext
from agent_cli.session.figures import ContextPreview, Gauge
from agent_cli.session.input_limit import check_input_size
from agent_cli.session.instructions import (
    ProjectInstructions,
    adopt_project_instructions,
    load_project_instructions,
)
from agent_cli.session.log import SessionLog
from agent_cli.session.request_context import RequestFrame
from agent_cli.session.turn import run_forced_compaction, run_turn_steps

__all__ = ["ContextPreview", "Gauge", "Session"]  # the figures live in `session.figures`
from agent_cli.sources import SourceResolution


class Session:
    """One conversation. Build it with `open_session`; see the module contract."""

    def __init__(
        self,
        *,
        log: SessionLog,
        provider: Any,
        toolbox: Any,
        resolver: Any,
        memory: Any,
        workspace: Path,
        policy: CompactionPolicy,
        counter: Any,
        system_prompt: str,
        clock: Callable[[], datetime],
        view: list[dict[str, Any]] | None = None,
        durable_state: DurableContextState | None = None,
        max_tokens: int = 8192,
        artifacts: Any = None,
        recall: Any = None,
    ) -> None:
        self.log = log
        self.provider = provider
        self.toolbox = toolbox
        self.workspace = workspace
        self.counter = counter
        self.system_prompt = system_prompt
        self.clock = clock
        self.conversation = Conversation(log, view or ())
        self.durable = DurableContext(
            log=log,
            memory=memory,
            resolver=resolver,
            workspace=workspace,
            clock=clock,
            state=durable_state,
        )
        self.compactor = Compactor(
            conversation=self.conversation,
            provider=provider,
            counter=counter,
            policy=policy,
            clock=clock,
            secret_forms=getattr(toolbox, "secret_forms", None),
        )
        self.max_tokens = max_tokens
        self.artifacts = artifacts  # where oversized user messages are stored whole
        self.recall = recall  # `agent_cli.recall.Recall`: the pointer reader of /expand
        self.startup_notices: list[Notice] = []
        self.project_instructions = ProjectInstructions()
        self._last_estimate = 0

    # --- identity -----------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self.log.session_id

    @property
    def transcript_path(self) -> str:
        return self.log.path

    @property
    def view(self) -> list[dict[str, Any]]:
        """The prompt view, read-only (`Conversation.view`): only the conversation writes
        it, after the transcript holds the change."""
        return self.conversation.view

    @property
    def policy(self) -> CompactionPolicy:
        return self.compactor.policy

    @property
    def calibration(self) -> float | None:
        return self.compactor.calibration

    @property
    def durable_state(self) -> DurableContextState:
        return self.durable.state

    @property
    def last_resolutions(self) -> tuple[SourceResolution, ...]:
        return self.durable.resolutions

    @property
    def last_durable_text(self) -> str:
        """The durable block as last rendered into a request or a figure."""
        return self.durable.text

    @property
    def held_results(self) -> tuple[dict[str, Any], dict[str, Any]] | None:
        return self.conversation.held_results

    @property
    def sent_view(self) -> tuple[dict[str, Any], ...]:
        """The messages of the last request."""
        return self.conversation.sent

    # --- turns --------------------------------------------------------------------------

    def run_turn(self, text: str) -> Iterator[SessionEvent]:
        """Run one user turn to its end; see `session.turn` for the guarantees.

        Raises `InputTooLarge` at once, before anything is recorded, for a message over
        the input cap (`session.input_limit`)."""
        check_input_size(text, "message")
        return run_turn_steps(self, text)

    def compact_now(self, focus: str | None = None) -> Iterator[SessionEvent]:
        """Compact the view now, whatever its size; `focus` steers the summary."""
        return run_forced_compaction(self, focus)

    def compact_forced(self, focus: str | None) -> Iterator[SessionEvent]:
        """The forced compaction itself; raises `MessageViewLimitExceeded` (see above)."""
        frame = self.request_frame(self.render_durable())
        yield from self.compactor.compact(frame, self.durable_state, forced=True, focus=focus)

    def prepare_request(self) -> Generator[SessionEvent, None, ModelRequest]:
        """Compact if needed, render the durable block, and build the next request."""
        frame = self.request_frame(self.render_durable())
        yield from self.compactor.compact(frame, self.durable_state, forced=False)
        reserved = frame.reserved_tokens(self.counter)
        self._last_estimate = reserved + self.compactor.view_tokens()
        return ModelRequest(
            system=frame.system,
            durable_context=frame.durable_text,
            messages=self.conversation.note_sent(),
            tools=frame.tools,
            max_tokens=self.max_tokens,
            project_instructions=frame.project_instructions,
        )

    def request_frame(self, durable_text: str) -> RequestFrame:
        """The parts the next request carries around its messages."""
        return RequestFrame(
            system=self.system_prompt,
            project_instructions=self.project_instructions.text,
            durable_text=durable_text,
            tools=tuple(self.toolbox.schemas()),
        )

    def recent_exchanges(self, limit: int = 3) -> list[Any]:
        """The last few requests in the view with what came back (for `/resume`)."""
        from agent_cli.session.catalog import recent_exchanges

        return recent_exchanges(self.view, limit)

    def watch_tool_output(self, watcher: Callable[[bytes], None] | None) -> None:
        """Show a running command's output as it arrives (the REPL's live view); None stops.
        A toolbox that cannot stream (a test's fake) is left as it is."""
        if hasattr(self.toolbox, "output_watcher"):
            self.toolbox.output_watcher = watcher

    def append_message(self, message: dict[str, Any]) -> None:
        """Write-ahead append (`Conversation.append`)."""
        self.conversation.append(message)

    def hold_unrecorded_results(self, results: dict[str, Any]) -> None:
        self.conversation.hold_unrecorded_results(results)

    def record_held_results(self) -> bool:
        return self.conversation.record_held_results()

    def note_usage(self, usage: Usage) -> None:
        """Record the API's usage and recalibrate the estimate against it."""
        # usage is bookkeeping; the message records are what must not be lost
        with contextlib.suppress(StoreError):
            self.log.append_usage(usage, self._last_estimate)
        self.compactor.calibrate(usage.prompt_tokens, self._last_estimate)

    # --- compaction ---------------------------------------------------------------------

    def reserved_tokens(self, durable_text: str) -> int:
        """Tokens a request carries outside the view: system prompt, project instructions,
        durable block, tools."""
        return self.request_frame(durable_text).reserved_tokens(self.counter)

    # --- durable context ----------------------------------------------------------------

    def render_durable(self) -> str:
        """Resolve every source pointer now and render the durable block."""
        return self.durable.render()

    def resolve_sources(self) -> tuple[SourceResolution, ...]:
        """Resolve every durable source pointer now (the REPL's /sources and /facts)."""
        self.durable.render()
        return self.durable.resolutions

    def expand(self, pointer: str) -> SourceResolution:
        """The record or artifact behind a pointer, re-verified, with a readable excerpt:
        the same path as the model's `recall` tool, with the user's authority (any session
        of this state folder, where the tool reads only this session's records)."""
        reader = self.durable.resolver if self.recall is None else self.recall
        kwargs = {} if self.recall is None else {"own_session_only": False}
        resolution: SourceResolution = reader.resolve(pointer, **kwargs)
        return resolution

    def last_summary(self) -> str | None:
        """The text of the last compaction summary in the view, in full; None if none yet.
        The one source for `/summary` and for `/context`."""
        return find_last_summary(self.view)

    def reload_project_instructions(self) -> ProjectInstructions:
        """Read AGENTS.md (or CLAUDE.md) again (`/reload`); the next request carries it."""
        found = load_project_instructions(self.workspace, self.toolbox.redactor)
        adopt_project_instructions(self, found)
        return self.project_instructions

    def switch_model(self, model_id: str) -> Any:
        """`/model <id>`: later requests use it; recorded, so resume keeps it."""
        from agent_cli.session.model_choice import switch_model

        return switch_model(self, model_id)

    def list_models(self) -> Any:
        """`/model`: the models to choose from (Models API, else the model table)."""
        from agent_cli.session.model_choice import list_models

        return list_models(self)

    # --- durable state commands ---------------------------------------------------------

    def remember(self, text: str) -> DurableFact:
        return self.durable.remember(text)

    def add_pending(self, text: str) -> PendingItem:
        return self.durable.add_pending(text)

    def mark_done(self, item_id: str) -> PendingItem:
        return self.durable.move_pending(item_id, PendingStatus.DONE)

    def mark_blocked(self, item_id: str, reason: str) -> PendingItem:
        return self.durable.move_pending(item_id, PendingStatus.BLOCKED, reason)

    def forget(self, item_id: str) -> None:
        """Drop a fact or pending item from the durable state (and the memory file)."""
        self.durable.forget(item_id)

    # --- figures ------------------------------------------------------------------------

    def stats(self) -> Any:
        return stats.build_stats(self)

    def gauge(self) -> Gauge:
        return stats.build_gauge(self)

    def context_preview(self) -> ContextPreview:
        return stats.build_preview(self)

    # --- words for errors (the REPL shows them) -----------------------------------------

    def describe_provider_error(self, error: Exception) -> str:
        if isinstance(error, ProviderRequestFailed):
            return describe.provider_error(error)
        return f"{type(error).__name__}: {error}. The conversation is unchanged."

    def describe_store_error(self, error: StoreError) -> str:
        return describe.store_error(error)

    def close(self) -> None:
        """Record held tool results if the disk allows it now, then release the transcript.

        If they still cannot be recorded, the transcript is released all the same and
        `HeldResultsLost` says how many results are lost (a resume then tells the model
        that the call's result was not recorded), so the loss is never silent."""
        held = self.held_results
        try:
            self.conversation.record_held_results()
        except StoreError as error:
            self.log.close()
            count = len(held[1].get("content") or []) if held else 0
            reason = getattr(error, "errno_name", None) or type(error).__name__
            raise HeldResultsLost(self.session_id, count, reason) from error
        self.log.close()
