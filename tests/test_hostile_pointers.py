"""Hostile source pointers and artifact names never reach a file outside the trusted roots.

Around the roots lies a canary world (`hostile_support.build_world`): files outside them
whose names are reachable by `..`, by a look-alike, or through symlinks planted inside.
Every resolution runs under a process-wide audit of `open` calls and through a `read_at`
that asks the kernel which file each read descriptor is on; both must stay under the
roots, and no canary byte may ever come back as evidence. Races are in
`test_hostile_pointer_races.py`.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from hostile_support import (
    CANARY,
    CANARY_DIGEST,
    HAS_PROC_FD,
    HOSTILE_PARTS,
    INSIDE_ARTIFACT,
    World,
    build_world,
    check_opens_stay_under,
    fd_path,
    fuzz_settings,
    is_under,
    recording_opens,
)
from hypothesis import event, given
from hypothesis import strategies as st

from agent_cli.errors import ArtifactUnavailable, InvalidStoreInput
from agent_cli.sources import SourceResolutionStatus
from agent_cli.store.artifacts import ArtifactStore

pytestmark = pytest.mark.skipif(not HAS_PROC_FD, reason="needs /proc/self/fd to audit reads")

STATUSES = {status.value for status in SourceResolutionStatus}


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
