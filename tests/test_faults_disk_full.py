"""A full disk under a running session: ENOSPC (or a short write first) while appending
each kind of transcript record, and while writing an artifact.

The promises: the user is told; no half record is left in the transcript; no artifact
pointer names bytes that were not fully written; the view never holds what the transcript
does not; and once the disk has room again the session goes on, losing nothing.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from faults_support import (
    FillableDisk,
    assert_history_is_valid,
    notices,
    take_snapshot,
    turn_end,
)
from session_support import ScriptedProvider, drain, make_session, plain, tool_use, workspace_with

from agent_cli.errors import TranscriptWriteFailed
from agent_cli.events import ToolFinished
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.offline import OfflineProvider
from agent_cli.repl.error_text import notice_text
from agent_cli.store.artifact_removal import RESULTS_FOLDER

BIG_OUTPUT_COMMAND = "seq 1 20000"  # about 108 KB: far over the artifact threshold
ANSWER = [{"type": "text", "text": "done"}]


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path, {"notes.txt": "the build uses make\n"})


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
    assert "nothing was half-written" in notice_text(notice) and "Free disk space" in notice_text(
        notice
    )
    assert "ENOSPC" in notice_text(notice)  # a short write first: the rest says why
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
    assert plain(after.view) == plain([*before.view, {"role": "user", "content": "second"}])
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
    assert plain(session.view) == plain([{"role": "user", "content": "read notes.txt"}])
    validate_tool_protocol(session.view)
    events = drain(session.run_turn("still full?"))  # the held results go first: refused
    assert turn_end(events).outcome == "failed"
    assert plain(session.view) == plain([{"role": "user", "content": "read notes.txt"}])
    disk.free()
    events = drain(session.run_turn("and now?"))
    assert turn_end(events).outcome == "ok"
    assert notices(events, "results_recorded")
    assert_history_is_valid(session)
    assert "the build uses make" in session.view[2]["content"][0]["content"]
    assert plain([session.view[3]]) == [{"role": "user", "content": "and now?"}]
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


# --- a full disk while writing an artifact -------------------------------------------------


def test_an_answer_whose_large_call_cannot_be_stored_is_said_arrived_and_not_kept(
    workspace: Path,
) -> None:
    """A 400 KB write_file from the model is stored apart (oversized); the store refusing
    it said "Storage error: ArtifactWriteFailed" (session 26's outside test): now the user
    is told the answer arrived and is billed, what to do, and that nothing ran."""
    disk = FillableDisk()
    big = tool_use("t_big", "write_file", path="data.txt", content="x" * 400_000)
    provider = ScriptedProvider([[big], ANSWER])
    session = make_session(workspace, provider, message_limit=0, artifact_fs=disk)
    disk.fill(room=0)

    events = drain(session.run_turn("rewrite data"))

    assert turn_end(events).outcome == "failed"
    [notice] = notices(events, "answer_not_kept")
    said = notice_text(notice)
    assert said.startswith("The model's answer arrived (its tokens are billed)")
    assert "(the disk is full, ENOSPC)" in said and "none of its tool calls ran" in said
    assert not (workspace / "data.txt").exists()
    assert [m["role"] for m in plain(session.view)] == ["user"]  # the request only
    assert_history_is_valid(session)


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


def test_a_full_disk_at_a_large_message_says_it_was_neither_sent_nor_recorded(
    workspace: Path,
) -> None:
    """A message over the per-message cap is stored whole as an artifact before it is
    recorded; when that write fails, the user is told their words went nowhere."""
    disk = FillableDisk()
    provider = ScriptedProvider()
    session = make_session(workspace, provider, artifact_fs=disk, message_limit=0)
    assert turn_end(drain(session.run_turn("first"))).outcome == "ok"
    before = take_snapshot(session)
    big = "an important pasted line\n" * 5_000  # over a quarter of the soft threshold

    disk.fill(room=0)
    events = drain(session.run_turn(big))

    assert turn_end(events).outcome == "failed"
    [notice] = notices(events, "message_not_stored")
    words = notice_text(notice)
    assert f"({len(big):,} characters) was not sent" in words and "full, ENOSPC)" in words
    assert "Nothing was recorded" in words and "Free disk space" in words
    assert take_snapshot(session) == before and len(provider.requests) == 1
    disk.free()
    events = drain(session.run_turn(big))
    assert turn_end(events).outcome == "ok" and notices(events, "message_stored")
    assert_history_is_valid(session)


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
    assert plain(session.view) == plain(
        [*before.view, {"role": "user", "content": "beta " * 2_800}]
    )
    assert_history_is_valid(session)
    disk.free()
    assert turn_end(drain(session.run_turn("go on"))).outcome == "ok"
    assert_history_is_valid(session)


class DiskThatCannotCutEither(FillableDisk):
    """A full disk on which the roll-back's cut fails too (EIO), until space is freed."""

    def ftruncate(self, fd: int, size: int) -> None:
        if self.is_full:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        super().ftruncate(fd, size)


def test_a_failed_roll_back_needs_no_restart_once_the_disk_is_fixed(workspace: Path) -> None:
    disk = DiskThatCannotCutEither()
    session = make_session(workspace, ScriptedProvider(), transcript_fs=disk)
    drain(session.run_turn("first"))
    disk.fill(when=b'"role":"assistant"', room=25)  # a half line stays: the cut fails
    assert turn_end(drain(session.run_turn("second"))).outcome == "failed"
    still_full = drain(session.run_turn("third"))  # nothing fixed yet: still refused
    assert turn_end(still_full).outcome == "failed"
    assert notices(still_full, "transcript_write_failed")

    disk.free()  # the user fixes the disk; the same session goes on
    assert turn_end(drain(session.run_turn("fourth"))).outcome == "ok"
    assert_history_is_valid(session)
    transcript = session_transcript(session)
    assert all(json.loads(line) for line in transcript.read_bytes().splitlines())
    (torn,) = transcript.parent.glob(f"{transcript.name}.torn-*")
    assert len(torn.read_bytes()) == 25  # the half line, kept aside, not in the transcript


def session_transcript(session) -> Path:
    from agent_cli.store.paths import resolve_state_paths

    return resolve_state_paths().transcripts / f"{session.session_id}.jsonl"
