"""Disk faults under a running session: an unusable state folder, a full disk, and a
transcript deleted or truncated underneath.

The promises: the user is told in words that say what to do; no half record is left in
the transcript; no artifact pointer names bytes that were not fully written; the view
never holds what the transcript does not; and once the disk has room again the session
goes on.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from faults_support import (
    FillableDisk,
    assert_history_is_valid,
    notices,
    take_snapshot,
    turn_end,
)
from session_support import ScriptedProvider, drain, make_session, tool_use

from agent_cli.errors import SessionNotFound, StateDirUnavailable, TranscriptWriteFailed
from agent_cli.events import ToolFinished
from agent_cli.provider.offline import OfflineProvider
from agent_cli.store.artifacts import RESULTS_FOLDER
from agent_cli.store.paths import resolve_state_paths

BIG_OUTPUT_COMMAND = "seq 1 20000"  # about 108 KB: far over the artifact threshold
ANSWER = [{"type": "text", "text": "done"}]


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("the build uses make\n")
    return root


def run_main(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    from agent_cli.repl.main import main

    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(""), stdout=stdout, stderr=stderr, env=env)
    return code, stderr.getvalue()


# --- the state folder ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_home, reason",
    [
        (lambda tmp: tmp / "a-file" / "home", "ENOTDIR"),
        (lambda tmp: tmp / "a-file", "not_a_directory"),
        (lambda tmp: tmp / ("x" * 300), "ENAMETOOLONG"),
    ],
    ids=["under a regular file", "is a regular file", "name too long"],
)
def test_an_unusable_state_home_is_refused_with_a_clear_message(
    tmp_path: Path, workspace: Path, make_home, reason: str
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
    assert code == 1
    assert "cannot use the state folder" in said and "AGENT_CLI_HOME" in said
    assert reason in said and "Traceback" not in said
    assert (tmp_path / "a-file").read_text() == "not a folder"


def test_a_transcripts_folder_replaced_by_a_file_refuses_the_session(workspace: Path) -> None:
    paths = resolve_state_paths()
    paths.transcripts.rmdir()
    paths.transcripts.write_text("in the way")
    with pytest.raises(StateDirUnavailable) as caught:
        make_session(workspace, OfflineProvider())
    assert caught.value.reason == "not_a_directory"
    assert paths.transcripts.read_text() == "in the way"


# --- a full disk while appending a transcript record --------------------------------------


@pytest.mark.parametrize("room", [0, 40], ids=["ENOSPC at once", "a short write first"])
def test_a_full_disk_at_the_user_message_ends_the_turn_with_nothing_half_written(
    workspace: Path, room: int
) -> None:
    disk = FillableDisk()
    provider = ScriptedProvider()
    session = make_session(workspace, provider, transcript_fs=disk)
    assert turn_end(drain(session.run_turn("first"))).outcome == "ok"
    before = take_snapshot(session)

    disk.fill(room=room)
    events = drain(session.run_turn("second " * 50))

    assert turn_end(events).outcome == "failed"
    [notice] = notices(events, "transcript_write_failed")
    assert "nothing was half-written" in notice.text and "Free disk space" in notice.text
    assert ("ENOSPC" if room == 0 else "short_write") in notice.text
    assert take_snapshot(session) == before
    assert len(provider.requests) == 1  # nothing was sent for the failed turn
    disk.free()
    assert turn_end(drain(session.run_turn("third"))).outcome == "ok"
    assert_history_is_valid(session)


def test_a_full_disk_at_the_answer_keeps_only_the_recorded_user_message(workspace: Path) -> None:
    disk = FillableDisk()
    session = make_session(workspace, ScriptedProvider(), transcript_fs=disk)
    drain(session.run_turn("first"))
    before = take_snapshot(session)

    disk.fill(when=b'"role":"assistant"', room=25)
    events = drain(session.run_turn("second"))

    assert turn_end(events).outcome == "failed"
    assert notices(events, "transcript_write_failed")
    after = take_snapshot(session)
    assert after.view == [*before.view, {"role": "user", "content": "second"}]
    assert after.transcript_lines[: len(before.transcript_lines)] == before.transcript_lines
    new = [json.loads(line) for line in after.transcript_lines[len(before.transcript_lines) :]]
    assert [r["kind"] for r in new] == ["message", "usage"]  # the request did happen
    assert b'"role":"assistant"' not in b"".join(after.transcript_lines[-2:])
    assert_history_is_valid(session)
    disk.free()
    assert turn_end(drain(session.run_turn("third"))).outcome == "ok"
    assert_history_is_valid(session)


def test_a_full_disk_at_the_tool_results_loses_nothing_once_space_returns(workspace: Path) -> None:
    disk = FillableDisk()
    provider = ScriptedProvider([[tool_use("t1", "read_file", path="notes.txt")], ANSWER])
    session = make_session(workspace, provider, transcript_fs=disk)
    disk.fill(when=b'"tool_result"')

    events = drain(session.run_turn("read notes.txt"))

    assert turn_end(events).outcome == "failed"
    assert notices(events, "transcript_write_failed") and notices(events, "results_held")
    assert [e.name for e in events if isinstance(e, ToolFinished)] == ["read_file"]
    assert session.view == [{"role": "user", "content": "read notes.txt"}]
    validate_view_only(session)
    events = drain(session.run_turn("still full?"))  # the held results go first: refused
    assert turn_end(events).outcome == "failed"
    assert session.view == [{"role": "user", "content": "read notes.txt"}]
    disk.free()
    events = drain(session.run_turn("and now?"))
    assert turn_end(events).outcome == "ok"
    assert notices(events, "results_recorded")
    assert_history_is_valid(session)
    assert "the build uses make" in session.view[2]["content"][0]["content"]
    assert session.view[3] == {"role": "user", "content": "and now?"}
    session_id = session.session_id
    session.close()
    resumed = make_session(workspace, OfflineProvider(), resume=session_id)
    assert resumed.view == session.view


def test_held_tool_results_are_recorded_before_a_forced_compaction(workspace: Path) -> None:
    disk = FillableDisk()
    provider = ScriptedProvider(
        [[tool_use("t1", "read_file", path="notes.txt")], ANSWER],
        summarizer=lambda messages: "short summary",
    )
    session = make_session(workspace, provider, transcript_fs=disk)
    disk.fill(when=b'"tool_result"')
    drain(session.run_turn("read notes.txt"))
    disk.free()

    drain(session.compact_now())

    assert session.held_results is None
    assert_history_is_valid(session)


def test_held_tool_results_are_recorded_when_the_session_closes(workspace: Path) -> None:
    disk = FillableDisk()
    provider = ScriptedProvider([[tool_use("t1", "read_file", path="notes.txt")], ANSWER])
    session = make_session(workspace, provider, transcript_fs=disk)
    disk.fill(when=b'"tool_result"')
    drain(session.run_turn("read notes.txt"))
    disk.free()
    session.close()

    resumed = make_session(workspace, OfflineProvider(), resume=session.session_id)

    assert "the build uses make" in resumed.view[2]["content"][0]["content"]
    assert not resumed.startup_notices  # nothing had to be repaired
    assert_history_is_valid(resumed)


def validate_view_only(session) -> None:
    from agent_cli.protocol import validate_tool_protocol

    validate_tool_protocol(session.view)


# --- a full disk while writing an artifact -------------------------------------------------


@pytest.mark.parametrize("room", [0, 5_000], ids=["ENOSPC at once", "part written first"])
def test_a_full_disk_at_an_artifact_leaves_no_pointer_and_no_partial_bytes(
    workspace: Path, isolated_home: Path, room: int
) -> None:
    disk = FillableDisk()
    provider = ScriptedProvider(
        [
            [tool_use("t1", "bash", command=BIG_OUTPUT_COMMAND)],
            ANSWER,
            [tool_use("t2", "bash", command=BIG_OUTPUT_COMMAND)],
            ANSWER,
        ]
    )
    session = make_session(workspace, provider, artifact_fs=disk)
    disk.fill(room=room)

    events = drain(session.run_turn("count to 20000"))

    assert turn_end(events).outcome == "ok"
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.artifact_pointer is None and finished.summary.endswith("truncated")
    result = session.view[2]["content"][0]["content"]
    assert "Saving it as an artifact failed (ArtifactWriteFailed)" in result
    assert "there is no artifact pointer" in result and "artifact:" not in result
    folder = isolated_home / session.session_id / RESULTS_FOLDER
    assert list(folder.iterdir()) == []  # no partial file, no temp file
    assert_history_is_valid(session)

    disk.free()
    events = drain(session.run_turn("count again"))
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.artifact_pointer is not None
    stored = session.toolbox.run(
        "read_artifact", {"pointer": finished.artifact_pointer, "offset": 0, "limit": 100}
    )
    assert not stored.is_error and "19999" not in stored.content
    [path] = folder.iterdir()
    assert path.read_text().endswith("\n19999\n20000\n")
    assert_history_is_valid(session)


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
        assert f"changed under this session ({reason})" in notice.text
        assert "/new" in notice.text
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
    validate_view_only(resumed)
    assert len(resumed.view) < len(session.view)
    assert turn_end(drain(resumed.run_turn("list ."))).outcome == "ok"
    assert_history_is_valid(resumed)


# --- a full disk under a durable-state command ----------------------------------------------


def test_a_full_disk_refuses_remember_before_anything_changes(workspace: Path) -> None:
    disk = FillableDisk()
    session = make_session(workspace, OfflineProvider(), transcript_fs=disk)
    disk.fill()
    with pytest.raises(TranscriptWriteFailed):
        session.remember("The build uses make")
    assert session.durable_state.facts == ()
    reopened = make_session(workspace, OfflineProvider())
    assert reopened.durable_state.facts == ()


def test_remember_is_kept_when_only_its_bookkeeping_record_meets_a_full_disk(
    workspace: Path,
) -> None:
    disk = FillableDisk()
    session = make_session(workspace, OfflineProvider(), transcript_fs=disk)
    disk.fill(when=b'"kind":"durable_change"')

    fact = session.remember("The build uses make")  # the change is made: it must not raise

    assert [f.content for f in session.durable_state.facts] == ["The build uses make"]
    [resolution] = session.resolve_sources()
    assert resolution.pointer == fact.source_pointer and resolution.status.value == "available"
    reopened = make_session(workspace, OfflineProvider())
    assert [f.content for f in reopened.durable_state.facts] == ["The build uses make"]


# --- a full disk at a compaction record ------------------------------------------------------


def test_a_compaction_that_cannot_be_recorded_sends_nothing_and_changes_nothing(
    workspace: Path,
) -> None:
    disk = FillableDisk()
    provider = ScriptedProvider(summarizer=lambda messages: "The user wrote alphas.")
    session = make_session(
        workspace, provider, soft=3_000, hard=5_000, keep_recent=2, transcript_fs=disk
    )
    drain(session.run_turn("alpha " * 1_000))
    before = take_snapshot(session)
    sent_before = len(provider.requests)
    disk.fill(when=b'"kind":"compaction"')

    events = drain(session.run_turn("beta " * 2_800))  # over the hard limit until compacted

    assert turn_end(events).outcome == "failed"
    assert notices(events, "transcript_write_failed")
    assert len(provider.requests) == sent_before  # an oversize view was not sent
    assert session.view == [*before.view, {"role": "user", "content": "beta " * 2_800}]
    assert_history_is_valid(session)
    disk.free()
    assert turn_end(drain(session.run_turn("go on"))).outcome == "ok"
    assert_history_is_valid(session)
