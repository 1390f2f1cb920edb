"""Memory store: per-workspace durable state, atomic saves, damaged files kept not erased."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from agent_cli.durable import (
    DurableContextState,
    DurableFact,
    PendingItem,
    PendingStatus,
    RetrievalEvidence,
    transition_pending,
)
from agent_cli.errors import (
    InvalidStoreInput,
    MemoryFileDamaged,
    MemoryWriteFailed,
    StateDirUnavailable,
)
from agent_cli.store.fsutil import FileOps
from agent_cli.store.memory import MemoryStore

POINTER = "transcript:s1:3"


class FullDiskOps(FileOps):
    def write(self, fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def sample_state() -> DurableContextState:
    state = DurableContextState(
        facts=(
            DurableFact(
                "f1", "The build uses make — not ninja", POINTER, "2026-12-02T10:00:00+00:00"
            ),
        ),
        pending_items=(
            PendingItem("p1", "Fix the flaky test", POINTER, "2026-12-02T10:00:00+00:00"),
        ),
        retrieval_evidence=(
            RetrievalEvidence(
                "m1", "doc-7", "doc", "Build notes", "2026-12-02T09:00:00+00:00", 0.75, 1, "build"
            ),
        ),
    )
    return transition_pending(
        state,
        "p1",
        PendingStatus.BLOCKED,
        "2026-12-02T11:00:00+00:00",
        "transcript:s1:9",
        reason="waiting for CI",
    )


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "memory")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def test_a_workspace_without_memory_loads_an_empty_state(
    store: MemoryStore, workspace: Path
) -> None:
    assert store.load(workspace) == DurableContextState()
    assert not store.root.exists()


def test_a_saved_state_loads_back_equal(store: MemoryStore, workspace: Path) -> None:
    store.save(workspace, sample_state())
    assert store.load(workspace) == sample_state()


def test_the_file_is_named_by_the_workspace_and_carries_the_schema_version(
    store: MemoryStore, workspace: Path
) -> None:
    path = store.save(workspace, sample_state())
    resolved = str(workspace.resolve())
    assert path == store.root / f"{hashlib.sha256(resolved.encode()).hexdigest()[:16]}.json"
    document = json.loads(path.read_text("utf-8"))
    assert document["schema_version"] == 1
    assert document["workspace"] == resolved
    assert document["state"]["facts"][0]["content"] == "The build uses make — not ninja"


def test_every_spelling_of_a_workspace_maps_to_one_file(
    store: MemoryStore, workspace: Path, tmp_path: Path
) -> None:
    alias = tmp_path / "alias"
    os.symlink(workspace, alias)
    store.save(alias, sample_state())
    assert store.load(workspace / ".." / "project") == sample_state()
    assert store.path_for(alias) == store.path_for(workspace)


def test_workspaces_do_not_share_memory(
    store: MemoryStore, workspace: Path, tmp_path: Path
) -> None:
    store.save(workspace, sample_state())
    other = tmp_path / "other"
    other.mkdir()
    assert store.load(other) == DurableContextState()


def test_saving_replaces_the_previous_state(store: MemoryStore, workspace: Path) -> None:
    store.save(workspace, sample_state())
    store.save(workspace, DurableContextState())
    assert store.load(workspace) == DurableContextState()
    assert os.listdir(store.root) == [store.path_for(workspace).name]


def test_memory_files_are_0600_in_a_0700_folder(store: MemoryStore, workspace: Path) -> None:
    previous = os.umask(0)
    try:
        path = store.save(workspace, sample_state())
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.root).st_mode) == 0o700


def test_a_failed_save_keeps_the_previous_file(tmp_path: Path, workspace: Path) -> None:
    MemoryStore(tmp_path / "memory").save(workspace, sample_state())
    failing = MemoryStore(tmp_path / "memory", fs=FullDiskOps())
    with pytest.raises(MemoryWriteFailed) as caught:
        failing.save(workspace, DurableContextState())
    assert caught.value.errno_name == "ENOSPC"
    assert failing.load(workspace) == sample_state()
    assert os.listdir(tmp_path / "memory") == [failing.path_for(workspace).name]


def test_saving_something_that_is_not_a_state_is_refused(
    store: MemoryStore, workspace: Path
) -> None:
    with pytest.raises(InvalidStoreInput):
        store.save(workspace, {"facts": []})  # type: ignore[arg-type]


def envelope(workspace: Path, state: object, version: object = 1) -> bytes:
    return json.dumps(
        {"schema_version": version, "workspace": str(workspace.resolve()), "state": state}
    ).encode()


def damaged_cases(workspace: Path) -> list[tuple[bytes, str]]:
    fact = {
        "fact_id": "f1",
        "content": "x",
        "source_pointer": POINTER,
        "last_confirmed_at": "2026-12-02T10:00:00",
    }
    return [
        (b"{not json", "invalid_json"),
        (b"", "invalid_json"),
        (b"\xff\xfe", "invalid_utf8"),
        (b"[]", "not_an_object"),
        (envelope(workspace, {}, version=2), "bad_schema_version"),
        (envelope(workspace, {}, version="1"), "bad_schema_version"),
        (envelope(workspace, {}, version=None), "bad_schema_version"),
        (
            json.dumps({"schema_version": 1, "workspace": "/elsewhere", "state": {}}).encode(),
            "workspace_mismatch",
        ),
        (
            json.dumps({"schema_version": 1, "workspace": str(workspace.resolve())}).encode(),
            "missing_state",
        ),
        (envelope(workspace, {"facts": [fact]}), "bad_state:last_confirmed_at:no_time_zone"),
        (envelope(workspace, {"surprise": []}), "bad_state:state:unknown_key"),
    ]


def test_a_damaged_file_is_reported_kept_aside_and_never_erased(
    store: MemoryStore, workspace: Path
) -> None:
    for raw, reason in damaged_cases(workspace):
        path = store.path_for(workspace)
        store.root.mkdir(exist_ok=True)
        path.write_bytes(raw)
        with pytest.raises(MemoryFileDamaged) as caught:
            store.load(workspace)
        assert caught.value.reason.startswith(reason), (raw, caught.value.reason)
        assert caught.value.path == str(path)
        kept = Path(caught.value.kept_at)
        assert kept.read_bytes() == raw and kept.name.startswith(f"{path.name}.damaged-")
        assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
        assert path.read_bytes() == raw


def test_loading_a_damaged_file_again_still_refuses_and_reuses_its_copy(
    store: MemoryStore, workspace: Path
) -> None:
    store.root.mkdir()
    store.path_for(workspace).write_bytes(b"{broken")
    kept = []
    for _ in range(3):
        with pytest.raises(MemoryFileDamaged) as caught:
            store.load(workspace)
        kept.append(caught.value.kept_at)
    assert len(set(kept)) == 1
    store.path_for(workspace).write_bytes(b"{broken differently")
    with pytest.raises(MemoryFileDamaged) as caught:
        store.load(workspace)
    assert caught.value.kept_at.endswith(".damaged-2")


def test_a_damaged_file_is_reported_even_when_no_copy_can_be_written(
    tmp_path: Path, workspace: Path
) -> None:
    store = MemoryStore(tmp_path / "memory", fs=FullDiskOps())
    store.root.mkdir()
    store.path_for(workspace).write_bytes(b"{broken")
    with pytest.raises(MemoryFileDamaged) as caught:
        store.load(workspace)
    assert caught.value.kept_at is None
    assert store.path_for(workspace).read_bytes() == b"{broken"
    assert os.listdir(store.root) == [store.path_for(workspace).name]


def test_a_symlinked_memory_file_is_damage_and_its_target_is_untouched(
    store: MemoryStore, workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target.json"
    target.write_bytes(envelope(workspace, {}))
    store.root.mkdir()
    os.symlink(target, store.path_for(workspace))
    with pytest.raises(MemoryFileDamaged) as caught:
        store.load(workspace)
    assert caught.value.reason == "symlink"
    assert target.read_bytes() == envelope(workspace, {})


def test_a_folder_at_the_memory_path_is_reported_not_a_file(
    store: MemoryStore, workspace: Path
) -> None:
    store.root.mkdir()
    store.path_for(workspace).mkdir()
    with pytest.raises(MemoryFileDamaged) as caught:
        store.load(workspace)
    assert (caught.value.reason, caught.value.kept_at) == ("not_a_file", None)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_memory_file_is_unavailable_not_damaged(
    store: MemoryStore, workspace: Path
) -> None:
    store.save(workspace, sample_state())
    store.path_for(workspace).chmod(0)
    with pytest.raises(StateDirUnavailable) as caught:
        store.load(workspace)
    assert caught.value.reason == "EACCES"


class RefusingOpenOps(FileOps):
    """Opening refused (EACCES), as a chmod 0 does for a user who is not root."""

    def open(self, path: Path, flags: int, mode: int = 0o777) -> int:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))


def test_a_memory_file_the_process_may_not_open_is_unavailable_not_damaged(
    store: MemoryStore, workspace: Path
) -> None:
    path = store.save(workspace, sample_state())
    before = path.read_bytes()
    with pytest.raises(StateDirUnavailable) as caught:
        MemoryStore(store.root, fs=RefusingOpenOps()).load(workspace)
    assert caught.value.reason == "EACCES"
    assert path.read_bytes() == before
    assert sorted(p.name for p in store.root.iterdir()) == [path.name]  # no copy kept aside
