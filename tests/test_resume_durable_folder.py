"""A resumed session's facts and pending items kept for another folder than the one it is in.

Facts belong to the folder they were saved for, and the memory file is keyed by its path.
Found (session 30): after `mv proj proj-renamed`, `--resume <id>` there had no facts and
no word of them, and the next `/remember` gave `F1` again. The first fix moved the memory
file when the folder looked like the same one (device and inode, or `file_seen` roots);
a review showed what that does (scripts in the tests below): an unrelated folder that got
a deleted folder's inode took its facts, a session still running at the old path lost
its own, and a folder moved and moved back lost them. Now nothing is moved, merged or
removed on its own: the resume says where they are kept, `/facts bring` copies them, and
no id of theirs is given to a new item. The real session, memory store and transcript.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from session_support import ScriptedProvider, drain, make_session, transcript_records

from agent_cli.session.log import DURABLE_BROUGHT
from agent_cli.store.memory import MemoryStore
from agent_cli.store.paths import resolve_state_paths

FACT = "the staging db is on port 5433"
TODO = "migrate the users table"
DONE = [{"type": "text", "text": "Done."}]


def memory() -> MemoryStore:
    return MemoryStore(resolve_state_paths().memory)


def made(path: Path) -> Path:
    path.mkdir()
    return path


def first_run(project: Path) -> str:
    """Run 1 in `project`: a fact and a pending item; gives the session's id."""
    session = make_session(project, ScriptedProvider([]))
    try:
        session.remember(FACT)
        session.add_pending(TODO)
    finally:
        session.close()
    return session.session_id


def resume(where: Path, session_id: str, steps: list[Any] | None = None) -> Any:
    return make_session(where, ScriptedProvider(steps or []), resume=session_id)


def new_session(where: Path, steps: list[Any] | None = None) -> Any:
    return make_session(where, ScriptedProvider(steps or []))


def ids(session: Any) -> list[str]:
    state = session.durable_state
    return [f.fact_id for f in state.facts] + [i.item_id for i in state.pending_items]


def durable_notices(session: Any) -> dict[str, dict[str, Any]]:
    found = (notice for notice in session.startup_notices if notice.code.startswith("durable_"))
    return {notice.code: dict(notice.fields) for notice in found}


def sent_durable_block(session: Any) -> str:
    drain(session.run_turn("what is pending?"))
    return str(session.provider.requests[-1].durable_context)


def test_a_resume_in_the_renamed_folder_says_where_they_are_and_copies_them_when_asked(
    tmp_path: Path,
):
    project = made(tmp_path / "proj")
    session_id = first_run(project)
    earlier = memory().path_for(project)
    before = earlier.read_bytes()
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    session = resume(renamed, session_id, [DONE])
    try:
        assert ids(session) == []
        told = durable_notices(session)
        assert told == {
            "durable_elsewhere": {
                "folder": str(project),
                "file": str(earlier),
                "facts": 1,
                "pending": 1,
            }
        }
        assert session.remember("another fact").fact_id == "F2"  # F1 names the first fact
        (found,) = session.bring_earlier_durable()
        assert found.folder == str(project) and found.clashes == ()
        assert [f.fact_id for f in found.waiting.facts] == ["F1"]
        assert ids(session) == ["F1", "F2", "T1"]
        assert FACT in sent_durable_block(session)
        assert session.earlier_durable() == () and session.bring_earlier_durable() == ()
    finally:
        session.close()
    assert earlier.read_bytes() == before  # a copy: the first folder's file is as it was
    brought = [r["payload"] for r in transcript_records(session) if r["kind"] == DURABLE_BROUGHT]
    assert brought == [{"from": str(project), "to": str(renamed)}]
    again = resume(renamed, session_id)  # all here now: nothing to say
    try:
        assert ids(again) == ["F1", "F2", "T1"] and durable_notices(again) == {}
    finally:
        again.close()


def test_an_unrelated_folder_that_got_the_old_folders_inode_is_never_given_its_facts(
    tmp_path: Path,
):
    """Reviewer's inode.sh: `rm -rf clientA; mkdir clientB` often gives clientB clientA's
    inode. The memory file is made to name clientB's (device, inode), as reuse would."""
    client_a = made(tmp_path / "clientA")
    session_id = first_run(client_a)
    shutil.rmtree(client_a)
    client_b = made(tmp_path / "clientB")
    earlier = memory().path_for(client_a)
    document = json.loads(earlier.read_text())
    document["workspace_id"] = [os.stat(client_b).st_dev, os.stat(client_b).st_ino]
    earlier.write_text(json.dumps(document))
    before = earlier.read_bytes()
    resumed = resume(client_b, session_id)
    try:
        assert ids(resumed) == [] and "durable_elsewhere" in durable_notices(resumed)
    finally:
        resumed.close()
    assert earlier.read_bytes() == before
    fresh = new_session(client_b, [DONE])  # a brand-new clientB session
    try:
        assert ids(fresh) == []
        assert FACT not in sent_durable_block(fresh)
    finally:
        fresh.close()


def test_a_session_still_running_at_the_old_path_keeps_its_facts_and_ids(tmp_path: Path):
    """Reviewer's concurrent.sh: S1 runs in proj while another shell does `mv proj proj2`
    and resumes S0 there."""
    project = made(tmp_path / "proj")
    s0 = first_run(project)
    s1 = new_session(project)
    try:
        moved = tmp_path / "proj2"
        os.rename(project, moved)
        resumed = resume(moved, s0)
        try:
            assert ids(resumed) == [] and "durable_elsewhere" in durable_notices(resumed)
            typed = s1.remember("typed in S1 after the move")
            assert typed.fact_id == "F2"
            assert [f.content for f in s1.durable_state.facts] == [FACT, typed.content]
            assert resumed.remember("typed in the resumed S0").fact_id == "F3"
        finally:
            resumed.close()
    finally:
        s1.close()
    assert [f.fact_id for f in memory().load(project).facts] == ["F1", "F2"]


def test_a_folder_moved_and_moved_back_keeps_its_facts_for_every_session(tmp_path: Path):
    """Reviewer's moveback.sh: resume in proj2, quit, `mv proj2 proj`; a new session in
    proj, the first one resumed there, and an unrelated folder made at proj2."""
    project = made(tmp_path / "proj")
    session_id = first_run(project)
    moved = tmp_path / "proj2"
    os.rename(project, moved)
    resume(moved, session_id).close()
    os.rename(moved, project)
    fresh = new_session(project)
    try:
        assert ids(fresh) == ["F1", "T1"]
        assert fresh.remember("a new fact").fact_id == "F2"
    finally:
        fresh.close()
    resumed = resume(project, session_id)
    try:
        assert ids(resumed) == ["F1", "F2", "T1"] and durable_notices(resumed) == {}
    finally:
        resumed.close()
    unrelated = new_session(made(moved))
    try:
        assert ids(unrelated) == []
    finally:
        unrelated.close()


def test_items_added_in_the_other_folder_are_named_when_the_folder_comes_back(tmp_path: Path):
    """A resumed session saves to the folder it works in: moved back, it is told of what
    it added there, and gives none of those ids again."""
    project = made(tmp_path / "proj")
    session_id = first_run(project)
    moved = tmp_path / "proj2"
    os.rename(project, moved)
    there = resume(moved, session_id)
    try:
        assert there.remember("added in proj2").fact_id == "F2"
    finally:
        there.close()
    os.rename(moved, project)
    back = resume(project, session_id)
    try:
        assert ids(back) == ["F1", "T1"]
        told = durable_notices(back)["durable_elsewhere"]
        assert told["folder"] == str(moved) and (told["facts"], told["pending"]) == (1, 0)
        assert back.remember("after coming back").fact_id == "F3"
    finally:
        back.close()


def test_a_folder_with_items_of_its_own_under_the_same_ids_keeps_both_apart(tmp_path: Path):
    project = made(tmp_path / "proj")
    session_id = first_run(project)
    earlier = memory().path_for(project)
    before = earlier.read_bytes()
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    other = new_session(renamed)  # a new session there, first
    other.remember("this folder's own")
    other.close()
    session = resume(renamed, session_id)
    try:
        clash = durable_notices(session)["durable_clash"]
        assert clash["ids"] == ["F1"] and clash["file"] == str(earlier)
        assert session.remember("after both").fact_id == "F2"
        (found,) = session.bring_earlier_durable()
        assert found.clashes == ("F1",)
        assert [f.content for f in session.durable_state.facts] == [
            "this folder's own",
            "after both",
        ]
    finally:
        session.close()
    assert earlier.read_bytes() == before


def test_a_folder_whose_items_were_all_forgotten_still_gives_no_id_twice(tmp_path: Path):
    project = made(tmp_path / "proj")
    session = new_session(project)
    session.remember(FACT)
    session.forget("F1")
    session.close()
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    resumed = resume(renamed, session.session_id)
    try:
        assert durable_notices(resumed) == {}  # no item: nothing to say
        assert resumed.remember("next").fact_id == "F2"
    finally:
        resumed.close()


def test_a_memory_file_that_cannot_be_read_is_named_with_its_reason(tmp_path: Path):
    project = made(tmp_path / "proj")
    session_id = first_run(project)
    memory().path_for(project).write_text("not json")
    renamed = tmp_path / "proj-renamed"
    os.rename(project, renamed)
    resumed = resume(renamed, session_id)
    try:
        assert durable_notices(resumed)["durable_not_brought"]["reason"] == "invalid_json"
    finally:
        resumed.close()
