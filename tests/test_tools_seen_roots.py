"""What the model saw is held relative to the folder the tools ran in, and put back under
the folder they run in now (`tools.seen_roots`), read back from a transcript's
`file_seen` payload (`session.seen_records`).

Found (session 28): records held absolute paths, so after `mv ws ws-moved` (or through a
link left at `ws`) a resume matched none of them and a stale write went through.
"""

from __future__ import annotations

from pathlib import Path

from agent_cli.session.seen_records import read_seen_record, seen_payload
from agent_cli.tools.seen_roots import SeenRecord, SeenRoot, reroot, rooted

FP = ("hmac-sha256", "aa")
OLD = SeenRoot(Path("/home/u/ws"), (64, 1001))


def test_a_path_below_the_root_is_recorded_relative_to_it_and_one_outside_is_not():
    record = rooted(Path("/home/u/ws/docs/notes.md"), FP, OLD)
    assert record == SeenRecord(Path("docs/notes.md"), FP, OLD)
    assert record is not None and record.absolute == Path("/home/u/ws/docs/notes.md")
    assert rooted(Path("/home/u/other/notes.md"), FP, OLD) is None
    assert rooted(Path("/home/u/ws"), FP, OLD) is None


def test_a_record_follows_its_folder_moved_renamed_or_reached_through_a_link():
    moved = SeenRoot(Path("/home/u/ws-moved"), (64, 1001))  # the same device and inode
    records = [SeenRecord(Path("notes.md"), FP, OLD)]
    assert reroot(records, moved, Path("/home/u/ws")) == [(Path("/home/u/ws-moved/notes.md"), FP)]


def test_a_folder_made_again_at_the_same_path_keeps_its_records():
    again = SeenRoot(Path("/home/u/ws"), (64, 2002))
    records = [SeenRecord(Path("notes.md"), FP, OLD)]
    assert reroot(records, again, Path("/home/u/ws")) == [(Path("/home/u/ws/notes.md"), FP)]


def test_a_record_of_another_folder_is_left_out_so_it_refuses_nothing_here():
    elsewhere = SeenRoot(Path("/home/u/project-b"), (64, 3003))
    records = [SeenRecord(Path("notes.md"), FP, OLD)]
    assert reroot(records, elsewhere, Path("/home/u/ws")) == []


def test_an_older_absolute_record_is_re_rooted_from_the_sessions_recorded_workspace():
    moved = SeenRoot(Path("/home/u/ws-moved"), (64, 1001))
    records = [
        SeenRecord(Path("/home/u/ws/sub/a.md"), FP),
        SeenRecord(Path("/srv/other/b.md"), FP),  # not below the recorded workspace: as it was
    ]
    assert reroot(records, moved, Path("/home/u/ws")) == [
        (Path("/home/u/ws-moved/sub/a.md"), FP),
        (Path("/srv/other/b.md"), FP),
    ]
    assert reroot(records[:1], moved, None) == [(Path("/home/u/ws/sub/a.md"), FP)]


def test_records_keep_their_order_so_the_last_seen_of_a_path_wins():
    moved = SeenRoot(Path("/home/u/ws-moved"), (64, 1001))
    later = ("hmac-sha256", "bb")
    records = [
        SeenRecord(Path("/home/u/ws/notes.md"), FP),  # run 1, before records were rooted
        SeenRecord(Path("notes.md"), later, moved),  # run 2, in the moved folder
    ]
    placed = reroot(records, moved, Path("/home/u/ws"))
    assert dict(placed) == {Path("/home/u/ws-moved/notes.md"): later}


def test_a_payload_round_trips_and_an_unusable_one_is_passed_over():
    record = SeenRecord(Path("docs/notes.md"), FP, OLD)
    payload = seen_payload(record)
    assert payload == {
        "root": "/home/u/ws",
        "root_id": [64, 1001],
        "path": "docs/notes.md",
        "fingerprint": list(FP),
    }
    assert read_seen_record(payload) == record
    for bad in (
        {**payload, "path": "../outside.md"},
        {**payload, "path": "/abs/notes.md"},
        {**payload, "path": "."},
        {**payload, "root": "relative/ws"},
        {**payload, "fingerprint": []},
        {"path": "notes.md", "fingerprint": list(FP)},  # unrooted and not absolute
    ):
        assert read_seen_record(bad) is None, bad
    unknown = read_seen_record({**payload, "root_id": [64, True]})
    assert unknown == SeenRecord(Path("docs/notes.md"), FP, SeenRoot(OLD.path, None))


def test_a_root_not_in_utf8_is_kept_exactly():
    root = SeenRoot(Path("/home/u/proj\udce9"), (64, 7))
    record = SeenRecord(Path("n\udce9.md"), FP, root)
    assert read_seen_record(seen_payload(record)) == record
