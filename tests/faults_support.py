"""Helpers for the fault tests: a disk that fills up, history snapshots, Ctrl-C drivers.

Everything here reaches the code under test through the parameters it already offers
(`open_session(transcript_fs=..., artifact_fs=...)`, providers, toolboxes): nothing is
patched. The checks are the promises of issue 6: after a fault the view and the
transcript hold what they held before, the history is one the API accepts, and the
session goes on.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from session_support import FakeToolbox

from agent_cli.events import ModelResponse, Notice, TurnEnded, Usage
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.wire import build_wire_request
from agent_cli.session.log import rebuild_from_records
from agent_cli.store.fsutil import FileOps
from agent_cli.store.transcript import TranscriptStore


class FillableDisk(FileOps):
    """Real file operations on a disk that can be made full, wholly or for some writes.

    `fill(room=n)`: from now on the writes that match (every write, or those whose bytes
    contain `when`) share `n` more bytes of room: a write gets what room is left (a short
    write, real bytes on disk, as a filling disk gives), and once none is left it fails
    with ENOSPC. `free()` gives the space back.
    """

    def __init__(self) -> None:
        self.is_full = False
        self.when: bytes | None = None
        self.room = 0
        self.refused_writes = 0

    def fill(self, *, when: bytes | None = None, room: int = 0) -> None:
        self.is_full, self.when, self.room = True, when, room

    def free(self) -> None:
        self.is_full = False

    def write(self, fd: int, data: bytes) -> int:
        if not self.is_full or (self.when is not None and self.when not in data):
            return os.write(fd, data)
        self.refused_writes += 1
        if self.room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = os.write(fd, data[: self.room])
        self.room -= written
        return written


@dataclass(frozen=True)
class Snapshot:
    """What a session holds: its view and the raw lines of its transcript."""

    view: list[dict[str, Any]]
    transcript_lines: list[bytes]


def take_snapshot(session: Any) -> Snapshot:
    with open(session.transcript_path, "rb") as handle:
        lines = handle.read().splitlines(keepends=True)
    return Snapshot(list(session.view), lines)


def replayed_view(session: Any) -> list[dict[str, Any]]:
    """The view the transcript on disk rebuilds (what a resume would start from)."""
    store = TranscriptStore(os.path.dirname(session.transcript_path))
    return rebuild_from_records(store.replay(session.session_id)).view


def assert_history_is_valid(session: Any) -> None:
    """The view pairs every tool call, the wire builder accepts it, and the transcript
    on disk replays (every line a whole record) into exactly the same view."""
    validate_tool_protocol(session.view)
    if session.view:
        build_wire_request(build_probe_request(session.view), "probe-model")
    assert replayed_view(session) == session.view


def build_probe_request(view: list[dict[str, Any]]) -> Any:
    from agent_cli.events import ModelRequest

    messages = list(view)
    if messages[-1].get("role") == "assistant":
        messages.append({"role": "user", "content": "probe"})
    return ModelRequest(system="probe", durable_context="", messages=tuple(messages), tools=())


def drain_or_fail(events: Iterator[Any]) -> list[Any]:
    """All events of a turn; a KeyboardInterrupt that escapes the session fails the test
    (instead of stopping the whole test run, as an escaped Ctrl-C would)."""
    collected: list[Any] = []
    try:
        for event in events:
            collected.append(event)
    except KeyboardInterrupt:
        pytest.fail(f"Ctrl-C escaped the session after {collected!r}")
    return collected


def notices(events: list[Any], code: str | None = None) -> list[Notice]:
    return [e for e in events if isinstance(e, Notice) and (code is None or e.code == code)]


def turn_end(events: list[Any]) -> TurnEnded:
    ended = [e for e in events if isinstance(e, TurnEnded)]
    assert ended, f"the turn never ended: {events!r}"
    return ended[-1]


@dataclass
class InterruptedRun:
    """What a consumer saw when it threw Ctrl-C into a turn at one of its events."""

    events: list[Any]
    interrupted_at: Any
    escaped: bool


def drive_with_interrupt(turn: Iterator[Any], at_index: int) -> InterruptedRun:
    """Consume `turn` like the REPL does, throwing KeyboardInterrupt into the generator
    when event number `at_index` has been received (Ctrl-C while it was being shown);
    then keep draining what the session yields for its clean-up."""
    events: list[Any] = []
    target = None
    for index, event in enumerate(turn):
        events.append(event)
        if index == at_index:
            target = event
            break
    if target is None:
        return InterruptedRun(events, None, escaped=False)
    try:
        events.append(turn.throw(KeyboardInterrupt()))  # type: ignore[attr-defined]
        events.extend(turn)
    except StopIteration:
        pass
    except KeyboardInterrupt:
        turn.close()  # type: ignore[attr-defined]
        return InterruptedRun(events, target, escaped=True)
    return InterruptedRun(events, target, escaped=False)


class InterruptingToolbox(FakeToolbox):
    """A toolbox whose tools are interrupted by Ctrl-C the moment they start."""

    def __init__(self, schemas: list[dict[str, Any]] | None = None) -> None:
        super().__init__(schemas)
        self.calls: list[str] = []

    def run(self, name: str, tool_input: dict[str, Any]) -> Any:
        self.calls.append(name)
        raise KeyboardInterrupt


class HangingProvider:
    """A provider whose requests never answer until `release` is set (by the test's end)."""

    name, model, context_window = "hanging", "hanging-1", 200_000

    def __init__(self) -> None:
        self.release = threading.Event()
        self.requests = 0

    def prepare(self) -> None:
        """Nothing to build: the hang is in `stream`."""

    def build_summarizer(self, focus: str | None = None) -> None:
        """None: a request never answers, so no summary is asked for."""
        return None

    def list_models(self, timeout_seconds: float) -> None:
        return None

    def stream(self, request: Any) -> Iterator[Any]:
        self.requests += 1
        self.release.wait(30)
        yield ModelResponse({"role": "assistant", "content": []}, "end_turn", Usage())
