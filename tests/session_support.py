"""Helpers for session tests: a scripted provider, a toolbox to build fakes on, and a
ready-made session on disk. The fakes implement the session's protocols
(`provider.base.Provider`, `tools.toolbox.ToolRunner`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from agent_cli.compaction import CompactionPolicy
from agent_cli.events import ModelRequest, ModelResponse, TextDelta, Usage
from agent_cli.provider.base import PlainSummarizer, ProviderSummarizer, Summarizer
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.session import Session, open_session
from agent_cli.store.paths import resolve_state_paths


class TickingClock:
    """A clock that moves one second per call, so every record has its own moment."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


class ScriptedProvider:
    """A provider that answers from a list of steps; each step is a callable or a reply.

    A reply is a list of content blocks (stop reason `tool_use` when it has a tool_use,
    `end_turn` otherwise). A callable step gets the request and may raise or yield.
    Its summarizer is `summarizer` (a plain function) or, for a test that watches usage
    or the cached prefix, `provider_summarizer`; with neither it offers none.
    """

    name = "scripted"
    model = "scripted-1"
    context_window = 200_000

    def __init__(
        self,
        steps: list[Any] | None = None,
        summarizer: Summarizer | None = None,
        *,
        provider_summarizer: ProviderSummarizer | None = None,
    ) -> None:
        self.steps = list(steps or [])
        self.requests: list[ModelRequest] = []
        if provider_summarizer is None and summarizer is not None:
            provider_summarizer = PlainSummarizer(summarizer)
        self.summarizer = provider_summarizer
        self.summary_focus: list[str | None] = []
        self.prepared = 0

    def prepare(self) -> None:
        """Counts the calls: a scripted provider has no client to build."""
        self.prepared += 1

    def stream(self, request: ModelRequest) -> Iterator[Any]:
        self.requests.append(request)
        step = self.steps.pop(0) if self.steps else [{"type": "text", "text": "ok"}]
        if callable(step):
            yield from step(request)
            return
        for block in step:
            if block["type"] == "text":
                yield TextDelta(block["text"])
        stop = "tool_use" if any(b["type"] == "tool_use" for b in step) else "end_turn"
        yield ModelResponse({"role": "assistant", "content": step}, stop, Usage(0, 0))

    def build_summarizer(self, focus: str | None = None) -> ProviderSummarizer | None:
        self.summary_focus.append(focus)
        return self.summarizer

    def list_models(self, timeout_seconds: float) -> None:
        """None: no Models API (`/model` lists the model table)."""
        return None


class FakeToolbox:
    """A toolbox offering `schemas` and redacting nothing; a test's fake overrides `run`."""

    def __init__(self, schemas: list[dict[str, Any]] | None = None) -> None:
        self._schemas = schemas or []
        self.output_watcher: Callable[[bytes], None] | None = None
        self.question_watcher: Any = None

    @property
    def secret_forms(self) -> SecretForms:
        return NO_SECRETS

    @property
    def redactor(self) -> None:
        return None

    def schemas(self) -> list[dict[str, Any]]:
        return list(self._schemas)

    def run(self, name: str, tool_input: dict[str, Any]) -> Any:
        raise AssertionError(f"{name} was not expected to run")

    def arguments_as_sent(self, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        return tool_input

    def always_allowed(self) -> tuple[Any, ...]:
        return ()

    def revoke_always(self, scope: Any = None) -> int:
        return 0

    def workspace_gone(self) -> None:
        return None


def workspace_with(tmp_path: Path, files: Mapping[str, str] | None = None) -> Path:
    """A fresh workspace folder, `tmp_path/ws`, holding `files` (name -> text)."""
    root = tmp_path / "ws"
    root.mkdir()
    for name, text in (files or {}).items():
        (root / name).write_text(text)
    return root


def tool_use(tool_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def make_session(
    workspace: Path,
    provider: Any,
    *,
    soft: int = 80_000,
    hard: int = 120_000,
    keep_recent: int = 6,
    resume: str | None = None,
    auto_approve: bool = True,
    message_limit: int | None = None,
    **kwargs: Any,
) -> Session:
    """A session on disk. Many tests fill the view with one big user message, so a user
    message is stored as an artifact only over `message_limit` (default: the hard limit,
    i.e. never); pass 0 for the product's default, a quarter of the soft threshold."""
    policy = CompactionPolicy(
        soft_threshold=soft,
        hard_limit=hard,
        keep_recent_messages=keep_recent,
        summary_keep_recent=min(4, keep_recent),
        max_message_tokens=hard if message_limit is None else message_limit,
    )
    return open_session(
        paths=resolve_state_paths(),
        provider=provider,
        workspace=workspace,
        policy=policy,
        auto_approve=auto_approve,
        resume=resume,
        clock=kwargs.pop("clock", TickingClock()),
        **kwargs,
    )


def drain(events: Iterator[Any]) -> list[Any]:
    return list(events)


def transcript_records(session: Session) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in Path(session.transcript_path).read_text().splitlines()]


def plain(messages: Any) -> list[dict[str, Any]]:
    """Messages without their private bookkeeping keys (`_source`, `_digest`, and the
    token counts a message or block carries, `_tokens`): what the transcript records
    and what the wire builder keeps."""
    return [_public(m) for m in messages]


def _public(message: Any) -> dict[str, Any]:
    kept = {k: v for k, v in dict(message).items() if not k.startswith("_")}
    if isinstance(kept.get("content"), list):
        kept["content"] = [
            {k: v for k, v in dict(b).items() if not k.startswith("_")}
            if isinstance(b, dict)
            else b
            for b in kept["content"]
        ]
    return kept
