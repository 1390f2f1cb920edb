"""Disk faults around a running session: an unusable state folder, and a transcript
deleted, truncated or appended to underneath it (a full disk: `test_faults_disk_full.py`).

The promises: the user is told in words that say what to do, nothing is written into or
next to a transcript that changed, and a fresh session (/new) works.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from faults_support import assert_history_is_valid, notices, turn_end
from session_support import ScriptedProvider, drain, make_session, tool_use, workspace_with

from agent_cli.errors import SessionNotFound, StateDirUnavailable
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.offline import OfflineProvider
from agent_cli.repl.error_text import notice_text
from agent_cli.store.paths import resolve_state_paths

ANSWER = [{"type": "text", "text": "done"}]


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path, {"notes.txt": "the build uses make\n"})


def run_main(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    from agent_cli.repl.main import main

    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(""), stdout=stdout, stderr=stderr, env=env)
    return code, stderr.getvalue()


# --- the state folder ---------------------------------------------------------------------


def _link(folder: Path, name: str, to: str) -> Path:
    """`folder/name`, a symbolic link to `to` (which need not exist)."""
    (folder / name).symlink_to(to)
    return folder / name


@pytest.mark.parametrize(
    "make_home, reason, words",
    [
        (lambda tmp: tmp / "a-file" / "home", "ENOTDIR", "a part of its path is a file"),
        (lambda tmp: tmp / "a-file", "not_a_directory", "it is a file, not a folder"),
        (lambda tmp: tmp / ("x" * 300), "ENAMETOOLONG", "its name is too long"),
        (
            lambda tmp: _link(tmp, "loop1", "loop2") and _link(tmp, "loop2", "loop1"),
            "ELOOP",
            "its path has a loop of symbolic links",
        ),
        (
            lambda tmp: _link(tmp, "gone-link", "nothing-here"),
            "dangling_link",
            "it is a symbolic link to something that does not exist",
        ),
    ],
    ids=["under a regular file", "is a regular file", "name too long", "link loop", "dangling"],
)
def test_an_unusable_state_home_is_refused_with_a_clear_message(
    tmp_path: Path, workspace: Path, make_home, reason: str, words: str
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    home = make_home(tmp_path)
    env = {"AGENT_CLI_HOME": str(home)}
    with pytest.raises(StateDirUnavailable) as caught:
        resolve_state_paths(env)
    assert caught.value.reason == reason
    code, said = run_main(
        ["-p", "hello", "--provider", "offline", "--workspace", str(workspace)], env
    )
    assert code == 2  # configuration, as the README's exit codes say (issue 23 item 14)
    assert "cannot use the state folder" in said and "AGENT_CLI_HOME" in said
    assert words in said and reason not in said and "Traceback" not in said
    assert (tmp_path / "a-file").read_text() == "not a folder"


def test_a_transcripts_folder_replaced_by_a_file_refuses_the_session(workspace: Path) -> None:
    paths = resolve_state_paths()
    paths.transcripts.rmdir()
    paths.transcripts.write_text("in the way")
    with pytest.raises(StateDirUnavailable) as caught:
        make_session(workspace, OfflineProvider())
    assert caught.value.reason == "not_a_directory"
    assert paths.transcripts.read_text() == "in the way"


# --- the transcript changed under a running session ---------------------------------------


def cut_in_half(path: Path) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.truncate(size // 2)


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda path: path.unlink(), "deleted"),
        (cut_in_half, "truncated"),
        (lambda path: path.open("ab").write(b'{"forged": true}\n'), "grown"),
    ],
    ids=["deleted", "truncated", "appended to by someone else"],
)
def test_a_transcript_changed_underneath_stops_every_append_and_says_to_start_anew(
    workspace: Path, change, reason: str
) -> None:
    provider = ScriptedProvider([[tool_use("t1", "read_file", path="notes.txt")], ANSWER])
    session = make_session(workspace, provider)
    drain(session.run_turn("read notes.txt"))
    path = Path(session.transcript_path)
    view_before = list(session.view)
    change(path)
    on_disk = path.read_bytes() if path.exists() else None

    for attempt in ("second", "third"):
        events = drain(session.run_turn(attempt))
        assert turn_end(events).outcome == "failed"
        [notice] = notices(events, "transcript_write_failed")
        assert f"changed under this session ({reason})" in notice_text(notice)
        assert "/new" in notice_text(notice)
        assert session.view == view_before
        assert (path.read_bytes() if path.exists() else None) == on_disk
    assert len(provider.requests) == 2  # only the first turn's two requests were sent
    assert session.stats() and session.context_preview().message_lines  # still readable
    session.close()

    fresh = make_session(workspace, OfflineProvider())  # what /new does
    assert turn_end(drain(fresh.run_turn("list ."))).outcome == "ok"
    assert_history_is_valid(fresh)


def test_a_deleted_transcript_cannot_be_resumed_and_says_so(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("list ."))
    Path(session.transcript_path).unlink()
    session.close()
    with pytest.raises(SessionNotFound):
        make_session(workspace, OfflineProvider(), resume=session.session_id)


def test_a_truncated_transcript_resumes_up_to_its_last_whole_record(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    for _ in range(3):
        drain(session.run_turn("read notes.txt"))
    path = Path(session.transcript_path)
    cut_in_half(path)
    session.close()

    resumed = make_session(workspace, OfflineProvider(), resume=session.session_id)

    assert list(path.parent.glob(path.name + ".torn-*"))  # the cut line was kept aside
    validate_tool_protocol(resumed.view)
    assert len(resumed.view) < len(session.view)
    assert turn_end(drain(resumed.run_turn("list ."))).outcome == "ok"
    assert_history_is_valid(resumed)
