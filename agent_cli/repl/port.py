"""What the REPL needs of a session: the typed port between the shell and the turn loop.

Contract: `SessionPort` lists every operation and read-only figure the REPL uses, and
nothing else; `agent_cli.session.Session` satisfies it (`wiring.build_backend` returns a
real session where a port is expected, so mypy checks the fit), and so does the REPL
tests' `FakeSession`. The REPL reaches a session only through this port: no attribute
probes, no `Any`. Adding something the REPL uses means adding it here, to `Session` and
to the fake.

It lives in repl/ because it is the REPL's need, stated by the REPL: the session does not
know it exists, so the session's parts can be rearranged behind it freely. The types it
names are imported for annotations only, so importing the port loads no session module
(the prompt comes up before the session opens).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_cli.compaction import CompactionPolicy
    from agent_cli.durable import DurableContextState, DurableFact, ItemsElsewhere, PendingItem
    from agent_cli.events import (
        ContextPreview,
        Gauge,
        Notice,
        SessionEvent,
        SessionStats,
        StreamRestarted,
        ToolFinished,
    )
    from agent_cli.models import ModelInfo
    from agent_cli.session.catalog import Exchange
    from agent_cli.session.instructions import ProjectInstructions
    from agent_cli.session.mcp_part import McpServerView
    from agent_cli.session.model_choice import ModelListing
    from agent_cli.sources import SourceResolution
    from agent_cli.tools.approval_scope import AlwaysScope


class ProviderIdentity(Protocol):
    """Which provider and model answer, and a way to get the provider ready early."""

    @property
    def name(self) -> str:
        """ "anthropic" or "offline"."""
        ...

    @property
    def model(self) -> str: ...

    def prepare(self) -> None:
        """Build what the first request needs (the SDK client) ahead of it; any thread."""
        ...


class SessionPort(Protocol):
    """One open session as the REPL sees it; see the module contract."""

    # --- identity and settings ----------------------------------------------------------

    @property
    def session_id(self) -> str: ...

    @property
    def transcript_path(self) -> str: ...

    @property
    def workspace(self) -> Path: ...

    @property
    def provider(self) -> ProviderIdentity: ...

    @property
    def policy(self) -> CompactionPolicy:
        """The thresholds compaction runs by (the banner says them on the demo model)."""
        ...

    @property
    def policy_as_set(self) -> CompactionPolicy:
        """The thresholds as set, before `policy` lowers them to fit the model's window."""
        ...

    @property
    def project_instructions(self) -> ProjectInstructions:
        """The AGENTS.md / CLAUDE.md block requests carry (empty text when none)."""
        ...

    @property
    def tool_names(self) -> frozenset[str]:
        """The tools the model may call in this session."""
        ...

    @property
    def startup_notices(self) -> Sequence[Notice]:
        """What opening the session found (damaged memory, renamed ids, ...)."""
        ...

    # --- turns --------------------------------------------------------------------------

    def run_turn(self, text: str) -> Iterator[SessionEvent]:
        """One user turn; a generator that takes Ctrl-C itself (see `repl.turns`)."""
        ...

    def compact_now(self, focus: str | None = None) -> Iterator[SessionEvent]: ...

    def watch_tool_output(self, watcher: Callable[[bytes], None] | None) -> None:
        """Hand a running command's output to `watcher` as it arrives; None stops."""
        ...

    def watch_model_requests(self, watcher: Callable[[], None] | None) -> None:
        """Call `watcher` as each model request is sent, before its answer; None stops."""
        ...

    def watch_summary_requests(self, watcher: Callable[[], None] | None) -> None:
        """Call `watcher` as compaction asks for a summary, before it comes; None stops."""
        ...

    def watch_summary_retries(self, watcher: Callable[[StreamRestarted], None] | None) -> None:
        """Call `watcher` as each retry of a summary request comes, as an ordinary
        request's retry comes as an event; None stops."""
        ...

    def recent_exchanges(self, limit: int = 3) -> list[Exchange]: ...

    def last_recorded_tool_result(self) -> ToolFinished | None:
        """The newest call's result as the transcript recorded it (`/last` in a resumed
        session before a call has run); None when there is none."""
        ...

    # --- secrets, before a view of what the model gets ----------------------------------

    def learn_dotenv_changes(self) -> Iterator[SessionEvent]:
        """Check the dotenv files now, as before a request: what changed is learned and
        hidden from all the next request carries; yields the notices that say so (shown
        before `/context` and `/last`)."""
        ...

    def redact_known_secrets(self, text: str) -> str:
        """`text` with every secret known now redacted (what `/last` shows again)."""
        ...

    # --- figures ------------------------------------------------------------------------

    def stats(self) -> SessionStats: ...

    def gauge(self) -> Gauge: ...

    def durable_block_tokens(self) -> int: ...

    def context_preview(self) -> ContextPreview: ...

    def last_summary(self) -> str | None: ...

    # --- MCP servers --------------------------------------------------------------------

    def start_mcp(self) -> None:
        """Start the configured MCP servers in the background (once the prompt is up)."""
        ...

    def mcp_servers(self) -> tuple[McpServerView, ...]: ...

    def restart_mcp(self, name: str) -> bool: ...

    # --- durable state ------------------------------------------------------------------

    @property
    def durable_state(self) -> DurableContextState: ...

    def remember(self, text: str) -> DurableFact: ...

    def add_pending(self, text: str) -> PendingItem: ...

    def mark_done(self, item_id: str) -> object: ...

    def mark_blocked(self, item_id: str, reason: str) -> object: ...

    def forget(self, item_id: str) -> None: ...

    def resolve_sources(self) -> tuple[SourceResolution, ...]: ...

    def earlier_durable(self) -> tuple[ItemsElsewhere, ...]: ...

    def bring_earlier_durable(self) -> tuple[ItemsElsewhere, ...]: ...

    def expand(self, pointer: str) -> SourceResolution: ...

    def read_tool_output(self, pointer: str) -> str:
        """The whole tool output stored as the artifact `pointer`, verified (`/last`);
        raises `ArtifactUnavailable` when it cannot be read back."""
        ...

    # --- permissions ----------------------------------------------------------------------

    def always_allowed(self) -> tuple[AlwaysScope, ...]:
        """The "always" answers in force, oldest first (`stats`, `/permissions`)."""
        ...

    def revoke_always(self, scope: AlwaysScope | None = None) -> int:
        """Take back one "always" answer (None: all); how many were taken back."""
        ...

    # --- model and instructions ---------------------------------------------------------

    def switch_model(self, model_id: str) -> ModelInfo: ...

    def list_models(self) -> ModelListing: ...

    def reload_project_instructions(self) -> ProjectInstructions: ...

    # --- end ----------------------------------------------------------------------------

    def close(self) -> None:
        """Release the transcript; raises a typed error if held results are lost."""
        ...
