"""Small hand-made stand-ins for the session API, for the REPL's tests.

`FakeSession` implements the REPL's port (`agent_cli.repl.port.SessionPort`, checked by
tests/test_repl_port.py) with small real behaviour instead of a model, and records what
the REPL asked of it, so tests can check the REPL's side of the seam alone.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from agent_cli.compaction import CompactionPolicy
from agent_cli.durable import DurableContextState, DurableFact, ItemsElsewhere, PendingItem
from agent_cli.errors import (
    ArtifactUnavailable,
    DurableItemNotFound,
    ModelSwitchRefused,
    PendingTransitionError,
    SessionNotFound,
)
from agent_cli.events import (
    AssistantDone,
    AssistantText,
    CompactionRecord,
    ContextPreview,
    Gauge,
    Notice,
    SessionEvent,
    SessionStats,
    StreamRestarted,
    ToolFinished,
    ToolStarted,
    TurnEnded,
    Usage,
)
from agent_cli.models import MODEL_TABLE, ModelInfo, lookup_model
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.session.catalog import Call, Exchange, SessionSummary
from agent_cli.session.instructions import ProjectInstructions
from agent_cli.session.model_choice import ListedModel, ModelListing
from agent_cli.sources import SourceResolution

# The tools a real session offers the model (every request form the offline model knows).
TOOL_NAMES = frozenset(
    {"read_file", "list_dir", "grep", "bash", "write_file", "edit_file", "read_artifact", "recall"}
)
CONFIRMED_AT = "2026-12-02T15:00:00+00:00"


def make_console(width: int = 100) -> Console:
    """A fixed-width, colourless console that records what it prints."""
    return Console(
        file=io.StringIO(),
        width=width,
        record=True,
        force_terminal=False,
        color_system=None,
    )


def make_stats(**changes: Any) -> SessionStats:
    values: dict[str, Any] = dict(
        provider="offline",
        model="offline-demo",
        context_window=200_000,
        soft_threshold=80_000,
        hard_limit=120_000,
        tokens_by_category={
            "system_prompt": 1_200,
            "durable_context": 300,
            "tool_schemas": 2_500,
            "user_text": 4_000,
            "assistant_text": 3_000,
            "tool_calls": 345,
            "tool_results": 1_000,
        },
        total_tokens=12_345,
        context_tokens=13_950,  # total x calibration 1.13
        messages_in_view=12,
        messages_in_transcript=40,
        interactions_in_view=3,
        interactions_in_transcript=10,
        estimator="tiktoken cl100k_base (offline)",
        calibration=1.13,
        last_usage=Usage(
            input_tokens=900,
            output_tokens=250,
            cache_creation_input_tokens=1_100,
            cache_read_input_tokens=10_000,
        ),
        total_usage=Usage(
            input_tokens=5_000,
            output_tokens=2_000,
            cache_creation_input_tokens=3_000,
            cache_read_input_tokens=40_000,
        ),
        requests=7,
        compactions=(
            CompactionRecord(
                at="2026-12-02T15:00:41+00:00",
                layers=("L1", "L2", "L3"),
                tokens_before=91_204,
                tokens_after=41_000,
            ),
            CompactionRecord(
                at="2026-12-02T15:30:00+00:00",
                layers=("L4",),
                tokens_before=85_000,
                tokens_after=20_000,
                forced=True,
            ),
        ),
        source_statuses={"available": 3, "missing": 1, "denied": 0, "corrupt": 2},
        session_id="20261202-150000-abcd",
        transcript_path="/state/transcripts/20261202-150000-abcd.jsonl",
        context_free=200_000 - 13_950,  # the window less the context figure
    )
    values.update(changes)
    return SessionStats(**values)


def answer(text: str, outcome: str = "ok") -> list[Any]:
    """The events of a simple turn that streams `text` in two pieces."""
    half = len(text) // 2
    return [
        AssistantText(text[:half]),
        AssistantText(text[half:]),
        AssistantDone(text=text, stop_reason="end_turn"),
        TurnEnded(outcome=outcome, stop_reason="end_turn", steps=1),
    ]


@dataclass
class FakeProvider:
    """Which provider and model a fake session names; counts the `prepare` calls."""

    name: str = "offline"
    model: str = "offline-demo"
    prepared: int = 0

    def prepare(self) -> None:
        self.prepared += 1


@dataclass
class FakeSession:
    """A session whose turns replay scripted events; it records every call."""

    session_id: str = "s-1"
    provider: Any = field(default_factory=FakeProvider)
    workspace: Path = Path("/work/project")
    script: Callable[[str], list[Any]] = lambda text: answer(f"echo: {text}")
    compact_script: list[Any] = field(default_factory=list)
    stats_value: SessionStats = field(default_factory=make_stats)
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    closed: bool = False
    durable_state: Any = field(default_factory=DurableContextState)
    resolutions: tuple[Any, ...] = ()
    mcp_views: tuple[Any, ...] = ()
    expansions: dict[str, Any] = field(default_factory=dict)
    stored_outputs: dict[str, str] = field(default_factory=dict)  # artifact pointer -> text
    summary_text: str | None = None
    durable_tokens: int = 300  # what `durable_block_tokens` reports
    policy: CompactionPolicy = field(default_factory=CompactionPolicy)
    policy_as_set: CompactionPolicy = field(default_factory=CompactionPolicy)
    project_instructions: ProjectInstructions = field(default_factory=ProjectInstructions)
    tool_names: frozenset[str] = TOOL_NAMES
    startup_notices: list[Notice] = field(default_factory=list)
    tool_output_watcher: Callable[[bytes], None] | None = None
    request_watcher: Callable[[], None] | None = None
    summary_watcher: Callable[[], None] | None = None
    summary_retry_watcher: Callable[[StreamRestarted], None] | None = None
    exchanges: list[Exchange] = field(default_factory=list)  # what its turns asked and got
    recorded_tool_result: ToolFinished | None = None  # the transcript's newest, for /last
    always_scopes: list[Any] = field(default_factory=list)  # the "always" answers in force
    # this session's items kept for other folders (`earlier_durable`)
    earlier_items: tuple[ItemsElsewhere, ...] = ()
    learn_script: list[Any] = field(default_factory=list)  # what a dotenv check yields
    known_secrets: tuple[str, ...] = ()  # what `redact_known_secrets` hides

    @property
    def transcript_path(self) -> str:
        return f"/state/transcripts/{self.session_id}.jsonl"

    def run_turn(self, text: str) -> Iterator[SessionEvent]:
        self.calls.append(("run_turn", text))
        answers: list[str] = []
        calls: list[Call] = []
        for event in self.script(text):
            if isinstance(event, AssistantDone):
                answers.append(event.text)
            elif isinstance(event, ToolStarted):
                calls.append(Call(event.name, "ran"))
            yield event
        self.exchanges.append(Exchange(text, "".join(answers), tuple(calls)))

    def compact_now(self, focus: str | None = None) -> Iterator[SessionEvent]:
        self.calls.append(("compact_now", focus))
        yield from self.compact_script

    def watch_tool_output(self, watcher: Callable[[bytes], None] | None) -> None:
        self.tool_output_watcher = watcher

    def watch_model_requests(self, watcher: Callable[[], None] | None) -> None:
        self.request_watcher = watcher

    def watch_summary_requests(self, watcher: Callable[[], None] | None) -> None:
        self.summary_watcher = watcher

    def watch_summary_retries(self, watcher: Callable[[StreamRestarted], None] | None) -> None:
        self.summary_retry_watcher = watcher

    def recent_exchanges(self, limit: int = 3) -> list[Exchange]:
        return self.exchanges[-limit:] if limit > 0 else []

    def last_recorded_tool_result(self) -> ToolFinished | None:
        return self.recorded_tool_result

    def learn_dotenv_changes(self) -> Iterator[SessionEvent]:
        self.calls.append(("learn_dotenv_changes",))
        yield from self.learn_script

    def redact_known_secrets(self, text: str) -> str:
        for secret in self.known_secrets:
            text = text.replace(secret, REDACTED_MARK)
        return text

    def stats(self) -> SessionStats:
        return self.stats_value

    def gauge(self) -> Gauge:
        self.calls.append(("gauge",))
        return Gauge(
            tokens=12_345,
            soft_threshold=80_000,
            hard_limit=120_000,
            estimator="tiktoken cl100k_base (offline)",
        )

    def context_preview(self) -> ContextPreview:
        return ContextPreview(
            system_prompt="You are agent-cli.\nMore rules.",
            durable_context="facts:\n- F1 uses SQLite WAL",
            message_lines=("user: hello", "assistant: hi there"),
        )

    def durable_block_tokens(self) -> int:
        return self.durable_tokens

    def remember(self, text: str) -> DurableFact:
        self.calls.append(("remember", text))
        return DurableFact("F1", text, f"transcript:{self.session_id}:3", CONFIRMED_AT)

    def add_pending(self, text: str) -> PendingItem:
        self.calls.append(("add_pending", text))
        return PendingItem("P1", text, f"transcript:{self.session_id}:4", CONFIRMED_AT)

    def mark_done(self, item_id: str) -> None:
        self.calls.append(("mark_done", item_id))
        if item_id not in ("P1", "T1"):
            raise PendingTransitionError("item_id", "unknown_item", item_id=item_id)

    def mark_blocked(self, item_id: str, reason: str) -> None:
        self.calls.append(("mark_blocked", item_id, reason))

    def forget(self, item_id: str) -> None:
        self.calls.append(("forget", item_id))
        if item_id not in ("F1", "P1", "T1"):
            raise DurableItemNotFound(item_id)

    def resolve_sources(self) -> tuple[SourceResolution, ...]:
        self.calls.append(("resolve_sources",))
        return self.resolutions

    def earlier_durable(self) -> tuple[ItemsElsewhere, ...]:
        return self.earlier_items

    def bring_earlier_durable(self) -> tuple[ItemsElsewhere, ...]:
        """Copies every folder's items without clashes; those with clashes stay."""
        self.calls.append(("bring_earlier_durable",))
        found = self.earlier_items
        self.earlier_items = tuple(one for one in found if one.clashes)
        return found

    def last_summary(self) -> str | None:
        self.calls.append(("last_summary",))
        return self.summary_text

    def start_mcp(self) -> None:
        self.calls.append(("start_mcp",))

    def mcp_servers(self) -> tuple[Any, ...]:
        return self.mcp_views

    def restart_mcp(self, name: str) -> bool:
        self.calls.append(("restart_mcp", name))
        return any(view.name == name for view in self.mcp_views)

    def always_allowed(self) -> tuple[Any, ...]:
        return tuple(self.always_scopes)

    def revoke_always(self, scope: Any = None) -> int:
        self.calls.append(("revoke_always", scope))
        kept = [s for s in self.always_scopes if scope is not None and s != scope]
        taken = len(self.always_scopes) - len(kept)
        self.always_scopes[:] = kept
        return taken

    def expand(self, pointer: str) -> SourceResolution:
        self.calls.append(("expand", pointer))
        resolution: SourceResolution = self.expansions[pointer]
        return resolution

    def read_tool_output(self, pointer: str) -> str:
        self.calls.append(("read_tool_output", pointer))
        if pointer not in self.stored_outputs:
            raise ArtifactUnavailable("missing")
        return self.stored_outputs[pointer]

    def switch_model(self, model_id: str) -> ModelInfo:
        """Like the real session: the offline model cannot switch, others can."""
        self.calls.append(("switch_model", model_id))
        if self.provider.name == "offline":
            raise ModelSwitchRefused("offline")
        self.provider.model = model_id
        return lookup_model(model_id)

    def list_models(self) -> ModelListing:
        """The model table, as a real session lists it when the Models API is not used."""
        listed = tuple(
            ListedModel(info.model_id, info.display_name, None, info.prices is not None)
            for info in MODEL_TABLE
        )
        return ModelListing(listed, "table")

    def reload_project_instructions(self) -> ProjectInstructions:
        self.calls.append(("reload_project_instructions",))
        return self.project_instructions

    def close(self) -> None:
        self.closed = True


def listed_session(
    session_id: str, modified_at: str = "2026-12-02T15:00:00+00:00"
) -> SessionSummary:
    """How a saved session shows in `/sessions`: no request typed yet."""
    return SessionSummary(
        session_id=session_id,
        modified_at=datetime.fromisoformat(modified_at),
        workspace="/work/project",
        first_request=None,
        turns=0,
        answered_turns=0,
        tokens=0,
    )


@dataclass
class FakeBackend:
    """Opens `FakeSession`s; known ids can be resumed, others raise SessionNotFound."""

    known: dict[str, FakeSession] = field(default_factory=dict)
    latest: str | None = None
    opened: list[FakeSession] = field(default_factory=list)
    resume_requests: list[str | None] = field(default_factory=list)
    new_session: Callable[[int], FakeSession] = lambda n: FakeSession(session_id=f"new-{n}")
    permission_asker: Any = None
    settings: Any = None

    def factory(self, settings: Any, ask_permission: Any) -> Any:
        """Stands in for `wiring.build_backend`, keeping what main handed it."""
        from agent_cli.repl.wiring import SessionBackend

        self.settings, self.permission_asker = settings, ask_permission
        return SessionBackend(
            open_session=self.open_session,
            list_sessions=lambda this_workspace_only=False: [
                listed_session(sid) for sid in self.known
            ],
            latest_session_id=lambda: self.latest,
        )

    def open_session(self, resume: str | None) -> FakeSession:
        self.resume_requests.append(resume)
        if resume is None:
            session = self.new_session(len(self.opened) + 1)
        elif resume in self.known:
            session = self.known[resume]
        else:
            raise SessionNotFound(resume)
        self.opened.append(session)
        return session
