"""Saved sessions told apart, the one --continue picks, and deleting old ones (issue 12.11).

Real transcripts on disk, written by real sessions on the real SDK against the fake API.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fake_anthropic import HttpError, Reply, text_block
from fake_anthropic_stream import count_output_tokens
from session_support import drain, make_session

from agent_cli.errors import InvalidStoreInput, SessionFolderKept, TranscriptLocked
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.session import latest_session_id
from agent_cli.session.catalog import (
    ARTIFACTS_LEFT,
    DELETED,
    FAILED,
    NOT_A_SESSION,
    NOT_FOUND,
    SessionDeletion,
    delete_sessions,
    summarize_sessions,
)
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.store.paths import resolve_state_paths

API_KEY = "sk-ant-catalog-FAKEKEY-0123"


def provider(server) -> AnthropicProvider:
    return AnthropicProvider(
        API_KEY, "claude-test", base_url=server.base_url, max_retries=0, sleep=lambda _: None
    )


def run_session(workspace: Path, server, *lines: str) -> str:
    session = make_session(workspace, provider(server))
    for line in lines:
        drain(session.run_turn(line))
    session.close()
    return session.session_id


def test_sessions_show_their_first_request_turns_and_tokens(server, workspace) -> None:
    answered = run_session(workspace, server, "fix the parser bug", "and add a test")
    (summary,) = summarize_sessions(resolve_state_paths(), workspace)
    assert summary.session_id == answered
    assert summary.first_request == "fix the parser bug"
    assert (summary.answered_turns, summary.turns) == (2, 2)
    assert summary.tokens > 0


def test_the_token_column_adds_what_the_api_reported_and_never_the_estimate(
    server, workspace
) -> None:
    reported = {"input_tokens": 1_500, "cache_creation_input_tokens": 300}
    reported |= {"cache_read_input_tokens": 4_000}
    server.usage_for = lambda body: dict(reported)  # every request reports these figures
    replies = [Reply([text_block("first answer, a little longer")]), Reply([text_block("ok")])]
    server.enqueue(*replies)
    run_session(workspace, server, "fix the parser bug", "and add a test")
    (summary,) = summarize_sessions(resolve_state_paths(), workspace)
    output = sum(count_output_tokens(reply) for reply in replies)
    assert summary.tokens == 2 * (1_500 + 300 + 4_000) + output


def test_continue_goes_on_from_a_newer_session_whose_request_failed(server, workspace) -> None:
    """LOSS-4: the failed run keeps the request and says to go on with --continue, so
    that is the session --continue means, not an older answered one."""
    run_session(workspace, server, "hello")
    server.enqueue(HttpError(400, "invalid_request_error"))
    failed = run_session(workspace, server, "a one-shot that failed")
    summaries = {s.session_id: s for s in summarize_sessions(resolve_state_paths(), workspace)}
    assert summaries[failed].answered_turns == 0 and summaries[failed].turns == 1
    assert latest_session_id(resolve_state_paths(), workspace) == failed


def test_continue_skips_a_newer_session_where_nothing_was_asked(server, workspace) -> None:
    asked = run_session(workspace, server, "hello")
    empty = run_session(workspace, server)
    newest_first = [s.session_id for s in summarize_sessions(resolve_state_paths(), workspace)]
    assert newest_first == [empty, asked]
    assert latest_session_id(resolve_state_paths(), workspace) == asked


def test_deleting_a_session_removes_its_transcript_and_artifacts_but_not_an_open_one(
    server, workspace
) -> None:
    paths = resolve_state_paths()
    old = run_session(workspace, server, "old work")
    artifact = ArtifactStore(paths.artifacts_root).put(old, b"kept output").path
    assert artifact.is_file()
    open_one = make_session(workspace, provider(server))
    try:
        (refused,) = delete_sessions(paths, [open_one.session_id])
        assert refused.outcome == FAILED and isinstance(refused.problem, TranscriptLocked)
        assert (paths.transcripts / f"{open_one.session_id}.jsonl").exists()
        assert delete_sessions(paths, [old]) == [SessionDeletion(old, DELETED)]
    finally:
        open_one.close()
    assert not (paths.transcripts / f"{old}.jsonl").exists()
    assert not (paths.artifacts_root / old).exists()
    assert [s.session_id for s in summarize_sessions(paths)] == [open_one.session_id]


def test_a_failed_deletion_does_not_stop_the_rest_and_every_id_gets_its_outcome(
    server, workspace
) -> None:
    paths = resolve_state_paths()
    first = run_session(workspace, server, "first")
    last = run_session(workspace, server, "last")
    open_one = make_session(workspace, provider(server))
    absent = "20990101-000000-abcdef"
    try:
        outcomes = delete_sessions(paths, [first, open_one.session_id, absent, "../x", last])
    finally:
        open_one.close()
    assert [(o.session_id, o.outcome) for o in outcomes] == [
        (first, DELETED),
        (open_one.session_id, FAILED),
        (absent, NOT_FOUND),
        ("../x", NOT_A_SESSION),
        (last, DELETED),
    ]
    assert isinstance(outcomes[1].problem, TranscriptLocked)
    assert [s.session_id for s in summarize_sessions(paths)] == [open_one.session_id]


def message_records(*messages: dict) -> list[dict]:
    """`messages` as the transcript's `message` records, among records of other kinds."""
    records: list[dict] = [{"kind": "session_started", "payload": {}}]
    for message in messages:
        records += [{"kind": "message", "payload": {"message": message}}, {"kind": "usage"}]
    return records


def test_recent_exchanges_pair_each_request_with_its_answer_and_tools():
    from agent_cli.session.catalog import recent_exchanges

    records = message_records(
        {"role": "assistant", "content": [{"type": "text", "text": "before any request"}]},
        {"role": "user", "content": "read a.txt"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.txt"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "alpha"},
            {"type": "text", "text": "[a note agent-cli added after the results]"},
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "It says alpha."}]},
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
    )  # fmt: skip
    exchanges = recent_exchanges(records, limit=5)
    assert [(e.request, e.answer, e.calls) for e in exchanges] == [
        ("read a.txt", "Reading.\nIt says alpha.", (("read_file", "ran"),)),
        ("thanks", "", ()),
    ]
    assert recent_exchanges(records, limit=1)[0].request == "thanks"
    assert recent_exchanges(records, limit=0) == []


def test_a_note_after_tool_results_is_no_request_of_the_users():
    """The note agent-cli adds after a step's results (`call_limit`) is text in a user
    message: it is neither a turn of the listing nor a request of the recap."""
    from datetime import UTC, datetime

    from agent_cli.session.catalog import recent_exchanges
    from agent_cli.store.transcript import TranscriptStore

    paths = resolve_state_paths()
    store = TranscriptStore(paths.transcripts)
    session_id = store.new_session_id()
    with store.open_writer(session_id) as writer:
        for record in message_records(
            {"role": "user", "content": "list it"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "list_dir", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"},
                {"type": "text", "text": "[2 more calls of that answer were left out]"},
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "One file."}]},
        ):  # fmt: skip
            if record["kind"] == "message":
                writer.append("message", record["payload"], datetime.now(UTC))
    (summary,) = summarize_sessions(paths)
    assert (summary.turns, summary.answered_turns) == (1, 1)
    (exchange,) = recent_exchanges(store.replay(session_id))
    assert (exchange.request, exchange.answer) == ("list it", "One file.")
    assert exchange.calls == (("list_dir", "ran"),)


# Every spelling of the home's own entries the pointer grammar accepts as an id: the names
# themselves, other cases (one folder on a case-insensitive disk), and trailing dots.
HOME_OWN_NAMES = [
    "memory", "Memory", "MEMORY", "memory.", "memory..", "transcripts", "Transcripts",
    "transcripts.", "history", "HISTORY", "config.toml", "Config.TOML",
]  # fmt: skip


@pytest.mark.parametrize("name", HOME_OWN_NAMES)
def test_a_transcript_named_after_a_home_folder_is_no_session_and_deleting_it_removes_nothing(
    server, workspace, name
) -> None:
    paths = resolve_state_paths()
    real = run_session(workspace, server, "keep my memory")
    remembered = paths.memory / "0123456789abcdef.json"
    remembered.write_text('{"schema_version": 1}', encoding="utf-8")
    backup = paths.transcripts / f"{name}.jsonl"  # a renamed copy of a real transcript
    shutil.copyfile(paths.transcripts / f"{real}.jsonl", backup)
    old = 1_000_000_000  # 2001: older than any --older-than cut-off
    os.utime(backup, (old, old))

    assert [s.session_id for s in summarize_sessions(paths)] == [real]
    (outcome,) = delete_sessions(paths, [name])

    assert outcome.outcome == NOT_A_SESSION
    assert isinstance(outcome.problem, InvalidStoreInput)
    assert outcome.problem.reason == "reserved_name"
    assert remembered.read_text(encoding="utf-8") == '{"schema_version": 1}'
    assert backup.is_file() and (paths.transcripts / f"{real}.jsonl").is_file()


@pytest.mark.parametrize("name", HOME_OWN_NAMES)
def test_no_session_or_artifact_can_be_made_under_a_home_folder_name(tmp_path, name) -> None:
    from agent_cli.store.transcript import TranscriptStore

    with pytest.raises(InvalidStoreInput) as refused:
        ArtifactStore(tmp_path).put(name, b"output")
    assert refused.value.reason == "reserved_name"
    with pytest.raises(InvalidStoreInput):
        TranscriptStore(tmp_path / "transcripts").open_writer(name)
    assert list(tmp_path.iterdir()) == []


def test_deleting_a_session_removes_only_what_the_artifact_store_wrote_and_says_what_stays(
    server, workspace
) -> None:
    paths = resolve_state_paths()
    session_id = run_session(workspace, server, "make some output")
    artifacts = ArtifactStore(paths.artifacts_root)
    made = [artifacts.put(session_id, f"output {n}".encode()).path for n in range(3)]
    folder = paths.artifacts_root / session_id
    foreign = [folder / "notes.txt", folder / "tool-results" / "x.txt", folder / "sub" / "f"]
    for path in foreign:
        path.parent.mkdir(exist_ok=True)
        path.write_text("not the store's", encoding="utf-8")

    (outcome,) = delete_sessions(paths, [session_id])

    assert outcome.outcome == ARTIFACTS_LEFT
    assert isinstance(outcome.problem, SessionFolderKept)
    assert outcome.problem.foreign_entries == 3  # notes.txt, sub/, tool-results/x.txt
    assert not any(path.exists() for path in made)
    assert all(path.read_text(encoding="utf-8") == "not the store's" for path in foreign)
    assert not (paths.transcripts / f"{session_id}.jsonl").exists()


def test_a_link_in_place_of_a_session_folder_is_not_followed_nor_its_target_emptied(
    server, workspace, tmp_path
) -> None:
    paths = resolve_state_paths()
    session_id = run_session(workspace, server, "hello")
    elsewhere = tmp_path / "elsewhere" / "tool-results"
    elsewhere.mkdir(parents=True)
    precious = elsewhere / ("a" * 32 + ".txt")  # named like an artifact, yet not ours
    precious.write_text("precious", encoding="utf-8")
    (paths.artifacts_root / session_id).symlink_to(elsewhere.parent)

    (outcome,) = delete_sessions(paths, [session_id])

    assert outcome.outcome == ARTIFACTS_LEFT
    assert precious.read_text(encoding="utf-8") == "precious"
    assert (paths.artifacts_root / session_id).is_symlink()
