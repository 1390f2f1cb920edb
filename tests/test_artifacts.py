"""Artifact store: content addressing, atomic idempotent writes, verified range reads."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

import pytest

from agent_cli.errors import ArtifactUnavailable, ArtifactWriteFailed, InvalidStoreInput
from agent_cli.store.artifacts import ArtifactStore, parse_artifact_pointer
from agent_cli.store.fsutil import FileOps

SID = "20261202-145601-ab12cd"
DATA = b"line one\nline two\n" * 100


class ScriptedOps(FileOps):
    """Real operations that count writes and can fail one kind of call with an errno."""

    def __init__(
        self, fail: str | None = None, code: int = errno.ENOSPC, max_chunk: int | None = None
    ) -> None:
        self.fail = fail
        self.code = code
        self.max_chunk = max_chunk
        self.writes = 0

    def _maybe_fail(self, call: str) -> None:
        if self.fail == call:
            raise OSError(self.code, os.strerror(self.code))

    def write(self, fd: int, data: bytes) -> int:
        self.writes += 1
        self._maybe_fail("write")
        return super().write(fd, data if self.max_chunk is None else data[: self.max_chunk])

    def fsync(self, fd: int) -> None:
        self._maybe_fail("fsync")
        super().fsync(fd)

    def replace(self, source: Path, target: Path) -> None:
        self._maybe_fail("replace")
        super().replace(source, target)


@pytest.fixture
def store(tmp_path: Path) -> ArtifactStore:
    return ArtifactStore(tmp_path / "home")


def test_put_names_the_file_by_its_digest_and_returns_a_full_pointer(store: ArtifactStore) -> None:
    digest = hashlib.sha256(DATA).hexdigest()
    ref = store.put(SID, DATA)
    assert ref.sha256 == digest
    assert ref.name == f"{digest[:32]}.txt"
    assert ref.pointer == f"artifact:{SID}:{ref.name}:{digest}"
    assert ref.size == len(DATA)
    assert ref.path == store.root / SID / "tool-results" / ref.name
    assert ref.path.read_bytes() == DATA


def test_files_are_0600_and_created_folders_0700(store: ArtifactStore) -> None:
    previous = os.umask(0)
    try:
        ref = store.put(SID, DATA, suffix=".json")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(ref.path).st_mode) == 0o600
    for folder in (store.root, store.root / SID, ref.path.parent):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700


def test_putting_the_same_bytes_twice_does_not_rewrite(tmp_path: Path) -> None:
    ops = ScriptedOps()
    store = ArtifactStore(tmp_path, fs=ops)
    first = store.put(SID, DATA)
    writes_after_first = ops.writes
    assert store.put(SID, bytearray(DATA)) == first
    assert ops.writes == writes_after_first > 0
    assert os.listdir(first.path.parent) == [first.name]


def test_a_damaged_copy_at_the_name_is_replaced_by_the_right_bytes(store: ArtifactStore) -> None:
    ref = store.put(SID, DATA)
    ref.path.write_bytes(b"tampered")
    assert store.put(SID, DATA) == ref
    assert ref.path.read_bytes() == DATA


def test_short_writes_are_resumed_until_every_byte_is_down(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path, fs=ScriptedOps(max_chunk=7))
    ref = store.put(SID, DATA)
    assert ref.path.read_bytes() == DATA


@pytest.mark.parametrize(
    ("call", "code", "name"),
    [
        ("write", errno.ENOSPC, "ENOSPC"),
        ("fsync", errno.EIO, "EIO"),
        ("replace", errno.EXDEV, "EXDEV"),
    ],
)
def test_a_failed_write_leaves_no_file_and_no_temp(
    tmp_path: Path, call: str, code: int, name: str
) -> None:
    store = ArtifactStore(tmp_path, fs=ScriptedOps(fail=call, code=code))
    with pytest.raises(ArtifactWriteFailed) as caught:
        store.put(SID, DATA)
    digest = hashlib.sha256(DATA).hexdigest()
    assert (caught.value.name, caught.value.errno_name) == (f"{digest[:32]}.txt", name)
    assert os.listdir(tmp_path / SID / "tool-results") == []


def test_a_zero_byte_write_counts_as_a_full_disk(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path, fs=ScriptedOps(max_chunk=0))
    with pytest.raises(ArtifactWriteFailed) as caught:
        store.put(SID, DATA)
    assert caught.value.errno_name == "ENOSPC"


@pytest.mark.parametrize(
    "suffix", ["", "txt", ".", ".TXT", ".toolong12", "./x", ".a/b", ".tx t", ".é"]
)
def test_bad_suffixes_are_refused(store: ArtifactStore, suffix: str) -> None:
    with pytest.raises(InvalidStoreInput) as caught:
        store.put(SID, DATA, suffix=suffix)
    assert caught.value.field == "suffix"
    assert not store.root.exists()


@pytest.mark.parametrize("bad_id", ["", "..", "../x", "a/b", ".h", "x" * 201])
def test_bad_session_ids_are_refused(store: ArtifactStore, bad_id: str) -> None:
    with pytest.raises(InvalidStoreInput):
        store.put(bad_id, DATA)
    assert not store.root.exists()


def test_text_instead_of_bytes_is_refused(store: ArtifactStore) -> None:
    with pytest.raises(InvalidStoreInput) as caught:
        store.put(SID, "text")  # type: ignore[arg-type]
    assert caught.value.field == "data"


def test_read_range_returns_verified_slices(store: ArtifactStore) -> None:
    ref = store.put(SID, DATA)
    assert store.read_range(ref.pointer) == DATA
    assert store.read_range(ref.pointer, offset=9, limit=8) == b"line two"
    assert store.read_range(ref.pointer, offset=len(DATA) - 3) == DATA[-3:]
    assert store.read_range(ref.pointer, offset=len(DATA) + 10) == b""
    assert store.read_range(ref.pointer, limit=0) == b""


def test_a_twelve_hex_digest_prefix_is_enough(store: ArtifactStore) -> None:
    ref = store.put(SID, DATA)
    short = f"artifact:{SID}:{ref.name}:{ref.sha256[:12]}"
    assert store.read_range(short, limit=4) == b"line"


def test_a_large_artifact_is_hashed_across_chunks(store: ArtifactStore) -> None:
    big = os.urandom(3 * 1024 * 1024 + 17)
    ref = store.put(SID, big, suffix=".bin")
    offset = 1024 * 1024 - 5
    assert store.read_range(ref.pointer, offset=offset, limit=100) == big[offset : offset + 100]


def test_bytes_changed_after_the_pointer_was_made_are_refused(store: ArtifactStore) -> None:
    ref = store.put(SID, DATA)
    ref.path.write_bytes(DATA.replace(b"two", b"TWO"))
    with pytest.raises(ArtifactUnavailable) as caught:
        store.read_range(ref.pointer)
    assert caught.value.reason == "digest_mismatch"


def test_a_missing_artifact_is_unavailable(store: ArtifactStore) -> None:
    ref = store.put(SID, DATA)
    ref.path.unlink()
    for pointer in (ref.pointer, ref.pointer.replace(SID, "other-session")):
        with pytest.raises(ArtifactUnavailable) as caught:
            store.read_range(pointer)
        assert caught.value.reason == "missing"


def test_a_symlinked_artifact_is_refused(store: ArtifactStore, tmp_path: Path) -> None:
    ref = store.put(SID, DATA)
    outside = tmp_path / "outside.txt"
    outside.write_bytes(DATA)
    ref.path.unlink()
    os.symlink(outside, ref.path)
    with pytest.raises(ArtifactUnavailable) as caught:
        store.read_range(ref.pointer)
    assert caught.value.reason == "symlink"


def test_a_symlinked_session_folder_is_refused(store: ArtifactStore, tmp_path: Path) -> None:
    elsewhere = ArtifactStore(tmp_path / "elsewhere")
    ref = elsewhere.put(SID, DATA)
    store.root.mkdir()
    os.symlink(elsewhere.root / SID, store.root / SID)
    with pytest.raises(ArtifactUnavailable) as caught:
        store.read_range(ref.pointer)
    assert caught.value.reason == "symlink"
    with pytest.raises(ArtifactWriteFailed):
        store.put(SID, b"other bytes")


def test_a_folder_at_the_name_is_not_a_file(store: ArtifactStore) -> None:
    ref = store.put(SID, DATA)
    ref.path.unlink()
    ref.path.mkdir()
    with pytest.raises(ArtifactUnavailable) as caught:
        store.read_range(ref.pointer)
    assert caught.value.reason == "not_a_file"


@pytest.mark.parametrize(
    ("pointer", "reason"),
    [
        ("transcript:s1:3", "wrong_scheme"),
        ("file:/etc/passwd", "wrong_scheme"),
        ("artifact:s1:name.txt", "malformed_pointer"),
        ("artifact:s1:name.txt:" + "a" * 64 + ":extra", "malformed_pointer"),
        ("artifact:s1:../name:" + "a" * 64, "malformed_pointer"),
        ("artifact:..:name.txt:" + "a" * 64, "malformed_pointer"),
        ("artifact:s1:a/b:" + "a" * 64, "malformed_pointer"),
        ("artifact:s1::" + "a" * 64, "malformed_pointer"),
        ("artifact:s1:name.txt:" + "a" * 13, "malformed_pointer"),
        ("artifact:s1:name.txt:" + "g" * 64, "malformed_pointer"),
        ("artifact:s1:name.txt:" + "A" * 64, "malformed_pointer"),
        (" artifact:s1:name.txt:" + "a" * 64, "malformed_pointer"),
        ("", "malformed_pointer"),
        (None, "malformed_pointer"),
        ("artifact:s1:name.txt:" + "a" * 64 + "\n", "malformed_pointer"),
    ],
)
def test_malformed_pointers_are_refused_without_touching_files(
    store: ArtifactStore, pointer: str, reason: str
) -> None:
    with pytest.raises(ArtifactUnavailable) as caught:
        store.read_range(pointer)
    assert caught.value.reason == reason
    assert not store.root.exists()


def test_parse_artifact_pointer_returns_its_parts() -> None:
    address = parse_artifact_pointer(f"artifact:{SID}:abc.txt:{'0' * 12}")
    assert (address.session_id, address.name, address.digest) == (SID, "abc.txt", "0" * 12)


@pytest.mark.parametrize(("offset", "limit"), [(-1, 10), (0, -1), (1.5, 10), (0, None)])
def test_negative_or_non_integer_ranges_are_refused(
    store: ArtifactStore, offset: object, limit: object
) -> None:
    ref = store.put(SID, DATA)
    with pytest.raises(InvalidStoreInput):
        store.read_range(ref.pointer, offset=offset, limit=limit)  # type: ignore[arg-type]
