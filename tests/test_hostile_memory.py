"""Damaged durable-memory files: loaded exactly, or refused with the damaged copy kept.

`MemoryStore.load` over fuzzed files (random bytes, cuts, wrong types anywhere in the
document, NUL bytes, invalid UTF-8, deep nesting, huge strings) either returns the very
state the document describes or raises `MemoryFileDamaged` with a byte-for-byte copy
kept aside; it never raises anything else and never answers with a silently empty
state. A session opened over a damaged file says so and keeps the copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compaction_support import make_counter
from hostile_support import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st
from session_support import ScriptedProvider, make_session

from agent_cli.durable import (
    DurableContextState,
    DurableFact,
    PendingItem,
    PendingStatus,
    state_from_dict,
)
from agent_cli.errors import MemoryFileDamaged
from agent_cli.repl.error_text import notice_text
from agent_cli.store.memory import MemoryStore
from agent_cli.store.paths import resolve_state_paths

T0 = "2026-12-02T10:00:00+00:00"
POINTER = "transcript:s1:3"


def sample_state() -> DurableContextState:
    return DurableContextState(
        facts=(
            DurableFact("F1", "tests run with make test", POINTER, T0),
            DurableFact("F2", "the API key lives in the environment", POINTER, T0),
        ),
        pending_items=(
            PendingItem("T1", "fuzz the resolver", POINTER, T0),
            PendingItem(
                "T2",
                "write the docs",
                POINTER,
                T0,
                status=PendingStatus.BLOCKED,
                blocked_reason="waiting",
            ),
        ),
    )


@pytest.fixture
def saved(tmp_path: Path) -> tuple[MemoryStore, Path, bytes]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    store = MemoryStore(resolve_state_paths().memory)
    path = store.save(workspace, sample_state())
    return store, workspace, path.read_bytes()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def node_paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indices) to a node of a JSON document, the root included."""
    paths = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            paths += node_paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            paths += node_paths(child, (*prefix, index))
    return paths


def replaced(document: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return document


@st.composite
def damaged_documents(draw: st.DrawFn, raw: bytes) -> bytes:
    kind = draw(
        st.sampled_from(
            ["retype", "retype", "drop", "bytes", "cut", "nul", "utf8", "deep", "huge", "noise"]
        )
    )
    if kind in ("retype", "drop"):
        document = json.loads(raw)
        path = draw(st.sampled_from(node_paths(document)))
        if kind == "drop" and path:
            parent = replaced(document, (), document)
            for step in path[:-1]:
                parent = parent[step]
            del parent[path[-1]]
            return json.dumps(document).encode()
        return json.dumps(replaced(document, path, draw(json_values))).encode()
    at = draw(st.integers(0, len(raw)))
    if kind == "bytes":
        return raw[:at] + draw(st.binary(min_size=1, max_size=6)) + raw[at + 1 :]
    if kind == "cut":
        return raw[:at]
    if kind == "nul":
        return raw[:at] + b"\x00" + raw[at:]
    if kind == "utf8":
        return raw.replace(b"make test", b"make \xc3\x28test")
    if kind == "deep":
        return raw.replace(b'"facts": [', b'"facts": [' + b"[" * 50_000, 1)
    if kind == "huge":
        return raw.replace(b"write the docs", b"write the docs" + b"!" * 1_000_000)
    return draw(st.binary(max_size=200))


def load_checked(store: MemoryStore, workspace: Path, raw: bytes) -> str:
    """Load `raw`; check the contract either way and say which way it went."""
    path = store.path_for(workspace)
    path.write_bytes(raw)
    try:
        state = store.load(workspace)
    except MemoryFileDamaged as error:
        assert error.kept_at is not None and Path(error.kept_at).read_bytes() == raw
        assert path.read_bytes() == raw  # the damaged file itself is never touched
        return "damaged"
    document = json.loads(raw)  # whatever loaded must be the state the document holds
    assert state == state_from_dict(document["state"])
    return "loaded (empty)" if state.is_empty else "loaded"


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(draw=st.data())
def test_a_fuzzed_memory_file_loads_exactly_or_is_refused_with_its_copy_kept(saved, draw):
    store, workspace, raw = saved
    event(load_checked(store, workspace, draw.draw(damaged_documents(raw), label="file")))


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"schema_version": 1, "workspace": ' + b"[" * 100_000,
        b"\x00" * 64,
        b"",
    ],
)
def test_pathological_memory_files_are_refused_not_crashes(saved, raw):
    store, workspace, _ = saved
    assert load_checked(store, workspace, raw) == "damaged"


def test_a_session_over_a_damaged_memory_file_says_so_and_keeps_the_copy(saved):
    store, workspace, raw = saved
    store.path_for(workspace).write_bytes(raw[: len(raw) // 2])
    session = make_session(workspace, ScriptedProvider(), counter=make_counter()[0])
    try:
        [notice] = [n for n in session.startup_notices if n.code == "memory_damaged"]
        assert session.durable_state.is_empty
        kept = sorted(store.root.glob("*.damaged-*"))
        assert kept and str(kept[0]) in notice_text(notice)
        assert kept[0].read_bytes() == raw[: len(raw) // 2]
        session.remember("a new fact after the damage")
        assert kept[0].read_bytes() == raw[: len(raw) // 2]
    finally:
        session.close()
