"""Hostile source pointers and artifact names never reach a file outside the trusted roots.

Around the roots lies a canary world: files outside them whose names are reachable by
`..`, by a look-alike, or through symlinks planted inside. Every resolution runs under a
process-wide audit of `open` calls and through a `read_at` that asks the kernel which
file each read descriptor is on; both must stay under the roots, and no canary byte may
ever come back as evidence. Races (a file or folder swapped for a link while pointers
are resolved) may make a pointer denied or missing, never available with outside bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostile_support import (
    HAS_PROC_FD,
    HOSTILE_PARTS,
    LinkSwapper,
    check_opens_stay_under,
    fd_path,
    fuzz_settings,
    is_under,
    recording_opens,
)
from hypothesis import event, given
from hypothesis import strategies as st

from agent_cli.errors import ArtifactUnavailable, InvalidStoreInput
from agent_cli.sources import SourcePointerResolver, SourceResolutionStatus
from agent_cli.store.artifacts import ArtifactStore

pytestmark = pytest.mark.skipif(not HAS_PROC_FD, reason="needs /proc/self/fd to audit reads")

T0 = "2024-05-01T10:00:00+00:00"
CANARY = b"CANARY-outside-the-roots"
CANARY_DIGEST = hashlib.sha256(CANARY).hexdigest()
INSIDE_ARTIFACT = b"inside artifact"
SWAP_ROUNDS = 3000
STATUSES = {status.value for status in SourceResolutionStatus}


def record_line(session: str, sequence: int, payload: dict) -> bytes:
    return json.dumps(
        {
            "schema_version": 1,
            "session_id": session,
            "sequence": sequence,
            "event_id": f"transcript:{session}:{sequence}",
            "recorded_at": T0,
            "kind": "message",
            "payload": payload,
        }
    ).encode()


def write_transcript(path: Path, session: str, count: int, payload: dict) -> list[bytes]:
    lines = [record_line(session, n, {**payload, "n": n}) for n in range(1, count + 1)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return lines


def write_file(path: Path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


@dataclass
class World:
    """The trusted home, the canary world around it, and what each may legitimately hold."""

    home: Path
    outside: Path
    inside_digests: set[str]
    canary_digest: str
    inside_artifact_digest: str

    @property
    def roots(self) -> tuple[Path, ...]:
        return (Path(os.path.abspath(self.home)),)

    def resolver(self, read_at=os.pread) -> SourcePointerResolver:
        return SourcePointerResolver(self.home / "transcripts", self.home, read_at=read_at)


def build_world(base: Path) -> World:
    """home/ (both roots) with good files and planted links; outside/ full of canaries."""
    home, outside = base / "home", base / "outside"
    canary = {"secret": CANARY.decode()}
    for session in ("s1", "link", "canary", "evil"):
        write_transcript(outside / f"{session}.jsonl", session, 5, canary)
    canary_digest = write_file(outside / "canary.txt", CANARY)
    for session in ("s1", "evil", "outside"):
        write_file(outside / session / "tool-results" / "a.txt", CANARY)
        write_file(outside / session / "tool-results" / "canary.txt", CANARY)
    write_file(outside / "tool-results" / "canary.txt", CANARY)
    lines = write_transcript(home / "transcripts" / "s1.jsonl", "s1", 3, {"inside": True})
    inside_artifact = write_file(home / "s1" / "tool-results" / "a.txt", INSIDE_ARTIFACT)
    (home / "transcripts" / "link.jsonl").symlink_to(outside / "link.jsonl")
    (home / "s1" / "tool-results" / "canary.txt").symlink_to(outside / "canary.txt")
    (home / "evil").symlink_to(outside)
    (home / "transcripts" / "evil.jsonl").symlink_to(outside / "evil.jsonl")
    digests = {hashlib.sha256(line).hexdigest() for line in lines} | {inside_artifact}
    return World(home, outside, digests, canary_digest, inside_artifact)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return build_world(tmp_path_factory.mktemp("pointer-world"))


class AuditedReads:
    """A `read_at` that notes the real file behind every descriptor it reads."""

    def __init__(self) -> None:
        self.files: list[str] = []

    def __call__(self, fd: int, size: int, offset: int) -> bytes:
        self.files.append(fd_path(fd))
        return os.pread(fd, size, offset)


def resolve_audited(world: World, pointer: object):
    """Resolve under the open audit; check opens, reads and what came back."""
    reads = AuditedReads()
    with recording_opens() as opened:
        found = world.resolver(read_at=reads).resolve(pointer)
    check_opens_stay_under(opened, world.roots)
    real_roots = tuple(Path(os.path.realpath(root)) for root in world.roots)
    for file in reads.files:
        assert is_under(file, real_roots), f"read outside the roots: {file}"
    assert found.status.value in STATUSES
    assert (found.evidence_sha256 is not None) == found.is_available
    if found.is_available:
        assert found.evidence_sha256 in world.inside_digests
    assert CANARY.decode() not in (found.excerpt or "")
    return found


# --- targeted pointers: traversal, look-alikes and planted links --------------------------


def targeted_pointers(world: World) -> list[str]:
    digest, short = world.canary_digest, world.canary_digest[:12]
    return [
        "transcript:../outside/s1:1",
        "transcript:..:1",
        "transcript:.:1",
        "transcript:link:1",
        "transcript:evil:2",
        "transcript:canary:1",
        "transcript:s1/../../outside/s1:1",
        "transcript:s1\\..\\..\\outside\\s1:1",
        "transcript:s1\x00:1",
        "transcript:s1:١",
        "transcript:s1:٣",
        "transcript:．．:1",
        "transcript:s1∕..:1",
        "transcript:ｓ1:1",
        "transcript:s1:1:extra",
        "transcript::s1:1",
        " transcript:s1:1",
        "transcript:s1:1\n",
        f"artifact:s1:canary.txt:{digest}",
        f"artifact:evil:canary.txt:{digest}",
        f"artifact:evil:a.txt:{short}",
        f"artifact:..:canary.txt:{digest}",
        f"artifact:s1:..:{short}",
        f"artifact:s1:../../outside/canary.txt:{digest}",
        f"artifact:outside:canary.txt:{digest}",
        f"artifact:s1:a.txt:{digest}",
        f"artifact:s1:a．txt:{short}",
        f"artifact:s1:a.txt:{short}:{short}",
        f"artifact:s1:a.txt:{digest.upper()}",
        "artifact:s1:" + "a" * 201 + f":{short}",
    ]


def test_every_targeted_pointer_is_refused_or_reads_only_inside(world):
    for pointer in targeted_pointers(world):
        found = resolve_audited(world, pointer)
        assert not found.is_available, pointer


def test_the_good_pointers_of_the_world_are_available(world):
    """The audit does not pass by refusing everything: inside evidence still resolves."""
    for pointer in (
        "transcript:s1:1",
        "transcript:s1:3",
        f"artifact:s1:a.txt:{world.inside_artifact_digest}",
    ):
        assert resolve_audited(world, pointer).is_available, pointer


# --- fuzz -------------------------------------------------------------------------------

KNOWN_NAMES = (
    "s1",
    "link",
    "evil",
    "canary",
    "outside",
    "a.txt",
    "canary.txt",
    "tool-results",
    "transcripts",
    "1",
    "2",
    "3",
    "5",
)


def pointer_parts(extra_names: tuple[str, ...] = ()) -> st.SearchStrategy[str]:
    names = st.sampled_from(KNOWN_NAMES + extra_names)
    hostile = st.sampled_from(HOSTILE_PARTS)
    mixed = st.lists(st.one_of(names, hostile), min_size=1, max_size=3).map("".join)
    return st.one_of(names, hostile, mixed, st.text(max_size=12))


DIGESTS = (CANARY_DIGEST, CANARY_DIGEST[:12], hashlib.sha256(INSIDE_ARTIFACT).hexdigest())
SCHEMES = (
    "transcript",
    "artifact",
    "Transcript",
    "ARTIFACT",
    "file",
    "transcript ",
    "artifact\x00",
    "",
    "transcript:",
)

SESSIONS = ("s1", "link", "evil", "canary", "outside", "tool-results", "transcripts")
FILES = ("a.txt", "canary.txt", "link.txt", "s1.jsonl")
SEQUENCES = ("1", "2", "3", "5", "١", "01", "0", "٣")


@st.composite
def near_valid_pointers(draw: st.DrawFn) -> str:
    """Pointers with the right number of parts, drawn from names that exist inside or
    outside the roots; one part may carry a hostile piece."""
    if draw(st.booleans()):
        parts = ["transcript", draw(st.sampled_from(SESSIONS)), draw(st.sampled_from(SEQUENCES))]
    else:
        parts = [
            "artifact",
            draw(st.sampled_from(SESSIONS)),
            draw(st.sampled_from(FILES)),
            draw(st.sampled_from(DIGESTS)),
        ]
    if draw(st.booleans()):
        index = draw(st.integers(1, len(parts) - 1))
        at = draw(st.integers(0, len(parts[index])))
        hostile = draw(st.sampled_from(HOSTILE_PARTS))
        parts[index] = parts[index][:at] + hostile + parts[index][at:]
    return ":".join(parts)


fuzzed_pointers = st.one_of(
    near_valid_pointers(),
    near_valid_pointers(),
    st.builds(
        lambda head, parts, sep: head + ":" + sep.join(parts),
        st.sampled_from(SCHEMES),
        st.lists(pointer_parts(DIGESTS), max_size=5),
        st.sampled_from([":", ":", ":", "/", "::", "：", ":\n"]),
    ),
    st.text(max_size=60),
    st.binary(max_size=40).map(lambda raw: raw.decode("latin-1")),
)


@pytest.mark.fuzz
@fuzz_settings(4)  # the issue asks for thousands of pointers; ~3 ms each
@given(pointer=fuzzed_pointers)
def test_fuzzed_pointers_resolve_to_one_of_five_statuses_and_read_only_inside(world, pointer):
    found = resolve_audited(world, pointer)
    assert found.pointer == pointer
    event(found.status.value)


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(pointer=fuzzed_pointers, offset=st.integers(0, 64), limit=st.integers(0, 64))
def test_fuzzed_artifact_names_read_back_only_inside_the_store(world, pointer, offset, limit):
    """`ArtifactStore.read_range` (behind read_artifact) under the same hostile names."""
    with recording_opens() as opened:
        try:
            data = ArtifactStore(world.home).read_range(pointer, offset=offset, limit=limit)
        except (ArtifactUnavailable, InvalidStoreInput) as error:
            data = None
            event(getattr(error, "reason", "invalid input"))
    check_opens_stay_under(opened, world.roots)
    if data is not None:
        assert data == INSIDE_ARTIFACT[offset : offset + limit]
        event("read")


@pytest.mark.fuzz
@fuzz_settings(0.3)
@given(
    session=pointer_parts(),
    suffix=st.sampled_from(
        [".txt", ".json", "/../x", ".TXT", "", ".", "..", ".a/b", ".\x00", ".١"]
    ),
)
def test_fuzzed_session_ids_and_suffixes_never_write_outside_the_store(world, session, suffix):
    home = world.home.parent / "put-home"
    roots = (Path(os.path.abspath(home)),)
    with recording_opens() as opened:
        try:
            ref = ArtifactStore(home).put(session, b"data", suffix=suffix)
        except InvalidStoreInput:
            ref = None
    check_opens_stay_under(opened, roots)
    event("stored" if ref else "refused")
    if ref is not None:
        assert is_under(ref.path, roots) and ref.path.read_bytes() == b"data"


# --- races: a file or a folder swapped for a link while pointers are resolved -----------


def test_a_transcript_swapped_for_a_link_during_resolution_never_yields_outside_bytes(tmp_path):
    world = build_world(tmp_path)
    resolver = world.resolver()
    target = world.home / "transcripts" / "s1.jsonl"
    seen: set[str] = set()
    with LinkSwapper(target, world.outside / "s1.jsonl") as swapper:
        if not swapper.is_supported:
            pytest.skip("this kernel cannot exchange two names atomically")
        for round_ in range(SWAP_ROUNDS):
            pointer = "transcript:s1:5" if round_ % 2 else "transcript:s1:2"
            found = resolver.resolve(pointer)
            seen.add(found.status.value)
            if found.is_available:
                assert pointer == "transcript:s1:2"
                assert found.evidence_sha256 in world.inside_digests
                assert CANARY.decode() not in (found.excerpt or "")
    assert seen <= STATUSES
    assert "available" in seen and "denied" in seen  # both sides of the swap were seen


def test_an_artifact_folder_swapped_for_a_link_never_yields_outside_bytes(tmp_path):
    world = build_world(tmp_path)
    resolver = world.resolver()
    store = ArtifactStore(world.home)
    outside_digest = CANARY_DIGEST
    with LinkSwapper(world.home / "s1", world.outside / "s1") as swapper:
        if not swapper.is_supported:
            pytest.skip("this kernel cannot exchange two names atomically")
        for round_ in range(SWAP_ROUNDS):
            digest = outside_digest if round_ % 2 else world.inside_artifact_digest
            found = resolver.resolve(f"artifact:s1:a.txt:{digest}")
            if found.is_available:
                assert found.evidence_sha256 == world.inside_artifact_digest
            try:
                data = store.read_range(f"artifact:s1:a.txt:{digest}")
            except ArtifactUnavailable:
                continue
            assert data == INSIDE_ARTIFACT


def test_a_file_swapped_for_a_link_after_the_open_is_read_as_the_file_that_was_opened(world):
    """Through the `read_at` seam: the swap lands between the open and the first read."""
    path = world.home / "transcripts" / "s1.jsonl"
    original = path.read_bytes()

    def swap_then_read(fd: int, size: int, offset: int) -> bytes:
        if not path.is_symlink():
            path.unlink()
            path.symlink_to(world.outside / "s1.jsonl")
        return os.pread(fd, size, offset)

    try:
        found = world.resolver(read_at=swap_then_read).resolve("transcript:s1:2")
        again = world.resolver().resolve("transcript:s1:2")
    finally:
        path.unlink()
        path.write_bytes(original)
    assert found.status.value == "missing" or found.evidence_sha256 in world.inside_digests
    assert (again.status.value, again.reason) == ("denied", "symlink")
