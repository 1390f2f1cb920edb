"""A resumed session remembers what the model saw of files, so a stale write stays refused.

Within one run, a write built from the model's copy of a file the user changed since is
refused whatever approved it (`tools.seen_files`). A resumed session started with nothing
seen, so after quitting, editing a file and `--continue --yes`, the model's next write from
its copy replaced the user's edit unasked. The transcript now records what the model saw
(`file_seen`) and a resume restores it. The real session, toolbox and transcript on disk.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from session_support import ScriptedProvider, drain, make_session, tool_use, transcript_records
from tools_support import RecordingAsker

from agent_cli.session.log import FILE_SEEN, rebuild_from_records
from agent_cli.store.seen_key import SEEN_KEY_NAME
from agent_cli.tools import PermissionDecision
from agent_cli.tools.approval import ApprovalKind
from agent_cli.tools.seen_files import KEYED

FIRST = "# Notes\n- item one\n"
USERS = FIRST + "- the user's own line, typed between two runs\n"
STALE = FIRST + "- item two\n"
REFUSED = "notes.md changed since it was last read or written in this session"
DONE = [{"type": "text", "text": "Done."}]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def run_once(workspace: Path, call: dict[str, Any], resume: str | None = None, **kw: Any) -> Any:
    """One run of the session (`resume`: the one to go on with) making `call`, then closed."""
    session = make_session(workspace, ScriptedProvider([[call], DONE]), resume=resume, **kw)
    try:
        drain(session.run_turn("go on"))
    finally:
        session.close()
    return session


def last_result(session: Any) -> str:
    """The text of the last tool result the session recorded."""
    for record in reversed(transcript_records(session)):
        content = record["payload"].get("message", {}).get("content")
        if isinstance(content, list) and content and content[0].get("type") == "tool_result":
            return json.dumps(content[0]["content"])
    raise AssertionError("no tool result recorded")


def seen_records(session: Any) -> list[dict[str, Any]]:
    return [r["payload"] for r in transcript_records(session) if r["kind"] == FILE_SEEN]


def write_call(content: str, path: str = "notes.md", call_id: str = "t_write") -> dict[str, Any]:
    return tool_use(call_id, "write_file", path=path, content=content)


@pytest.mark.parametrize("first_call", ["write", "read"])
def test_a_file_changed_between_two_runs_is_not_overwritten_from_the_stale_copy(
    workspace: Path, first_call: str
):
    target = workspace / "notes.md"
    if first_call == "read":
        target.write_text(FIRST)
        first = run_once(workspace, tool_use("t_read", "read_file", path="notes.md"))
    else:
        first = run_once(workspace, write_call(FIRST))
    assert target.read_text() == FIRST
    target.write_text(USERS)  # the user's editor, between the two runs
    resumed = run_once(
        workspace, write_call(STALE, call_id="t_again"), resume=first.session_id
    )  # --yes
    assert target.read_text() == USERS
    assert REFUSED in last_result(resumed)


def test_a_name_made_a_link_between_two_runs_is_not_written_through_to_its_target(
    workspace: Path,
):
    """Found (session 27): run 1 read `notes.md`; the user then moved it aside and made
    `notes.md` a link to `keep.md`; `--continue --yes` wrote the model's old copy over
    `keep.md`. What the model saw under the name it used is recorded too."""
    keep = workspace / "keep.md"
    keep.write_text(USERS)
    (workspace / "notes.md").write_text(FIRST)
    first = run_once(workspace, tool_use("t_read", "read_file", path="notes.md"))
    (workspace / "notes.md").rename(workspace / "notes.old")
    (workspace / "notes.md").symlink_to("keep.md")
    resumed = run_once(workspace, write_call(STALE, call_id="t_again"), resume=first.session_id)
    assert keep.read_text() == USERS
    assert "keep.md (via link notes.md) changed since it was last read" in last_result(resumed)


def test_a_name_that_was_a_link_all_along_is_written_through_after_a_resume(workspace: Path):
    (workspace / "notes.md").write_text(FIRST)
    (workspace / "alias.md").symlink_to("notes.md")
    first = run_once(workspace, tool_use("t_read", "read_file", path="alias.md"))
    resumed = run_once(workspace, write_call(STALE, "alias.md", "t_again"), resume=first.session_id)
    assert (workspace / "notes.md").read_text() == STALE
    assert (workspace / "alias.md").is_symlink()
    assert "Wrote 3 lines" in last_result(resumed)


def test_a_file_unchanged_between_two_runs_is_written_as_before(workspace: Path):
    first = run_once(workspace, write_call(FIRST))
    resumed = run_once(workspace, write_call(STALE, call_id="t_again"), resume=first.session_id)
    assert (workspace / "notes.md").read_text() == STALE
    assert REFUSED not in last_result(resumed)


def test_a_transcript_without_what_was_seen_asks_with_the_diff_as_before(workspace: Path):
    target = workspace / "notes.md"
    first = run_once(workspace, write_call(FIRST))
    path = Path(first.transcript_path)
    older = path.read_text().replace(f'"kind":"{FILE_SEEN}"', '"kind":"unknown_to_it"')
    path.write_text(older)  # what an older version's rebuild found: no file_seen records
    target.write_text(USERS)
    asker = RecordingAsker(PermissionDecision.DENY)
    run_once(
        workspace,
        write_call(STALE, call_id="t_again"),
        first.session_id,
        auto_approve=False,
        ask_permission=asker,
    )
    assert asker.requests[0].approval.kind is ApprovalKind.DIFF  # asked, with the user's line
    assert target.read_text() == USERS


def test_reading_an_unchanged_file_again_records_nothing_new(workspace: Path):
    (workspace / "notes.md").write_text(FIRST)
    reads = [[tool_use(f"t_read{n}", "read_file", path="notes.md")] for n in (1, 2)]
    session = make_session(workspace, ScriptedProvider([*reads, DONE]))
    try:
        drain(session.run_turn("read it twice"))
    finally:
        session.close()
    assert len(seen_records(session)) == 1
    assert sum('"t_read' in json.dumps(r) for r in transcript_records(session)) >= 4  # both ran


def test_a_path_holding_a_secret_is_not_recorded(workspace: Path):
    secret = "sk-live-0123456789abcdefSEEN"
    session = run_once(
        workspace, write_call(FIRST, path=f"{secret}.txt"), environment={"API_TOKEN": secret}
    )
    assert (workspace / f"{secret}.txt").exists()
    assert seen_records(session) == []  # (the model's own call names it: its words)


def file_seen(path: object, fingerprint: object) -> dict[str, Any]:
    return {"kind": FILE_SEEN, "payload": {"path": path, "fingerprint": fingerprint}}


def test_the_rebuild_keeps_the_last_fingerprint_of_each_path_and_passes_over_damage():
    records = [
        file_seen("/ws/a.md", ["sha256", "aa"]),
        file_seen("/ws/b.md", ["sha256", "bb"]),
        file_seen("/ws/a.md", ["sha256", "a2"]),
        file_seen("relative.md", ["sha256", "cc"]),  # not absolute
        file_seen("/ws/c.md", "sha256"),  # not a list
        file_seen("/ws/d.md", ["stat", 1, True]),  # a bool is no whole number here
        file_seen("/ws/e.md", []),
        file_seen(7, ["sha256", "ee"]),
        file_seen("/ws/f.md", ["stat", 66306, 1234, 10, 1700000000000000000, 1700000000000000001]),
    ]
    seen = rebuild_from_records(records).files_seen
    assert [(record.path, record.fingerprint, record.root) for record in seen] == [
        (Path("/ws/b.md"), ("sha256", "bb"), None),
        (Path("/ws/a.md"), ("sha256", "a2"), None),
        (
            Path("/ws/f.md"),
            ("stat", 66306, 1234, 10, 1700000000000000000, 1700000000000000001),
            None,
        ),
    ]


# Keyed records: a transcript's `file_seen` tells nothing of what a file holds.
# Found (session 27, T1): the record of a small `.env` was a plain SHA-256 of its bytes;
# with the rest of the file in the transcript, anyone given the transcript could test
# guesses of the password offline, one hash each (`Summer2024!x` confirmed).

PASSWORD = "Summer2024!x"


def sha256_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_transcript_holds_no_plain_hash_of_a_file_the_model_saw(workspace: Path):
    env_text = f"DB_PASSWORD={PASSWORD}\n"
    (workspace / ".env").write_text(env_text)
    (workspace / "db.txt").write_text(f"{PASSWORD}\n")
    reads = [
        [tool_use(f"t_{n}", "read_file", path=name)] for n, name in enumerate((".env", "db.txt"))
    ]
    session = make_session(workspace, ScriptedProvider([*reads, DONE]))
    try:
        drain(session.run_turn("read both"))
    finally:
        session.close()
    records = seen_records(session)
    assert len(records) == 2
    assert all(record["fingerprint"][0] == KEYED for record in records)
    whole = Path(session.transcript_path).read_text()
    for guess in (env_text, f"{PASSWORD}\n"):  # the guesses an attacker would hash
        assert sha256_of(guess) not in whole


def test_the_key_is_kept_private_beside_the_transcripts_and_outside_them(workspace: Path):
    first = run_once(workspace, write_call(FIRST))
    key_file = Path(first.transcript_path).parent / SEEN_KEY_NAME
    assert key_file.stat().st_mode & 0o777 == 0o600
    key = key_file.read_bytes()
    assert len(key) == 32
    assert key.hex() not in Path(first.transcript_path).read_text()


def test_a_record_written_before_records_were_keyed_still_refuses_a_stale_write(
    workspace: Path,
):
    target = workspace / "notes.md"
    first = run_once(workspace, write_call(FIRST))
    path = Path(first.transcript_path)
    lines = []
    for line in path.read_text().splitlines():  # as session 26 wrote it: a plain hash
        record = json.loads(line)
        if record["kind"] == FILE_SEEN:
            record["payload"]["fingerprint"] = ["sha256", sha256_of(FIRST)]
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    target.write_text(USERS)
    resumed = run_once(workspace, write_call(STALE, call_id="t_again"), resume=first.session_id)
    assert target.read_text() == USERS
    assert REFUSED in last_result(resumed)
    target.write_text(FIRST)  # as it was seen: the plain record, keyed now, matches it
    again = run_once(workspace, write_call(STALE, call_id="t_more"), resume=first.session_id)
    assert target.read_text() == STALE
    assert REFUSED not in last_result(again)


def test_a_lost_key_refuses_the_first_write_after_a_resume_and_loses_nothing(workspace: Path):
    target = workspace / "notes.md"
    first = run_once(workspace, write_call(FIRST))
    key_file = Path(first.transcript_path).parent / SEEN_KEY_NAME
    key_file.write_bytes(b"damaged")  # not a key: a new one is made, the records match nothing
    resumed = run_once(workspace, write_call(STALE, call_id="t_again"), resume=first.session_id)
    assert target.read_text() == FIRST
    assert REFUSED in last_result(resumed)
    assert len(key_file.read_bytes()) == 32


# The project folder moved between two runs (session 28, `t_seen_moved_folder.py`): the
# records held paths under the old folder and matched nothing under the new one, so the
# model's write from its old copy replaced the user's line under `--yes`.


def move_folder_and_edit(workspace: Path) -> Path:
    """`mv ws ws-moved`, then the user's editor adds a line to notes.md there."""
    moved = workspace.with_name("ws-moved")
    workspace.rename(moved)
    (moved / "notes.md").write_text(USERS)
    return moved


def test_a_file_changed_in_a_moved_folder_is_not_overwritten_from_the_stale_copy(
    workspace: Path,
):
    (workspace / "notes.md").write_text(FIRST)
    first = run_once(workspace, tool_use("t_read", "read_file", path="notes.md"))
    moved = move_folder_and_edit(workspace)
    resumed = run_once(moved, write_call(STALE, call_id="t_w"), resume=first.session_id)
    assert (moved / "notes.md").read_text() == USERS
    assert REFUSED in last_result(resumed)
    read = run_once(moved, tool_use("t_r2", "read_file", path="notes.md"), first.session_id)
    assert seen_records(read)[-1]["root"] == str(moved.resolve())  # seen there now, recorded there
    again = run_once(moved, write_call(STALE, call_id="t_w2"), resume=first.session_id)
    assert REFUSED not in last_result(again)
    assert (moved / "notes.md").read_text() == STALE


def test_a_record_written_before_records_were_rooted_still_refuses_after_a_move(
    workspace: Path,
):
    first = run_once(workspace, write_call(FIRST))
    path = Path(first.transcript_path)
    lines = []
    for line in path.read_text().splitlines():  # as session 27 wrote it: an absolute path
        record = json.loads(line)
        if record["kind"] == FILE_SEEN:
            payload = record["payload"]
            record["payload"] = {
                "path": str(workspace / payload["path"]),
                "fingerprint": payload["fingerprint"],
            }
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    moved = move_folder_and_edit(workspace)
    resumed = run_once(moved, write_call(STALE, call_id="t_again"), resume=first.session_id)
    assert (moved / "notes.md").read_text() == USERS
    assert REFUSED in last_result(resumed)


def test_a_record_of_another_folder_refuses_no_write_of_a_file_the_model_never_saw(
    workspace: Path,
):
    first = run_once(workspace, write_call(FIRST))
    other = workspace.with_name("project-b")  # made while ws exists: another inode
    other.mkdir()
    (other / "notes.md").write_text(USERS)
    (workspace / "notes.md").unlink()
    workspace.rmdir()  # the session's folder is gone: its tools run in project-b
    resumed = run_once(other, write_call(STALE, call_id="t_other"), resume=first.session_id)
    assert REFUSED not in last_result(resumed)
    assert (other / "notes.md").read_text() == STALE
