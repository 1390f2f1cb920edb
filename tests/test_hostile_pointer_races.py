"""Races: a file or a folder swapped for a link while pointers are being resolved.

Another process (not a thread: the swaps must land between any two instructions of the
code under test) exchanges a transcript or a session folder with a symlink to the canary
world, thousands of times a second, while the resolver and the artifact store read. A
pointer may come back denied, missing or corrupt, never available with outside bytes.
The `read_at` seam pins the other order: the swap lands between the open and the read.
"""

from __future__ import annotations

import os

import pytest
from hostile_support import CANARY, CANARY_DIGEST, INSIDE_ARTIFACT, build_world
from race_support import LinkSwapper

from agent_cli.errors import ArtifactUnavailable
from agent_cli.sources import SourceResolutionStatus
from agent_cli.store.artifacts import ArtifactStore

SWAP_ROUNDS = 3000
STATUSES = {status.value for status in SourceResolutionStatus}


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


def test_a_file_swapped_for_a_link_after_the_open_is_read_as_the_file_that_was_opened(tmp_path):
    """Through the `read_at` seam: the swap lands between the open and the first read."""
    world = build_world(tmp_path)
    path = world.home / "transcripts" / "s1.jsonl"

    def swap_then_read(fd: int, size: int, offset: int) -> bytes:
        if not path.is_symlink():
            path.unlink()
            path.symlink_to(world.outside / "s1.jsonl")
        return os.pread(fd, size, offset)

    found = world.resolver(read_at=swap_then_read).resolve("transcript:s1:2")
    again = world.resolver().resolve("transcript:s1:2")
    assert found.status.value == "missing" or found.evidence_sha256 in world.inside_digests
    assert (again.status.value, again.reason) == ("denied", "symlink")
