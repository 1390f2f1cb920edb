"""`transcripts.example/` is a sound, resumable session in which every layer fired.

The folder is checked on a copy (resuming appends to a transcript): its transcript
replays through the store, every compaction record holds a valid view, L1 to L4 all
appear, each artifact it points to is intact, and `open_session` resumes it with the
history the README describes.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from agent_cli.compaction.markers import SUMMARY_HEADER, is_summary_message
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.offline import OfflineProvider
from agent_cli.repl.config import build_policy, load_config_file, resolve_settings
from agent_cli.session import open_session
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.store.paths import resolve_state_paths
from agent_cli.store.transcript import TranscriptStore

EXAMPLE = Path(__file__).resolve().parent.parent / "transcripts.example"
# the example as it was recorded before L4 marked its summaries: kept for that test alone
UNMARKED = Path(__file__).resolve().parent / "golden" / "unmarked_summary_session"
ARTIFACT_POINTER = re.compile(r"artifact:[\w.:-]+?:[0-9a-f]{64}")
SIZE_LIMIT_BYTES = 300_000


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    copy = tmp_path / "example"
    shutil.copytree(EXAMPLE, copy)
    return copy


@pytest.fixture()
def session_id(home: Path) -> str:
    transcripts = sorted((home / "transcripts").glob("*.jsonl"))
    assert len(transcripts) == 1, transcripts
    return transcripts[0].stem


def replay(home: Path, session_id: str) -> list[dict]:
    return list(TranscriptStore(home / "transcripts").replay(session_id))


def test_the_example_stays_small_and_its_readme_names_the_recorded_session(
    session_id: str,
) -> None:
    size = sum(path.stat().st_size for path in EXAMPLE.rglob("*") if path.is_file())
    assert size < SIZE_LIMIT_BYTES
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    assert f"--resume {session_id}" in readme


def test_the_example_transcript_replays_in_order_with_a_valid_tool_history(
    home: Path, session_id: str
) -> None:
    records = replay(home, session_id)
    assert [record["sequence"] for record in records] == list(range(1, len(records) + 1))
    assert records[0]["kind"] == "session_started"
    assert records[0]["payload"]["provider"] == "offline"
    messages = [record["payload"]["message"] for record in records if record["kind"] == "message"]
    assert len(validate_tool_protocol(messages)) == 4  # the four reads of the README's demo


def test_the_example_compactions_include_every_layer_and_each_view_is_valid(
    home: Path, session_id: str
) -> None:
    compactions = [r["payload"] for r in replay(home, session_id) if r["kind"] == "compaction"]
    fired = {layer for payload in compactions for layer in payload["layers"]}
    assert fired == {"L1", "L2", "L3", "L4"}
    for payload in compactions:
        assert payload["tokens_after"] < payload["tokens_before"]
        validate_tool_protocol(payload["view"])
    summarized = [p for p in compactions if "L4" in p["layers"]]
    assert any(is_summary_message(message) for message in summarized[-1]["view"])
    assert compactions[-1]["layers"] == ["L1", "L2", "L4", "L3"]  # the automatic order


def test_every_artifact_the_example_points_to_is_present_and_intact(
    home: Path, session_id: str
) -> None:
    text = (home / "transcripts" / f"{session_id}.jsonl").read_text(encoding="utf-8")
    pointers = set(ARTIFACT_POINTER.findall(text))
    assert pointers
    store = ArtifactStore(home)
    for pointer in pointers:
        assert store.read_range(pointer, 0, 64).startswith(b"File: ")


def test_the_example_resumes_through_open_session_with_its_recorded_history(
    home: Path, session_id: str, tmp_path: Path
) -> None:
    config = home / "config.toml"
    policy = build_policy(resolve_settings({}, load_config_file(config), config))
    records = replay(home, session_id)
    recorded_messages = sum(1 for record in records if record["kind"] == "message")
    recorded_compactions = sum(1 for record in records if record["kind"] == "compaction")

    session = open_session(
        paths=resolve_state_paths({"AGENT_CLI_HOME": str(home)}),
        provider=OfflineProvider(),
        workspace=tmp_path,
        policy=policy,
        resume=session_id,
    )
    try:
        stats = session.stats()
        assert stats.session_id == session_id
        assert stats.soft_threshold == policy.soft_threshold == 3200
        assert stats.messages_in_transcript == recorded_messages
        assert stats.messages_in_view < recorded_messages
        assert len(stats.compactions) == recorded_compactions
    finally:
        session.close()


def test_a_summary_written_before_summaries_were_marked_is_resumed_as_a_summary(
    tmp_path: Path,
) -> None:
    """The first recording of this example was made before L4 marked its summary with a
    private key: its summary is known only by its text and place, and must still be the
    summary on resume (incremental merges, `/summary`, stats and the digest's place
    depend on it)."""
    home = tmp_path / "unmarked"
    shutil.copytree(UNMARKED, home)
    session_id = "20261202-154719-3d1e39"
    last_view = [r for r in replay(home, session_id) if r["kind"] == "compaction"][-1]
    recorded = last_view["payload"]["view"][0]
    assert recorded["content"].startswith(SUMMARY_HEADER) and "_summary" not in recorded
    config = home / "config.toml"
    session = open_session(
        paths=resolve_state_paths({"AGENT_CLI_HOME": str(home)}),
        provider=OfflineProvider(),
        workspace=tmp_path,
        policy=build_policy(resolve_settings({}, load_config_file(config), config)),
        resume=session_id,
    )
    try:
        assert is_summary_message(session.view[0])
        assert session.last_summary() == recorded["content"][len(SUMMARY_HEADER) :].strip()
        assert sum(1 for m in session.view if is_summary_message(m)) == 1
        assert session.stats().tokens_by_category["compaction_summary"] > 0
    finally:
        session.close()
