"""A resumed session's facts and pending items when its folder moved, or it goes on elsewhere.

Facts belong to the folder they were saved for, and the memory file is keyed by its path.
Found (session 30): after `mv proj proj-renamed`, `--resume <id>` there had no facts, no
pending items and no word of them, and the next `/remember` gave `F1` again. Now a resume
brings them when the folder is the same one moved (its device and inode), says where they
are and offers `/facts bring` when it is another (a copy), and never gives one of their ids
to a new item. The real session, memory store and transcript on disk.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from session_support import ScriptedProvider, drain, make_session, tool_use, transcript_records

from agent_cli.errors import DurableIdsClash
from agent_cli.session.log import DURABLE_BROUGHT
from agent_cli.store.memory import MemoryStore
from agent_cli.store.paths import resolve_state_paths

FACT = "the staging db is on port 5433"
TODO = "migrate the users table"
DONE = [{"type": "text", "text": "Done."}]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def memory() -> MemoryStore:
    return MemoryStore(resolve_state_paths().memory)


def first_run(project: Path, *, read_a_file: bool = False) -> str:
    """Run 1 in `project`: a fact and a pending item (and the model reading a file, when
    `read_a_file`: its `file_seen` record names the folder); gives the session's id."""
    steps = [[tool_use("t_read", "read_file", path="notes.md")], DONE] if read_a_file else []
    if read_a_file:
        (project / "notes.md").write_text("notes\n")
    session = make_session(project, ScriptedProvider(steps))
    try:
        session.remember(FACT)
        session.add_pending(TODO)
        if read_a_file:
            drain(session.run_turn("read the notes"))
    finally:
        session.close()
    return session.session_id


def resume(where: Path, session_id: str, steps: list[Any] | None = None) -> Any:
    return make_session(where, ScriptedProvider(steps or []), resume=session_id)


def ids(session: Any) -> list[str]:
    state = session.durable_state
    return [f.fact_id for f in state.facts] + [i.item_id for i in state.pending_items]


def notices(session: Any) -> dict[str, dict[str, Any]]:
    return {notice.code: dict(notice.fields) for notice in session.startup_notices}


def test_a_resume_in_the_renamed_folder_brings_its_facts_and_goes_on_after_their_ids(
    project: Path, tmp_path: Path
):
    session_id = first_run(project)
    earlier = memory().path_for(project)
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    session = resume(renamed, session_id)
    try:
        assert ids(session) == ["F1", "T1"]
        followed = notices(session)["durable_followed"]
        assert followed == {"folder": str(project), "file": str(earlier), "facts": 1, "pending": 1}
        assert not earlier.exists()
        drain(session.run_turn("what is pending?"))
        sent = session.provider.requests[-1].durable_context
        assert FACT in sent and TODO in sent
        assert session.remember("another fact").fact_id == "F2"
    finally:
        session.close()
    moved = [r["payload"] for r in transcript_records(session) if r["kind"] == DURABLE_BROUGHT]
    assert moved == [{"from": str(project), "to": str(renamed), "moved": True}]


def test_through_a_link_left_at_the_old_path_the_facts_follow_too(project: Path, tmp_path: Path):
    session_id = first_run(project)
    moved = tmp_path / "proj-moved"
    os.rename(project, moved)
    os.symlink(moved, project)
    session = resume(project, session_id)  # started in the link: the folder is `moved`
    try:
        assert ids(session) == ["F1", "T1"]
        assert "durable_followed" in notices(session)
    finally:
        session.close()


def test_a_folder_moved_back_brings_them_back_from_where_the_session_took_them(
    project: Path, tmp_path: Path
):
    session_id = first_run(project)
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    resume(renamed, session_id).close()
    os.rename(renamed, project)
    session = resume(project, session_id)
    try:
        assert ids(session) == ["F1", "T1"]
        assert notices(session)["durable_followed"]["folder"] == str(renamed)
    finally:
        session.close()
    again = resume(project, session_id)  # nothing left elsewhere: nothing said
    try:
        assert ids(again) == ["F1", "T1"] and "durable_followed" not in notices(again)
    finally:
        again.close()


def test_a_copy_is_not_given_the_facts_unasked_but_told_where_they_are(
    project: Path, tmp_path: Path
):
    session_id = first_run(project)
    earlier = memory().path_for(project)
    copy = tmp_path / "proj-copy"
    shutil.copytree(project, copy)
    shutil.rmtree(project)
    session = resume(copy, session_id)
    try:
        assert ids(session) == []
        told = notices(session)["durable_elsewhere"]
        assert told == {"folder": str(project), "file": str(earlier), "facts": 1, "pending": 1}
        assert session.earlier_durable() is not None
        assert session.remember("the copy's own").fact_id == "F2"  # F1 names the first fact
        folder, brought = session.bring_earlier_durable()
        assert folder == str(project) and [f.fact_id for f in brought.facts] == ["F1"]
        assert ids(session) == ["F1", "F2", "T1"]
        assert session.earlier_durable() is None and session.bring_earlier_durable() is None
    finally:
        session.close()
    assert earlier.exists()  # a copy: the first folder's file is left as it was


def test_a_renamed_folder_with_items_of_its_own_under_the_same_ids_keeps_both_apart(
    project: Path, tmp_path: Path
):
    session_id = first_run(project)
    earlier = memory().path_for(project)
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    other = make_session(renamed, ScriptedProvider([]))  # a new session there, first
    other.remember("this folder's own")
    other.close()
    session = resume(renamed, session_id)
    try:
        assert [f.content for f in session.durable_state.facts] == ["this folder's own"]
        clash = notices(session)["durable_clash"]
        assert clash["ids"] == ["F1"] and clash["file"] == str(earlier)
        assert session.remember("after both").fact_id == "F2"
        with pytest.raises(DurableIdsClash):
            session.bring_earlier_durable()
    finally:
        session.close()
    assert earlier.exists()


@pytest.mark.parametrize("read_a_file", [True, False])
def test_a_file_saved_before_folders_were_named_follows_only_what_the_session_recorded(
    project: Path, tmp_path: Path, read_a_file: bool
):
    """A memory file without `workspace_id` (saved by an earlier agent-cli): the folder is
    known to be the same one moved only by the session's `file_seen` records."""
    session_id = first_run(project, read_a_file=read_a_file)
    earlier = memory().path_for(project)
    document = json.loads(earlier.read_text())
    del document["workspace_id"]
    earlier.write_text(json.dumps(document))
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    session = resume(renamed, session_id)
    try:
        if read_a_file:
            assert ids(session) == ["F1", "T1"] and "durable_followed" in notices(session)
        else:
            assert ids(session) == [] and "durable_elsewhere" in notices(session)
    finally:
        session.close()


def test_a_folder_whose_items_were_all_forgotten_still_gives_no_id_twice(
    project: Path, tmp_path: Path
):
    session = make_session(project, ScriptedProvider([]))
    session.remember(FACT)
    session.forget("F1")
    session.close()
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    resumed = resume(renamed, session.session_id)
    try:
        assert "durable_followed" not in notices(resumed)  # no item: nothing to say
        assert resumed.remember("next").fact_id == "F2"
    finally:
        resumed.close()
