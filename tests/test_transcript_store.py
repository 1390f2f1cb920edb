"""Transcript store: record format, replay, listing, session ids, permissions."""

from __future__ import annotations

import json
import os
import re
import stat
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from agent_cli.errors import InvalidStoreInput, SessionNotFound, TranscriptWriteFailed
from agent_cli.store.transcript import TranscriptStore

SID = "20261202-145601-ab12cd"
T0 = datetime(2026, 12, 2, 14, 56, 1, tzinfo=UTC)


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


@pytest.fixture
def store(tmp_path: Path) -> TranscriptStore:
    return TranscriptStore(tmp_path / "transcripts")


def write_session(
    store: TranscriptStore, session_id: str, count: int, workspace: str | None = "/work/project"
) -> None:
    with store.open_writer(session_id) as writer:
        if workspace is not None:
            writer.append("session_started", {"workspace": workspace}, at(0))
        for n in range(count):
            writer.append("message", {"n": n}, at(n + 1))


def test_append_writes_one_compact_json_line_with_the_full_record(store: TranscriptStore) -> None:
    with store.open_writer(SID) as writer:
        record = writer.append("message", {"text": "héllo"}, at(0))
    assert record == {
        "schema_version": 1,
        "session_id": SID,
        "sequence": 1,
        "event_id": f"transcript:{SID}:1",
        "recorded_at": "2026-12-02T14:56:01+00:00",
        "kind": "message",
        "payload": {"text": "héllo"},
    }
    raw = store.path_for(SID).read_bytes()
    assert raw.count(b"\n") == 1 and raw.endswith(b"\n")
    assert "héllo".encode() in raw and b", " not in raw
    assert json.loads(raw) == record


def test_sequences_count_up_from_one_and_replay_returns_them_in_order(
    store: TranscriptStore,
) -> None:
    write_session(store, SID, 5)
    records = list(store.replay(SID))
    assert [r["sequence"] for r in records] == [1, 2, 3, 4, 5, 6]
    assert [r["payload"].get("n") for r in records[1:]] == [0, 1, 2, 3, 4]


def test_reopening_continues_the_sequence(store: TranscriptStore) -> None:
    write_session(store, SID, 2)
    with store.open_writer(SID) as writer:
        assert writer.next_sequence == 4
        assert writer.append("notice", {"code": "resumed"}, at(9))["sequence"] == 4


def test_recorded_at_keeps_its_time_zone(store: TranscriptStore) -> None:
    zone = timezone(timedelta(hours=8))
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, datetime(2026, 1, 1, 9, 0, tzinfo=zone))
    assert next(store.replay(SID))["recorded_at"] == "2026-01-01T09:00:00+08:00"


@pytest.mark.parametrize("recorded_at", [datetime(2026, 1, 1), "2026-01-01T00:00:00+00:00"])
def test_append_refuses_a_timestamp_without_a_zone(
    store: TranscriptStore, recorded_at: object
) -> None:
    with store.open_writer(SID) as writer:
        with pytest.raises(InvalidStoreInput) as caught:
            writer.append("notice", {}, recorded_at)  # type: ignore[arg-type]
        assert caught.value.field == "recorded_at"
        assert writer.next_sequence == 1
    assert store.path_for(SID).read_bytes() == b""


@pytest.mark.parametrize(
    ("kind", "payload", "field"),
    [
        ("", {}, "kind"),
        ("notice", ["not", "a", "mapping"], "payload"),
        ("notice", {"x": float("nan")}, "payload"),
        ("notice", {"x": object()}, "payload"),
        ("notice", {"x": "\ud800"}, "payload"),
    ],
)
def test_append_refuses_values_that_would_not_read_back(
    store: TranscriptStore, kind: str, payload: object, field: str
) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {"code": "first"}, at(0))
        with pytest.raises(InvalidStoreInput) as caught:
            writer.append(kind, payload, at(1))  # type: ignore[arg-type]
        assert caught.value.field == field
        assert writer.append("notice", {}, at(2))["sequence"] == 2
    assert len(list(store.replay(SID))) == 2


def test_append_after_close_is_refused(store: TranscriptStore) -> None:
    writer = store.open_writer(SID)
    writer.close()
    writer.close()
    with pytest.raises(TranscriptWriteFailed) as caught:
        writer.append("notice", {}, at(0))
    assert caught.value.errno_name == "EBADF"


def test_replay_of_an_unknown_session_raises_at_the_call(store: TranscriptStore) -> None:
    with pytest.raises(SessionNotFound):
        store.replay("nobody")


def test_a_symlinked_transcript_is_not_a_session(store: TranscriptStore, tmp_path: Path) -> None:
    write_session(store, SID, 1)
    os.symlink(store.path_for(SID), store.path_for("alias"))
    with pytest.raises(SessionNotFound):
        store.replay("alias")
    assert not store.exists("alias") and store.exists(SID)
    assert [info.session_id for info in store.list_sessions()] == [SID]


@pytest.mark.parametrize(
    "bad_id",
    [
        "",
        ".",
        "..",
        "../escape",
        "a/b",
        "a\\b",
        ".hidden",
        "-dash",
        " x",
        "x\n",
        "é",
        "x" * 201,
        "a:b",
        "٣",
    ],
)
def test_bad_session_ids_are_refused_before_any_path_is_touched(
    store: TranscriptStore, bad_id: str
) -> None:
    for action in (store.path_for, store.open_writer, store.replay, store.exists):
        with pytest.raises(InvalidStoreInput) as caught:
            action(bad_id)
        assert caught.value.field == "session_id"
    assert not store.root.exists()


def test_the_longest_allowed_session_id_works(store: TranscriptStore) -> None:
    longest = "a" + "b" * 199
    write_session(store, longest, 1)
    assert len(list(store.replay(longest))) == 2


def test_new_session_ids_follow_the_grammar_and_the_clock(store: TranscriptStore) -> None:
    first = store.new_session_id(T0)
    assert re.fullmatch(r"20261202-145601-[0-9a-f]{6}", first)
    assert len({store.new_session_id(T0) for _ in range(20)}) > 1
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", store.new_session_id())


def test_files_are_0600_and_the_root_is_0700(store: TranscriptStore) -> None:
    previous = os.umask(0)
    try:
        write_session(store, SID, 1)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(store.root).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(store.path_for(SID)).st_mode) == 0o600


def test_list_sessions_is_newest_first_with_the_workspace(store: TranscriptStore) -> None:
    write_session(store, "older", 1, workspace="/a")
    write_session(store, "newer", 1, workspace="/b")
    write_session(store, "no-start", 1, workspace=None)
    os.utime(store.path_for("older"), (1_000, 1_000))
    os.utime(store.path_for("newer"), (3_000, 3_000))
    os.utime(store.path_for("no-start"), (2_000, 2_000))
    listed = store.list_sessions()
    assert [(i.session_id, i.workspace) for i in listed] == [
        ("newer", "/b"),
        ("no-start", None),
        ("older", "/a"),
    ]
    assert listed[0].modified_at == datetime.fromtimestamp(3_000, UTC)
    assert listed[0].path == store.path_for("newer")
    assert listed[0].size_bytes == store.path_for("newer").stat().st_size


def test_list_sessions_reads_only_the_first_line(store: TranscriptStore) -> None:
    write_session(store, SID, 1, workspace="/w")
    with open(store.path_for(SID), "ab") as handle:
        handle.write(b"garbage in the middle\n{}\n")
    assert [i.workspace for i in store.list_sessions()] == ["/w"]


def test_list_sessions_ignores_side_files_and_foreign_names(store: TranscriptStore) -> None:
    write_session(store, SID, 1)
    (store.root / f"{SID}.jsonl.torn-1").write_bytes(b"{")
    (store.root / ".hidden.jsonl").write_bytes(b"")
    (store.root / "notes.txt").write_bytes(b"")
    (store.root / "folder.jsonl").mkdir()
    assert [i.session_id for i in store.list_sessions()] == [SID]


def test_list_sessions_of_a_missing_root_is_empty(tmp_path: Path) -> None:
    assert TranscriptStore(tmp_path / "none").list_sessions() == []
