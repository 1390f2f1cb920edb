"""The memory store's part when a folder moved: its file names its folder, and a bring.

A memory file is keyed by its folder's path; it now also holds the folder's (device,
inode), so a session can tell the file is its folder's after a rename. `MemoryStore.bring`
brings another folder's items into this folder's file, ids kept, under both locks; with
`move` the earlier file goes (the folder moved), without it stays (a copy). Real files.
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


def test_a_saved_file_names_its_folder_by_device_and_inode(store: MemoryStore, tmp_path: Path):
    project = folder(tmp_path, "proj")
    path = saved_with(store, project, fact("F1", "port 5433"))
    info = os.stat(project)
    assert json.loads(path.read_text())["workspace_id"] == [info.st_dev, info.st_ino]
    found = store.load_recorded(str(project.resolve()))
    assert found is not None and found.identity == (info.st_dev, info.st_ino)


def test_a_file_saved_before_folders_were_named_reads_with_no_identity(
    store: MemoryStore, tmp_path: Path
):
    project = folder(tmp_path, "proj")
    path = saved_with(store, project, fact("F1", "port 5433"))
    document = json.loads(path.read_text())
    del document["workspace_id"]
    path.write_text(json.dumps(document))
    found = store.load_recorded(str(project.resolve()))
    assert found is not None and found.identity is None
    assert [f.fact_id for f in found.state.facts] == ["F1"]


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
    assert found is not None and found.state.facts[0].content == "port 5433"


def test_a_move_brings_the_items_and_removes_the_earlier_file(store: MemoryStore, tmp_path: Path):
    project = folder(tmp_path, "proj")
    recorded = str(project.resolve())
    earlier = saved_with(store, project, fact("F1", "port 5433"), fact("F2", "uses make"))
    moved = tmp_path / "proj-renamed"
    os.rename(project, moved)
    found = store.bring(recorded, moved, move=True)
    assert found is not None and len(found.state.facts) == 2
    assert not earlier.exists()
    here = store.load(moved)
    assert [(f.fact_id, f.content) for f in here.facts] == [
        ("F1", "port 5433"),
        ("F2", "uses make"),
    ]
    saved = json.loads(store.path_for(moved).read_text())
    assert saved["workspace_id"] == [os.stat(moved).st_dev, os.stat(moved).st_ino]
    assert store.bring(recorded, moved, move=True) is None  # nothing left to bring


def test_a_copy_brings_the_items_and_keeps_the_earlier_file(store: MemoryStore, tmp_path: Path):
    project, copy = folder(tmp_path, "proj"), folder(tmp_path, "proj-copy")
    earlier = saved_with(store, project, fact("F1", "port 5433"))
    store.update(copy, lambda state: add_fact(state, fact("F2", "copy's own")))
    assert store.bring(str(project.resolve()), copy, move=False) is not None
    assert earlier.exists()
    assert [f.fact_id for f in store.load(copy).facts] == ["F1", "F2"]


def test_a_clash_of_ids_writes_nothing_to_either_file(store: MemoryStore, tmp_path: Path):
    project, other = folder(tmp_path, "proj"), folder(tmp_path, "other")
    earlier = saved_with(store, project, fact("F1", "port 5433"))
    here = saved_with(store, other, fact("F1", "other's own"))
    before = earlier.read_bytes(), here.read_bytes()
    with pytest.raises(DurableIdsClash) as caught:
        store.bring(str(project.resolve()), other, move=True)
    assert caught.value.ids == ("F1",)
    assert (earlier.read_bytes(), here.read_bytes()) == before


def test_a_folder_brought_into_itself_is_left_alone(store: MemoryStore, tmp_path: Path):
    project = folder(tmp_path, "proj")
    path = saved_with(store, project, fact("F1", "port 5433"))
    assert store.bring(str(project.resolve()), project, move=True) is None
    assert path.exists()
