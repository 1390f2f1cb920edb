"""Transcript validation on replay and on open: torn tails, lying records, huge lines."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent_cli.errors import TranscriptCorrupt
from agent_cli.store.records import build_record
from agent_cli.store.transcript import TranscriptStore

SID = "s1"
T0 = datetime(2026, 12, 2, 14, 56, 1, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> TranscriptStore:
    return TranscriptStore(tmp_path / "transcripts")


def valid_line(sequence: int, overrides: dict[str, object] | None = None) -> bytes:
    record, line = build_record(
        SID, sequence, "message", {"n": sequence}, T0 + timedelta(seconds=sequence)
    )
    if not overrides:
        return line
    record.update(overrides)
    return (json.dumps(record) + "\n").encode()


def write_raw(store: TranscriptStore, *lines: bytes) -> Path:
    store.root.mkdir(parents=True, exist_ok=True)
    path = store.path_for(SID)
    path.write_bytes(b"".join(lines))
    return path


def side_files(store: TranscriptStore) -> list[Path]:
    return sorted(store.root.glob(f"{SID}.jsonl.torn-*"))


@pytest.mark.parametrize(
    "torn",
    [
        b'{"schema_version":1,"sess',  # cut mid-record
        b"\x00\x00\x00\x00",  # zero-filled block after a crash
        b"\xff\xfe not utf-8",  # invalid bytes without newline
        b"{}",  # parses, but has no newline: never acknowledged
    ],
)
def test_a_torn_tail_is_moved_aside_and_the_sequence_continues(
    store: TranscriptStore, torn: bytes
) -> None:
    good = valid_line(1) + valid_line(2)
    path = write_raw(store, good, torn)
    assert [r["sequence"] for r in store.replay(SID)] == [1, 2]
    with store.open_writer(SID) as writer:
        assert writer.next_sequence == 3
        assert writer.torn_tail == (store.root / f"{SID}.jsonl.torn-1", len(torn))
        writer.append("notice", {}, T0)
    assert path.read_bytes().startswith(good)
    assert [r["sequence"] for r in store.replay(SID)] == [1, 2, 3]
    [side] = side_files(store)
    assert side.read_bytes() == torn
    assert side.name == f"{SID}.jsonl.torn-1"
    assert stat.S_IMODE(os.stat(side).st_mode) == 0o600


def test_an_unparsable_last_line_with_a_newline_is_also_torn(store: TranscriptStore) -> None:
    write_raw(store, valid_line(1), b"{broken\n")
    with store.open_writer(SID) as writer:
        assert writer.next_sequence == 2
    assert side_files(store)[0].read_bytes() == b"{broken\n"


def test_a_file_that_is_only_a_torn_line_starts_again_at_one(store: TranscriptStore) -> None:
    write_raw(store, b'{"schema')
    with store.open_writer(SID) as writer:
        assert writer.next_sequence == 1
    assert store.path_for(SID).read_bytes() == b""


def test_torn_side_files_are_numbered_and_never_overwritten(store: TranscriptStore) -> None:
    path = write_raw(store, valid_line(1), b"first tear")
    store.open_writer(SID).close()
    with open(path, "ab") as handle:
        handle.write(b"second tear")
    store.open_writer(SID).close()
    assert [p.read_bytes() for p in side_files(store)] == [b"first tear", b"second tear"]


@pytest.mark.parametrize(
    ("middle", "reason"),
    [
        (valid_line(5), "sequence_gap"),
        (valid_line(2, {"event_id": f"transcript:{SID}:7"}), "event_id_mismatch"),
        (valid_line(2, {"session_id": "other"}), "session_id_mismatch"),
        (valid_line(2, {"sequence": "2"}), "bad_sequence"),
        (valid_line(2, {"sequence": True}), "bad_sequence"),
        (valid_line(2, {"sequence": 2.0}), "bad_sequence"),
        (valid_line(2, {"schema_version": 2}), "bad_schema_version"),
        (valid_line(2, {"schema_version": 1.0}), "bad_schema_version"),
        (valid_line(2, {"recorded_at": "2026-12-02T14:56:01"}), "bad_recorded_at"),
        (valid_line(2, {"payload": "text"}), "bad_payload"),
        (valid_line(2, {"kind": ""}), "bad_kind"),
        (b"[1, 2]\n", "not_an_object"),
        (b"{not json\n", "invalid_json"),
        (b"\n", "invalid_json"),
        (b"\xff\xfe\n", "invalid_utf8"),
        (b'{"a": NaN}\n', "invalid_json"),
        (b'{"a": 1e400}\n', "invalid_json"),  # read as infinity: the SDK would raise on it
        (b'{"a": -1.5e999}\n', "invalid_json"),
    ],
)
def test_a_bad_record_in_the_middle_is_reported_with_its_line(
    store: TranscriptStore, middle: bytes, reason: str
) -> None:
    path = write_raw(store, valid_line(1), middle, valid_line(3))
    before = path.read_bytes()
    replayed: list[int] = []
    with pytest.raises(TranscriptCorrupt) as caught:
        replayed.extend(r["sequence"] for r in store.replay(SID))
    assert (caught.value.line_number, caught.value.reason) == (2, reason)
    assert replayed == [1]  # streaming: the good record came out before the error
    with pytest.raises(TranscriptCorrupt) as on_open:
        store.open_writer(SID)
    assert on_open.value.line_number == 2
    assert path.read_bytes() == before
    assert side_files(store) == []


def test_a_last_line_that_parses_but_lies_is_corrupt_not_torn(store: TranscriptStore) -> None:
    path = write_raw(store, valid_line(1), valid_line(3))
    with pytest.raises(TranscriptCorrupt) as caught:
        store.open_writer(SID)
    assert (caught.value.line_number, caught.value.reason) == (2, "sequence_gap")
    assert path.read_bytes() == valid_line(1) + valid_line(3)


def test_a_refused_open_releases_the_lock(store: TranscriptStore) -> None:
    write_raw(store, b"{bad\n", valid_line(1))
    for _ in range(2):
        with pytest.raises(TranscriptCorrupt):
            store.open_writer(SID)


def test_records_must_start_at_sequence_one(store: TranscriptStore) -> None:
    write_raw(store, valid_line(2))
    with pytest.raises(TranscriptCorrupt) as caught:
        list(store.replay(SID))
    assert (caught.value.line_number, caught.value.reason) == (1, "sequence_gap")


def test_a_five_megabyte_record_appends_and_replays_whole(store: TranscriptStore) -> None:
    big = "x" * (5 * 1024 * 1024) + 'é\n"end'
    with store.open_writer(SID) as writer:
        writer.append("notice", {"code": "before"}, T0)
        writer.append("message", {"text": big}, T0)
        writer.append("notice", {"code": "after"}, T0)
    records = list(store.replay(SID))
    assert records[1]["payload"]["text"] == big
    assert [r["sequence"] for r in records] == [1, 2, 3]
    assert store.path_for(SID).read_bytes().count(b"\n") == 3
    with store.open_writer(SID) as writer:
        assert writer.next_sequence == 4


def test_a_huge_torn_line_is_moved_aside_whole(store: TranscriptStore) -> None:
    torn = b'{"payload":"' + b"y" * (3 * 1024 * 1024)
    write_raw(store, valid_line(1), torn)
    with store.open_writer(SID) as writer:
        assert writer.next_sequence == 2
    assert side_files(store)[0].read_bytes() == torn


def test_deleting_a_session_removes_the_torn_lines_set_aside_beside_it(
    store: TranscriptStore,
) -> None:
    """The review: `/sessions delete` said 'deleted' and left `<id>.jsonl.torn-1`, which
    holds part of the transcript, on disk; a link by that name is left alone."""
    write_raw(store, valid_line(1), b'{"cut')
    store.open_writer(SID).close()
    write_raw(store, valid_line(1), valid_line(2), b'{"cut again')  # a second crash
    store.open_writer(SID).close()
    other = store.root / "elsewhere.txt"
    other.write_text("not the store's")
    (store.root / f"{SID}.jsonl.torn-9").symlink_to(other)
    assert len(side_files(store)) == 3
    store.delete(SID)
    assert [p.name for p in side_files(store)] == [f"{SID}.jsonl.torn-9"]
    assert other.read_text() == "not the store's"
