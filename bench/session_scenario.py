"""The scripted long session the cost bench prices: 60 turns through a real `Session`.

Turn k asks "read src/module_NN.py and count its functions" for file k mod 30 (so every
file is read twice, 30 turns apart) on the offline demo model, whose summarizer is the
extractive one; every `fact_every`-th turn also stores a durable fact (`/remember`). The
files are Python modules of small functions; `sizes` sets how many (see `FILE_SIZES`).
Real transcript, artifacts, tools and files on disk in a temporary folder. Each run keeps
every request the session sent, which requests followed a firing, and its last request
as the wire carries it, for `bench_session_cost` to price.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

from agent_cli.compaction import CompactionPolicy
from agent_cli.events import CompactionFired, ModelRequest
from agent_cli.provider.offline import OFFLINE_CONTEXT_WINDOW, OfflineProvider
from agent_cli.provider.wire import build_wire_request
from agent_cli.session import open_session
from agent_cli.store.paths import resolve_state_paths

TURNS = 60
FILES = 30
FACT_EVERY = 6
FUNCTIONS_MIN, FUNCTIONS_SPREAD = 10, 31
FILE_SIZES = ((10, 9), (30, 13), (45, 17))  # (fewest functions, spread): ~0.9K, 2.2K, 3.3K tokens
# The issue's own scenario: its figures (the old policy left 5 of the 60 requests in a
# 20,000-token view) put a turn at 3K to 4K tokens, and it stores no durable facts.
ISSUE_SIZES = FILE_SIZES[-1]
SOFT, HARD = 20_000, 60_000
POLICIES = {
    "low water": CompactionPolicy(soft_threshold=SOFT, hard_limit=HARD),
    "stop under soft": CompactionPolicy(soft_threshold=SOFT, hard_limit=HARD, low_water=SOFT - 1),
    "no compaction": CompactionPolicy(soft_threshold=10**9, hard_limit=2 * 10**9),
}
# Every run of a scenario is the same session: the moment its id, records and durable facts
# carry, and its id's random digits, are fixed. Their token counts move the turn at which
# a threshold is crossed, so a new id and a new time each run made the figures wander
# (64 or 66 pointers, costs +-0.002).
SESSION_MOMENT = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)
SESSION_DIGITS = "5e55e0"
POINTER = re.compile(r"transcript:[A-Za-z0-9][A-Za-z0-9._-]*:\d+")


class RecordingProvider(OfflineProvider):
    """The offline model, keeping every request the session sends it; with `summarize`
    False it offers no summarizer, so compaction runs L1, L2 and L3 only (the seed's
    layers before L4, each run stopping at the first that gets under its target)."""

    def __init__(
        self, summarize: bool = True, context_window: int = OFFLINE_CONTEXT_WINDOW
    ) -> None:
        self.requests: list[ModelRequest] = []
        self.summarize = summarize
        self.context_window = context_window

    def stream(self, request: ModelRequest) -> Any:
        self.requests.append(request)
        return super().stream(request)

    def build_summarizer(self, focus: str | None = None) -> Any:
        return super().build_summarizer(focus) if self.summarize else None


@dataclass
class SessionRun:
    """One scripted session's requests, what it compacted, and its last request."""

    requests: list[ModelRequest]
    compactions: int
    last_wire: dict[str, Any]
    pointers: tuple[int, int]  # (resolving, carried) transcript pointers in the last request
    prompts: list[str] = field(default_factory=list)
    after_firing: set[int] = field(default_factory=set)  # requests sent right after one


def build_file(
    number: int, functions_min: int = FUNCTIONS_MIN, spread: int = FUNCTIONS_SPREAD
) -> str:
    """A Python module of `functions_min` to `functions_min + spread - 1` small functions
    (see the module doc for its size)."""
    functions = functions_min + (number * 7) % spread
    parts = [f'"""Module {number}: helpers for stage {number}."""\n\nimport math\n']
    for index in range(functions):
        parts.append(
            f"\n\ndef stage_{number}_step_{index}(values, scale={index + 1}):\n"
            f'    """Scale and clip the values of step {index} (stage {number})."""\n'
            f"    limit = math.sqrt(len(values) + {index})\n"
            "    return [min(value * scale, limit) for value in values if value is not None]\n"
        )
    return "".join(parts)


def write_workspace(root: Path, sizes: tuple[int, int]) -> list[str]:
    (root / "src").mkdir(parents=True)
    names = []
    for number in range(FILES):
        name = f"src/module_{number:02d}.py"
        (root / name).write_text(build_file(number, *sizes), encoding="utf-8")
        names.append(name)
    return names


@contextmanager
def _fixed_session_id() -> Iterator[None]:
    """New session ids end in `SESSION_DIGITS` instead of random ones."""
    from agent_cli.store import records

    def build(now: datetime, random_hex: str | None = None) -> str:
        return records.build_session_id(now, SESSION_DIGITS)

    with mock.patch("agent_cli.store.transcript.build_session_id", build):
        yield


def run_session(
    policy: CompactionPolicy,
    folder: Path,
    cycle: int = FILES,
    sizes: tuple[int, int] = (FUNCTIONS_MIN, FUNCTIONS_SPREAD),
    fact_every: int | None = FACT_EVERY,
    summarize: bool = True,
) -> SessionRun:
    """Drive the 60 turns through a real session; see the module doc. `fact_every`: a
    durable fact every that many turns (None: never)."""
    files = write_workspace(folder / "ws", sizes)
    # "no compaction" is the session as if no window bounded it (the price it is weighed
    # against): a window of its own, or the session fits its thresholds to the model's
    provider = RecordingProvider(summarize, max(OFFLINE_CONTEXT_WINDOW, 2 * policy.hard_limit))
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(folder / "home")})
    with _fixed_session_id():
        session = open_session(
            paths=paths,
            provider=provider,
            workspace=folder / "ws",
            policy=policy,
            auto_approve=True,
            clock=lambda: SESSION_MOMENT,
        )
    compactions, prompts, after_firing = 0, [], set()
    for turn in range(TURNS):
        prompts.append(f"read {files[turn % cycle]} and count its functions ({turn + 1}/{TURNS})")
        for event in session.run_turn(prompts[-1]):
            if isinstance(event, CompactionFired):
                compactions += 1
                after_firing.add(len(provider.requests))
        if fact_every and turn % fact_every == fact_every - 1:
            session.remember(f"Turn {turn + 1}: the modules are counted one by one.")
    last_wire = build_wire_request(provider.requests[-1], "bench-model")
    carried = set(POINTER.findall(json.dumps(last_wire)))
    resolving = sum(session.expand(p).status.value == "available" for p in carried)
    session.close()
    return SessionRun(
        provider.requests, compactions, last_wire, (resolving, len(carried)), prompts, after_firing
    )
