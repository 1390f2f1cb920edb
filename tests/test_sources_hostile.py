"""The resolver against hostile pointers, links, lying records and damaged files."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_cli.sources import ParsedSourcePointer, SourcePointerResolver

T0 = "2024-05-01T10:00:00+00:00"


def record(session: str, sequence: int, **overrides) -> dict:
    value = {
        "schema_version": 1,
        "session_id": session,
        "sequence": sequence,
        "event_id": f"transcript:{session}:{sequence}",
        "recorded_at": T0,
        "kind": "message",
        "payload": {"n": sequence},
    }
    value.update(overrides)
    return value


def write_lines(path: Path, lines: list[bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def good_lines(session: str, count: int) -> list[bytes]:
    return [json.dumps(record(session, n)).encode() for n in range(1, count + 1)]


def write_artifact(folder: Path, name: str, data: bytes) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


class RecordingReads:
    """A `read_at` that delegates to os.pread, counts calls and can act once after n calls."""

    def __init__(self, after_calls: int | None = None, action=None) -> None:
        self.calls = 0
        self.after_calls = after_calls
        self.action = action

    def __call__(self, fd: int, size: int, offset: int) -> bytes:
        self.calls += 1
        data = os.pread(fd, size, offset)
        if self.action is not None and self.calls == self.after_calls:
            self.action()
            self.action = None
        return data


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / "transcripts").mkdir(parents=True)
    return tmp_path / "home"


def make_resolver(home: Path, **kwargs) -> SourcePointerResolver:
    return SourcePointerResolver(transcript_root=home / "transcripts", artifact_root=home, **kwargs)


# --- traversal and links -----------------------------------------------------------------


@pytest.mark.parametrize(
    "pointer",
    [
        "transcript:..:1",
        "transcript:../outside:1",
        "artifact:..:passwd:0123456789ab",
        "artifact:s1:..:0123456789ab",
        "artifact:s1:../../etc/passwd:0123456789ab",
        "artifact:s1:..\\x:0123456789ab",
        "transcript:%2e%2e:1",
        "transcript:/etc/passwd:1",
    ],
)
def test_traversal_pointers_are_corrupt_and_touch_no_file(home, pointer):
    reads = RecordingReads()
    asked: list[ParsedSourcePointer] = []
    resolver = make_resolver(home, read_at=reads, authorize=lambda p: asked.append(p) or True)
    found = resolver.resolve(pointer)
    assert found.status.value == "corrupt"
    assert reads.calls == 0 and asked == []


def test_a_transcript_symlink_to_a_file_outside_the_root_is_denied(home, tmp_path):
    outside = tmp_path / "outside.jsonl"
    write_lines(outside, good_lines("s1", 3))
    (home / "transcripts" / "s1.jsonl").symlink_to(outside)
    found = make_resolver(home).resolve("transcript:s1:2")
    assert (found.status.value, found.reason) == ("denied", "symlink")


def test_a_symlink_that_stays_inside_the_root_is_denied_too(home):
    write_lines(home / "transcripts" / "real.jsonl", good_lines("s1", 3))
    (home / "transcripts" / "s1.jsonl").symlink_to(home / "transcripts" / "real.jsonl")
    assert make_resolver(home).resolve("transcript:s1:1").reason == "symlink"


@pytest.mark.parametrize("linked", ["session", "tool-results", "file"])
def test_an_artifact_reached_through_any_symlink_is_denied(home, tmp_path, linked):
    outside = tmp_path / "elsewhere" / "s1" / "tool-results"
    digest = write_artifact(outside, "out.txt", b"secret outside the root")
    if linked == "session":
        (home / "s1").symlink_to(outside.parent)
    elif linked == "tool-results":
        (home / "s1").mkdir()
        (home / "s1" / "tool-results").symlink_to(outside)
    else:
        (home / "s1" / "tool-results").mkdir(parents=True)
        (home / "s1" / "tool-results" / "out.txt").symlink_to(outside / "out.txt")
    found = make_resolver(home).resolve(f"artifact:s1:out.txt:{digest}")
    assert (found.status.value, found.reason) == ("denied", "symlink")
    assert found.excerpt is None


def test_a_fifo_is_denied_without_blocking(home):
    os.mkfifo(home / "transcripts" / "s1.jsonl")
    assert make_resolver(home).resolve("transcript:s1:1").reason == "not_a_regular_file"


def test_a_directory_in_place_of_the_file_is_denied(home):
    (home / "s1" / "tool-results" / "out.txt").mkdir(parents=True)
    found = make_resolver(home).resolve("artifact:s1:out.txt:0123456789ab")
    assert (found.status.value, found.reason) == ("denied", "not_a_regular_file")


def test_a_file_in_place_of_the_session_folder_is_missing(home):
    (home / "s1").write_text("not a folder")
    found = make_resolver(home).resolve("artifact:s1:out.txt:0123456789ab")
    assert (found.status.value, found.reason) == ("missing", "not_a_directory")


# --- authorisation -------------------------------------------------------------------------


def test_authorize_runs_first_and_sees_the_parsed_pointer(home):
    reads = RecordingReads()
    seen: list[ParsedSourcePointer] = []

    def refuse(pointer: ParsedSourcePointer) -> bool:
        seen.append(pointer)
        return False

    found = make_resolver(home, authorize=refuse, read_at=reads).resolve("transcript:nobody:7")
    assert (found.status.value, found.reason) == ("denied", "not_authorized")
    assert seen == [ParsedSourcePointer("transcript", "nobody", sequence=7)]
    assert reads.calls == 0


def test_an_authorize_callback_that_raises_counts_as_denied(home):
    write_lines(home / "transcripts" / "s1.jsonl", good_lines("s1", 2))
    reads = RecordingReads()

    def explode(pointer: ParsedSourcePointer) -> bool:
        raise RuntimeError("policy backend down")

    found = make_resolver(home, authorize=explode, read_at=reads).resolve("transcript:s1:1")
    assert (found.status.value, found.reason) == ("denied", "authorize_failed")
    assert reads.calls == 0


@pytest.mark.parametrize("answer", [1, "yes", None, [True]])
def test_only_a_literal_true_from_authorize_allows_the_lookup(home, answer):
    write_lines(home / "transcripts" / "s1.jsonl", good_lines("s1", 2))
    found = make_resolver(home, authorize=lambda p: answer).resolve("transcript:s1:1")
    assert found.status.value == "denied"


def test_authorize_can_allow_one_session_and_deny_another(home):
    write_lines(home / "transcripts" / "mine.jsonl", good_lines("mine", 2))
    write_lines(home / "transcripts" / "theirs.jsonl", good_lines("theirs", 2))
    resolver = make_resolver(home, authorize=lambda p: p.session_id == "mine")
    assert resolver.resolve("transcript:mine:1").status.value == "available"
    assert resolver.resolve("transcript:theirs:1").status.value == "denied"


# --- artifacts whose bytes do not match ----------------------------------------------------


def test_artifact_bytes_changed_after_the_pointer_was_made_are_corrupt(home):
    folder = home / "s1" / "tool-results"
    digest = write_artifact(folder, "out.txt", b"original output")
    resolver = make_resolver(home)
    assert resolver.resolve(f"artifact:s1:out.txt:{digest[:12]}").status.value == "available"
    (folder / "out.txt").write_bytes(b"original outpuT")
    for prefix in (12, 64):
        found = resolver.resolve(f"artifact:s1:out.txt:{digest[:prefix]}")
        assert (found.status.value, found.reason) == ("corrupt", "digest_mismatch")


def test_an_artifact_not_utf8_whose_digest_matches_is_shown_as_binary_never_its_bytes(home):
    """Stored as given (an MCP blob): available, its text saying what it is; a changed one
    is still corrupt."""
    folder = home / "s1" / "tool-results"
    digest = write_artifact(folder, "bin.txt", b"ok \xff\xfe not text")
    found = make_resolver(home).resolve(f"artifact:s1:bin.txt:{digest}")
    assert (found.status.value, found.reason) == ("available", "ok")
    assert found.evidence_sha256 == digest
    assert found.excerpt == (
        "[binary data, 14 bytes, stored as given: not UTF-8 text, so recall cannot show it]"
    )
    (folder / "bin.txt").write_bytes(b"ok \xff\xfe not texT")
    changed = make_resolver(home).resolve(f"artifact:s1:bin.txt:{digest}")
    assert (changed.status.value, changed.reason) == ("corrupt", "digest_mismatch")


def test_a_multibyte_character_split_across_read_chunks_is_still_valid(home):
    data = b"a" * ((1 << 20) - 1) + "é".encode() + b"tail"
    digest = write_artifact(home / "s1" / "tool-results", "split.txt", data)
    assert (
        make_resolver(home).resolve(f"artifact:s1:split.txt:{digest}").status.value == "available"
    )


# --- transcript records that lie or are damaged ------------------------------------------


@pytest.mark.parametrize(
    "line, reason",
    [
        (json.dumps(record("s1", 4)), "sequence_mismatch"),
        (json.dumps(record("s1", "3")), "sequence_mismatch"),
        (json.dumps(record("s1", 3, session_id="s2")), "session_mismatch"),
        (json.dumps(record("s1", 3, event_id="transcript:s1:4")), "event_id_mismatch"),
        (json.dumps(record("s1", 3, event_id="transcript:s2:3")), "event_id_mismatch"),
        (json.dumps(record("s1", 3, schema_version=0)), "bad_schema_version"),
        (json.dumps({k: v for k, v in record("s1", 3).items() if k != "payload"}), "bad_envelope"),
        (json.dumps(record("s1", 3, kind="")), "bad_envelope"),
        (json.dumps(record("s1", 3, recorded_at="2024-05-01T10:00:00")), "bad_recorded_at"),
        ("[1, 2, 3]", "not_an_object"),
        ('"just a string"', "not_an_object"),
        ("42", "not_an_object"),
        ("{not json", "invalid_json"),
        ("[" * 100000 + "]" * 100000, "invalid_json"),
    ],
)
def test_a_transcript_record_that_lies_or_is_malformed_is_corrupt(home, line, reason):
    lines = good_lines("s1", 5)
    lines[2] = line.encode()
    write_lines(home / "transcripts" / "s1.jsonl", lines)
    resolver = make_resolver(home)
    found = resolver.resolve("transcript:s1:3")
    assert (found.status.value, found.reason) == ("corrupt", reason)
    assert resolver.resolve("transcript:s1:4").status.value == "available"


def test_a_record_with_invalid_utf8_is_corrupt(home):
    lines = good_lines("s1", 3)
    lines[1] = lines[1].replace(b'"message"', b'"mess\xc3\x28ge"')
    write_lines(home / "transcripts" / "s1.jsonl", lines)
    found = make_resolver(home).resolve("transcript:s1:2")
    assert (found.status.value, found.reason) == ("corrupt", "invalid_utf8")


def test_a_torn_last_line_is_not_a_record_yet(home):
    path = home / "transcripts" / "s1.jsonl"
    write_lines(path, good_lines("s1", 2))
    with path.open("ab") as handle:
        handle.write(json.dumps(record("s1", 3)).encode()[:20])
    found = make_resolver(home).resolve("transcript:s1:3")
    assert (found.status.value, found.reason) == ("missing", "sequence_not_found")


def test_a_huge_single_line_is_corrupt_and_never_read_into_memory(home):
    huge = json.dumps(record("s1", 2, payload={"blob": "x" * (17 * 1024 * 1024)})).encode()
    lines = good_lines("s1", 3)
    lines[1] = huge
    write_lines(home / "transcripts" / "s1.jsonl", lines)
    del huge, lines
    resolver = make_resolver(home)
    tracemalloc.start()
    try:
        over = resolver.resolve("transcript:s1:2")
        after = resolver.resolve("transcript:s1:3")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (over.status.value, over.reason) == ("corrupt", "record_too_large")
    assert after.status.value == "available"
    assert peak < 8 * 1024 * 1024


def test_the_record_size_limit_is_a_setting(home):
    write_lines(home / "transcripts" / "s1.jsonl", good_lines("s1", 2))
    found = make_resolver(home, max_record_bytes=50).resolve("transcript:s1:1")
    assert found.reason == "record_too_large"


# --- files that vanish while being read ----------------------------------------------------


def test_a_transcript_unlinked_mid_read_is_missing(home):
    path = home / "transcripts" / "s1.jsonl"
    write_lines(path, good_lines("s1", 3))
    reads = RecordingReads(after_calls=1, action=path.unlink)
    found = make_resolver(home, read_at=reads).resolve("transcript:s1:3")
    assert (found.status.value, found.reason) == ("missing", "vanished")


def test_a_transcript_truncated_mid_read_is_missing(home):
    path = home / "transcripts" / "s1.jsonl"
    write_lines(path, good_lines("s1", 3))
    reads = RecordingReads(after_calls=1, action=lambda: os.truncate(path, 0))
    found = make_resolver(home, read_at=reads).resolve("transcript:s1:3")
    assert (found.status.value, found.reason) == ("missing", "vanished")


@pytest.mark.parametrize("damage", ["unlink", "truncate"])
def test_an_artifact_that_vanishes_mid_read_is_missing(home, damage):
    folder = home / "s1" / "tool-results"
    digest = write_artifact(folder, "big.txt", b"y" * (3 << 20))
    target = folder / "big.txt"
    action = target.unlink if damage == "unlink" else (lambda: os.truncate(target, 10))
    reads = RecordingReads(after_calls=1, action=action)
    found = make_resolver(home, read_at=reads).resolve(f"artifact:s1:big.txt:{digest}")
    assert (found.status.value, found.reason) == ("missing", "vanished")


def test_a_file_deleted_before_the_lookup_is_missing(home):
    path = home / "transcripts" / "s1.jsonl"
    write_lines(path, good_lines("s1", 3))
    resolver = make_resolver(home)
    assert resolver.resolve("transcript:s1:3").status.value == "available"
    path.unlink()
    assert (resolver.resolve("transcript:s1:3").reason) == "not_found"


def test_a_file_swapped_for_a_symlink_just_before_the_open_is_denied(home, tmp_path):
    outside = tmp_path / "outside.jsonl"
    write_lines(outside, good_lines("s1", 3))
    path = home / "transcripts" / "s1.jsonl"
    write_lines(path, good_lines("s1", 3))

    def swap_then_allow(pointer: ParsedSourcePointer) -> bool:
        path.unlink()
        path.symlink_to(outside)
        return True

    found = make_resolver(home, authorize=swap_then_allow).resolve("transcript:s1:2")
    assert (found.status.value, found.reason) == ("denied", "symlink")


def test_a_trusted_root_that_is_itself_a_symlink_is_followed(home, tmp_path):
    write_lines(home / "transcripts" / "s1.jsonl", good_lines("s1", 2))
    (tmp_path / "linked-home").symlink_to(home)
    resolver = SourcePointerResolver(
        tmp_path / "linked-home" / "transcripts", tmp_path / "linked-home"
    )
    assert resolver.resolve("transcript:s1:2").status.value == "available"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_the_user_may_not_read_is_denied(home):
    path = home / "transcripts" / "s1.jsonl"
    write_lines(path, good_lines("s1", 2))
    path.chmod(0)
    try:
        found = make_resolver(home).resolve("transcript:s1:1")
    finally:
        path.chmod(0o600)
    assert (found.status.value, found.reason) == ("denied", "permission")


def deny_opening(*denied_names: str):
    """An `open_at` that refuses the named files or folders (EACCES), as a chmod 0 does for
    a user who is not root; the test then runs the same way as root, in CI too."""

    def open_at(name: str, flags: int, dir_fd: int | None) -> int:
        if os.path.basename(name) in denied_names:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)
        return os.open(name, flags, dir_fd=dir_fd)

    return open_at


@pytest.mark.parametrize(
    ("pointer", "denied_name"),
    [
        ("transcript:s1:1", "s1.jsonl"),
        ("transcript:s1:1", "transcripts"),  # the trusted root itself
        ("artifact:s1:a.txt:" + hashlib.sha256(b"artifact").hexdigest(), "a.txt"),
        ("artifact:s1:a.txt:" + hashlib.sha256(b"artifact").hexdigest(), "tool-results"),
    ],
)
def test_a_file_or_folder_the_process_may_not_open_is_denied(home, pointer, denied_name):
    write_lines(home / "transcripts" / "s1.jsonl", good_lines("s1", 2))
    write_artifact(home / "s1" / "tool-results", "a.txt", b"artifact")
    assert make_resolver(home).resolve(pointer).status.value == "available"
    found = make_resolver(home, open_at=deny_opening(denied_name)).resolve(pointer)
    assert (found.status.value, found.reason) == ("denied", "permission")


@settings(max_examples=400, deadline=None)
@given(
    pointer=st.one_of(
        st.text(max_size=80),
        st.builds(lambda a, b: f"transcript:{a}:{b}", st.text(max_size=12), st.text(max_size=6)),
        st.builds(
            lambda a, b, c: f"artifact:{a}:{b}:{c}",
            st.sampled_from(["s1", "..", "s1/x"]),
            st.text(max_size=12),
            st.text(alphabet="0123456789abcdefX", max_size=65),
        ),
    )
)
def test_resolve_never_raises_and_only_available_carries_evidence(tmp_path_factory, pointer):
    home = tmp_path_factory.getbasetemp() / "hypothesis-home"
    if not home.exists():
        write_lines(home / "transcripts" / "s1.jsonl", good_lines("s1", 3))
        write_artifact(home / "s1" / "tool-results", "a.txt", b"artifact")
    found = make_resolver(home).resolve(pointer)
    assert found.pointer == pointer
    assert (found.evidence_sha256 is not None) == (found.status.value == "available")
    if found.status.value != "available":
        assert found.excerpt is None
