"""The memory store's part when a session goes on in another folder: a copy, on request.

A memory file is keyed by its folder's path. `MemoryStore.load_recorded` reads the file of
a folder by the path a session recorded, as written; `MemoryStore.bring` copies that file's
items into this folder's, ids kept, and never changes, moves or removes the file it reads
(a folder's identity is no proof: an inode number comes back for an unrelated folder).
Real files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_cli.durable import DurableContextState, DurableFact, add_fact
from agent_cli.errors import DurableIdsClash
from agent_cli.store.memory import MemoryStore

AT = "2026-12-07T10:00:00+00:00"


def fact(fact_id: str, text: str) -> DurableFact:
    return DurableFact(fact_id, text, "transcript:s1:2", AT)


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "memory")


def folder(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.mkdir()
    return path


def saved_with(store: MemoryStore, workspace: Path, *facts: DurableFact) -> Path:
    return store.save(workspace, DurableContextState(facts=facts))


def test_a_file_names_its_folder_by_path_only_and_one_holding_an_identity_still_reads(
    store: MemoryStore, tmp_path: Path
):
    project = folder(tmp_path, "proj")
    path = saved_with(store, project, fact("F1", "port 5433"))
    assert set(json.loads(path.read_text())) == {"schema_version", "workspace", "state"}
    document = json.loads(path.read_text())
    document["workspace_id"] = [1, 2]  # what session 30's first build wrote
    path.write_text(json.dumps(document))
    found = store.load_recorded(str(project.resolve()))
    assert found is not None and [f.fact_id for f in found.facts] == ["F1"]


def test_the_file_of_a_recorded_folder_is_found_by_the_path_as_recorded_after_a_rename(
    store: MemoryStore, tmp_path: Path
):
    project = folder(tmp_path, "proj")
    recorded = str(project.resolve())
    saved_with(store, project, fact("F1", "port 5433"))
    moved = tmp_path / "proj-renamed"
    os.rename(project, moved)
    os.symlink(moved, project)  # the old path now leads to the renamed folder
    assert store.load(project).is_empty  # keyed by where the path leads now
    found = store.load_recorded(recorded)
    assert found is not None and found.facts[0].content == "port 5433"


def test_a_bring_copies_the_items_and_leaves_the_earlier_file_as_it_was(
    store: MemoryStore, tmp_path: Path
):
    project = folder(tmp_path, "proj")
    recorded = str(project.resolve())
    earlier = saved_with(store, project, fact("F1", "port 5433"), fact("F2", "uses make"))
    before = earlier.read_bytes()
    moved = tmp_path / "proj-renamed"
    os.rename(project, moved)
    store.update(moved, lambda state: add_fact(state, fact("F3", "the new folder's own")))
    found = store.bring(recorded, moved)
    assert found is not None and len(found.facts) == 2
    assert earlier.read_bytes() == before
    assert [(f.fact_id, f.content) for f in store.load(moved).facts] == [
        ("F1", "port 5433"),
        ("F2", "uses make"),
        ("F3", "the new folder's own"),
    ]
    again = store.bring(recorded, moved)  # the same items: nothing changes
    assert again is not None and [f.fact_id for f in store.load(moved).facts] == [
        "F1",
        "F2",
        "F3",
    ]


def test_a_clash_of_ids_writes_nothing_to_either_file(store: MemoryStore, tmp_path: Path):
    project, other = folder(tmp_path, "proj"), folder(tmp_path, "other")
    earlier = saved_with(store, project, fact("F1", "port 5433"))
    here = saved_with(store, other, fact("F1", "other's own"))
    before = earlier.read_bytes(), here.read_bytes()
    with pytest.raises(DurableIdsClash) as caught:
        store.bring(str(project.resolve()), other)
    assert caught.value.ids == ("F1",)
    assert (earlier.read_bytes(), here.read_bytes()) == before


def test_a_folder_brought_into_itself_or_from_nothing_is_left_alone(
    store: MemoryStore, tmp_path: Path
):
    project = folder(tmp_path, "proj")
    path = saved_with(store, project, fact("F1", "port 5433"))
    assert store.bring(str(project.resolve()), project) is None
    assert path.exists()
    assert store.bring(str(tmp_path / "never-saved"), project) is None
