"""Helpers for the tool tests: an in-memory artifact store, a recording asker, process checks.

The fake store has the shape the toolbox relies on (`put` -> ref with `.pointer`,
`read_range`), content-addressed like the real one, so the tests exercise the toolbox
rather than the store.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from agent_cli.errors import ArtifactWriteFailed, StoreError
from agent_cli.tools import PermissionDecision, PermissionRequest, Toolbox


@dataclass(frozen=True)
class FakeArtifactRef:
    pointer: str
    name: str
    size: int


class FakeArtifactStore:
    """Keeps artifacts in a dict; unknown pointers raise a `StoreError`."""

    def __init__(self) -> None:
        self.saved: dict[str, bytes] = {}

    def put(self, session_id: str, data: bytes, suffix: str = ".txt") -> FakeArtifactRef:
        digest = hashlib.sha256(data).hexdigest()
        name = f"{digest[:16]}{suffix}"
        pointer = f"artifact:{session_id}:{name}:{digest}"
        self.saved[pointer] = bytes(data)
        return FakeArtifactRef(pointer, name, len(data))

    def read_range(self, pointer: str, offset: int = 0, limit: int = 65_536) -> bytes:
        if pointer not in self.saved:
            raise StoreError(f"no artifact {pointer}")
        return self.saved[pointer][offset : offset + limit]


class FailingArtifactStore(FakeArtifactStore):
    """Every write fails the way a full disk would."""

    def put(self, session_id: str, data: bytes, suffix: str = ".txt") -> FakeArtifactRef:
        raise ArtifactWriteFailed("output.txt", "ENOSPC")


class BrokenArtifactStore(FakeArtifactStore):
    """Reading raises something no tool expects, to prove run() still answers."""

    def read_range(self, pointer: str, offset: int = 0, limit: int = 65_536) -> bytes:
        raise RuntimeError("disk controller on fire")


class RecordingAsker:
    """Answers every permission request with `decision` and remembers the requests."""

    def __init__(self, decision: PermissionDecision) -> None:
        self.decision = decision
        self.requests: list[PermissionRequest] = []

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.requests.append(request)
        return self.decision


def make_toolbox(workspace: Path, **options) -> Toolbox:
    """A toolbox on a fake store that runs everything unless options say otherwise."""
    options.setdefault("auto_approve", True)
    artifacts = options.pop("artifacts", None) or FakeArtifactStore()
    return Toolbox(workspace, artifacts, "session-1", **options)


def is_process_running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (PID 1 here may never reap orphans)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
