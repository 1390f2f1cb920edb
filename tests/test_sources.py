"""The resolver on well-formed stores: the five statuses, excerpts, durable-state wiring."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_cli.durable import (
    DurableContextState,
    DurableFact,
    PendingItem,
    render_durable_context,
)
from agent_cli.errors import ConfigError
from agent_cli.sources import (
    ParsedSourcePointer,
    SourcePointerResolver,
    SourceResolution,
    SourceResolutionStatus,
    parse_source_pointer,
    resolve_durable_sources,
)
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.store.transcript import TranscriptStore

T0 = "2024-05-01T10:00:00+00:00"


def record_line(session: str, sequence: int, **overrides) -> bytes:
    record = {
        "schema_version": 1,
        "session_id": session,
        "sequence": sequence,
        "event_id": f"transcript:{session}:{sequence}",
        "recorded_at": T0,
        "kind": "message",
        "payload": {"text": f"record {sequence}"},
    }
    record.update(overrides)
    return json.dumps(record).encode() + b"\n"


def write_transcript(root: Path, session: str, count: int) -> list[bytes]:
    root.mkdir(parents=True, exist_ok=True)
    lines = [record_line(session, n) for n in range(1, count + 1)]
    (root / f"{session}.jsonl").write_bytes(b"".join(lines))
    return lines


def write_artifact(root: Path, session: str, name: str, data: bytes) -> str:
    folder = root / session / "tool-results"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def resolver(home: Path) -> SourcePointerResolver:
    return SourcePointerResolver(transcript_root=home / "transcripts", artifact_root=home)


def test_a_transcript_record_is_available_with_the_hash_of_its_line(home, resolver):
    lines = write_transcript(home / "transcripts", "s1", 5)
    found = resolver.resolve("transcript:s1:4")
    assert found.status is SourceResolutionStatus.AVAILABLE and found.reason == "ok"
    assert found.evidence_sha256 == hashlib.sha256(lines[3].rstrip(b"\n")).hexdigest()
    assert json.loads(found.excerpt)["sequence"] == 4


@pytest.mark.parametrize("prefix", [12, 64])
def test_an_artifact_is_available_with_the_hash_of_the_whole_file(home, resolver, prefix):
    digest = write_artifact(home, "s1", "out.txt", "résumé\n".encode() * 1000)
    found = resolver.resolve(f"artifact:s1:out.txt:{digest[:prefix]}")
    assert found.status is SourceResolutionStatus.AVAILABLE
    assert found.evidence_sha256 == digest


def test_excerpts_are_bounded_and_say_when_they_were_cut(home):
    digest = write_artifact(home, "s1", "big.txt", b"x" * 5000)
    small = SourcePointerResolver(home / "transcripts", home, max_excerpt_chars=10)
    found = small.resolve(f"artifact:s1:big.txt:{digest}")
    assert found.excerpt == "x" * 10 and found.excerpt_truncated
    none = SourcePointerResolver(home / "transcripts", home, max_excerpt_chars=0)
    assert none.resolve(f"artifact:s1:big.txt:{digest}").excerpt is None


@pytest.mark.parametrize(
    "pointer, status, reason",
    [
        ("transcript:s1:6", "missing", "sequence_not_found"),
        ("transcript:nobody:1", "missing", "not_found"),
        ("artifact:s1:none.txt:0123456789ab", "missing", "not_found"),
        ("artifact:nobody:none.txt:0123456789ab", "missing", "not_found"),
        ("transcript:s1:0", "corrupt", "sequence_below_one"),
        ("transcript:../s1:1", "corrupt", "slash"),
        ("gopher:s1:1", "unsupported", "unknown_scheme"),
    ],
)
def test_each_failure_maps_to_its_status_and_reason(home, resolver, pointer, status, reason):
    write_transcript(home / "transcripts", "s1", 5)
    found = resolver.resolve(pointer)
    assert (found.pointer, found.status.value, found.reason) == (pointer, status, reason)
    assert found.evidence_sha256 is None and found.excerpt is None


def test_input_that_is_not_text_resolves_to_corrupt_without_raising(resolver):
    found = resolver.resolve(12345)  # type: ignore[arg-type]
    assert (found.status, found.reason) == (SourceResolutionStatus.CORRUPT, "not_text")


def test_a_missing_root_is_missing_not_an_error(tmp_path):
    resolver = SourcePointerResolver(tmp_path / "nope", tmp_path / "nope")
    assert resolver.resolve("transcript:s1:1").reason == "root_not_found"


def test_a_parsed_pointer_can_be_resolved_directly(home, resolver):
    write_transcript(home / "transcripts", "s1", 2)
    parsed = parse_source_pointer("transcript:s1:2")
    assert isinstance(parsed, ParsedSourcePointer)
    assert resolver.resolve(parsed).pointer == "transcript:s1:2"


@pytest.mark.parametrize(
    "kwargs", [dict(max_excerpt_chars=-1), dict(max_excerpt_chars=1.5), dict(max_record_bytes=-5)]
)
def test_bad_resolver_settings_raise_config_errors(tmp_path, kwargs):
    with pytest.raises(ConfigError):
        SourcePointerResolver(tmp_path, tmp_path, **kwargs)


def test_only_available_resolutions_may_carry_a_hash_or_excerpt():
    with pytest.raises(ValueError):
        SourceResolution("transcript:s:1", "missing", "not_found", evidence_sha256="a" * 64)
    with pytest.raises(ValueError):
        SourceResolution("transcript:s:1", "denied", "symlink", excerpt="text")
    with pytest.raises(ValueError):
        SourceResolution("transcript:s:1", "available", "ok")
    with pytest.raises(ValueError):
        SourceResolution("transcript:s:1", "available", "", evidence_sha256="a" * 64)
    with pytest.raises(ValueError):
        SourceResolution("transcript:s:1", "available", "ok", evidence_sha256="A" * 64)
    with pytest.raises(ValueError):
        SourceResolution("transcript:s:1", "gone", "not_found")


class CountingResolver:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def resolve(self, pointer: str) -> SourceResolution:
        self.calls.append(pointer)
        return SourceResolution(pointer, "missing", "not_found")


def test_durable_sources_are_resolved_once_each_in_first_seen_order():
    state = DurableContextState(
        facts=(
            DurableFact("a", "x", "transcript:s:2", T0),
            DurableFact("b", "y", "transcript:s:1", T0),
            DurableFact("c", "z", "transcript:s:2", T0),
        ),
        pending_items=(
            PendingItem("p", "w", "transcript:s:1", T0),
            PendingItem("q", "v", "artifact:s:f:0123456789ab", T0),
        ),
    )
    counting = CountingResolver()
    resolutions = resolve_durable_sources(state, counting)  # type: ignore[arg-type]
    assert counting.calls == ["transcript:s:2", "transcript:s:1", "artifact:s:f:0123456789ab"]
    assert isinstance(resolutions, tuple) and len(resolutions) == 3


def test_records_and_artifacts_written_by_the_stores_resolve_as_available(home):
    store = TranscriptStore(home / "transcripts")
    with store.open_writer("s-real") as writer:
        for n in range(3):
            writer.append("message", {"n": n}, datetime(2024, 5, 1, tzinfo=UTC))
    ref = ArtifactStore(home).put("s-real", b"tool output\n" * 100)
    resolver = SourcePointerResolver(home / "transcripts", home)
    state = DurableContextState(
        facts=(DurableFact("f1", "from a tool", ref.pointer, T0),),
        pending_items=(PendingItem("p1", "follow up", "transcript:s-real:3", T0),),
    )
    resolutions = resolve_durable_sources(state, resolver)
    assert [r.status.value for r in resolutions] == ["available", "available"]
    assert resolutions[0].evidence_sha256 == ref.sha256
    block = render_durable_context(state, resolutions)
    assert f"evidence_sha256={ref.sha256}" in block
    assert "tool output" not in block


def test_a_sequence_with_more_digits_than_any_transcript_resolves_as_missing(home):
    with TranscriptStore(home / "transcripts").open_writer("s-big") as writer:
        writer.append("message", {"n": 1}, datetime(2024, 5, 1, tzinfo=UTC))
    resolver = SourcePointerResolver(home / "transcripts", home)
    far = resolver.resolve(f"transcript:s-big:{10**40}")
    assert far.status is SourceResolutionStatus.MISSING
    assert far.evidence_sha256 is None
    assert resolver.resolve("transcript:s-big:1").status is SourceResolutionStatus.AVAILABLE
