"""A transcript written before the issue 22 redesign still resumes (issue 22: "Transcripts
written before the change still resume").

`pre_redesign_transcript/` holds a session recorded by agent-cli at 7f4c392, the last
commit before the redesign, on the offline model (its README says how): every layer
fired, a `/compact` summary, the running digest, `/remember` and `/todo` records, a
`big.log` read stored as an artifact, and a part written by a `--resume` of that version.
`expected_view.json` is the view 7f4c392 rebuilt from it, private keys included.

Each test works on a copy in tmp_path (resuming appends to the transcript) and opens the
session the way the REPL does: settings from the folder's config.toml, the offline demo
defaults over them, `wiring.build_backend(...).open_session(<id>)`; the last test drives
`main` itself with piped lines.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from session_support import plain

from agent_cli.compaction.markers import (
    DIGEST_KEY,
    SOURCE_KEY,
    SUMMARY_HEADER,
    is_digest_message,
    is_summary_message,
)
from agent_cli.events import TurnEnded
from agent_cli.protocol import validate_tool_protocol
from agent_cli.repl import wiring
from agent_cli.repl.config import load_config_file, resolve_settings, with_demo_thresholds
from agent_cli.repl.main import main
from agent_cli.session import Session
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.store.paths import resolve_state_paths
from agent_cli.store.transcript import TranscriptStore
from agent_cli.tokens import TokenCounter

FIXTURE = Path(__file__).resolve().parent / "pre_redesign_transcript"
SESSION_ID = "20261205-031254-3b2101"
RECORDED_WORKSPACE = "/tmp/agent-cli-pre-redesign-ws"
RECORDED_MESSAGES = 36
RECORDED_COMPACTIONS = 11
# What 7f4c392's `stats` gave for this view (its durable block aside: that comes from the
# workspace's memory file, which is not part of the transcript).
OLD_MESSAGE_FIGURES = {
    "user_text": 6,
    "assistant_text": 67,
    "tool_calls": 57,
    "tool_results": 159,
    "compaction_summary": 115,
    "compaction_digest": 491,
}
ROLES = ["user", "user"] + ["assistant", "user"] * 3 + ["assistant"]
NOTES = "\n".join(f"gamma note {n}: the gamma stage keeps its inputs." for n in range(1, 41))


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(FIXTURE, copy)
    return copy


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "gamma.md").write_text(NOTES + "\n", encoding="utf-8")
    (folder / "README.md").write_text("# Demo Project\n", encoding="utf-8")
    return folder


def records(home: Path) -> list[dict[str, Any]]:
    return list(TranscriptStore(home / "transcripts").replay(SESSION_ID))


def point_at(home: Path, workspace: Path) -> None:
    """Make the copy name `workspace` as its folder, instead of the recording machine's
    (its one absolute path): the turn's tools then run there, wherever this test runs."""
    path = home / "transcripts" / f"{SESSION_ID}.jsonl"
    text = path.read_text(encoding="utf-8")
    assert text.count(json.dumps(RECORDED_WORKSPACE)) == 1
    path.write_text(text.replace(json.dumps(RECORDED_WORKSPACE), json.dumps(str(workspace))))


def open_resumed(backend: wiring.SessionBackend) -> Session:
    """The recorded session, resumed as the REPL's `--resume` opens it."""
    session = backend.open_session(SESSION_ID)
    assert isinstance(session, Session)  # the real one, whose view the tests read
    return session


def open_backend(home: Path, workspace: Path) -> wiring.SessionBackend:
    """The backend `main` builds for this home, on the offline model."""
    env = {"AGENT_CLI_HOME": str(home)}
    config = home / "config.toml"
    settings = with_demo_thresholds(resolve_settings({}, load_config_file(config), config))

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("no tool of these tests needs permission")

    return wiring.build_backend(
        settings, refuse, paths=resolve_state_paths(env), env=env, workspace=workspace
    )


def without_counts(view: list[Any]) -> list[dict[str, Any]]:
    """`view` as plain JSON with every key but the token counts a message or block may
    carry (`_tokens`, a cache the live session and a resumed one fill differently)."""

    def drop(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if k != "_tokens"}
        return [drop(v) for v in value] if isinstance(value, list) else value

    dropped: list[dict[str, Any]] = drop(json.loads(json.dumps(view)))
    return dropped


def user_requests(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], str)]


def requests_kept(view: list[Any]) -> set[str]:
    """The user's requests the view still holds: in the digest or as messages."""
    digest = [m for m in view if is_digest_message(m)]
    in_digest = {entry["text"] for m in digest for entry in m[DIGEST_KEY]["requests"]}
    live = [
        m
        for m in view
        if m["role"] == "user" and not is_digest_message(m) and not is_summary_message(m)
    ]
    return in_digest | {m["content"] for m in live if isinstance(m["content"], str)}


def test_the_old_transcript_replays_with_every_layer_a_compact_and_its_artifact(
    home: Path,
) -> None:
    replayed = records(home)
    assert [r["sequence"] for r in replayed] == list(range(1, len(replayed) + 1))
    kinds = [r["kind"] for r in replayed]
    assert kinds.count("message") == RECORDED_MESSAGES
    assert kinds.count("compaction") == RECORDED_COMPACTIONS
    assert {"user_command", "durable_change", "usage"} <= set(kinds)
    compactions = [r["payload"] for r in replayed if r["kind"] == "compaction"]
    assert {layer for c in compactions for layer in c["layers"]} == {"L1", "L2", "L3", "L4"}
    assert [c["layers"] for c in compactions if c["forced"]] == [["L4"]]  # the /compact
    for compaction in compactions:
        validate_tool_protocol(compaction["view"])
    text = (home / "transcripts" / f"{SESSION_ID}.jsonl").read_text(encoding="utf-8")
    (pointer,) = set(re.findall(rf"artifact:{SESSION_ID}:[\w.]+:[0-9a-f]{{64}}", text))
    assert ArtifactStore(home).read_range(pointer, 0, 64).startswith(b"File: big.log")


def test_resume_rebuilds_the_view_the_old_version_rebuilt(home: Path, work: Path) -> None:
    expected = json.loads((FIXTURE / "expected_view.json").read_text(encoding="utf-8"))
    session = open_resumed(open_backend(home, work))
    try:
        view = json.loads(json.dumps(session.view))  # private keys included
        assert view == expected
        assert [m["role"] for m in view] == ROLES
        digest, summary = view[0], view[1]
        assert is_digest_message(digest) and is_summary_message(summary)
        assert len(digest[DIGEST_KEY]["requests"]) == 8
        assert len(digest[DIGEST_KEY]["interactions"]) == 7
        assert all(
            entry["pointer"].startswith(f"transcript:{SESSION_ID}:")
            for part in ("requests", "interactions")
            for entry in digest[DIGEST_KEY][part]
        )
        assert digest["content"].startswith("[Compaction digest")
        assert "read_file path=big.log" in digest["content"]
        assert summary["content"].startswith(SUMMARY_HEADER)
        assert session.last_summary() == summary["content"][len(SUMMARY_HEADER) :].strip()
        assert all(SOURCE_KEY in m for m in view[2:])
        # every request the user typed is still there, in the digest or as a message
        recorded = [r["payload"]["message"] for r in records(home) if r["kind"] == "message"]
        assert set(user_requests(recorded)) == requests_kept(session.view)
        validate_tool_protocol(plain(session.view))

        stats = session.stats()
        assert stats.session_id == SESSION_ID
        assert stats.soft_threshold == 3000
        assert (stats.messages_in_view, stats.messages_in_transcript) == (9, RECORDED_MESSAGES)
        assert (stats.interactions_in_view, stats.interactions_in_transcript) == (2, 9)
        assert len(stats.compactions) == RECORDED_COMPACTIONS
        figures = stats.tokens_by_category
        assert {k: figures[k] for k in OLD_MESSAGE_FIGURES} == OLD_MESSAGE_FIGURES
        assert sum(figures.values()) == stats.total_tokens
        assert stats.total_tokens == session.gauge().tokens < stats.hard_limit
        # old records carry no token counts: the figures must be a fresh count of the view
        assert sum(OLD_MESSAGE_FIGURES.values()) == TokenCounter().count_messages(plain(view))
    finally:
        session.close()


def test_the_recorded_folder_gone_the_session_resumes_in_the_current_one(
    home: Path, work: Path
) -> None:
    if Path(RECORDED_WORKSPACE).exists():
        pytest.skip(f"{RECORDED_WORKSPACE} exists on this machine")
    session = open_resumed(open_backend(home, work))
    try:
        assert session.workspace == work.resolve()
        notices = session.startup_notices
        assert [n.code for n in notices] == ["workspace_missing"]
        assert notices[0].fields["recorded"] == RECORDED_WORKSPACE
    finally:
        session.close()


def test_one_more_turn_on_the_old_transcript_is_recorded_and_resumes_again(
    home: Path, work: Path
) -> None:
    point_at(home, work)
    recorded_records = len(records(home))
    backend = open_backend(home, work)
    session = open_resumed(backend)
    try:
        events = list(session.run_turn("read notes/gamma.md"))
        ended = [e for e in events if isinstance(e, TurnEnded)]
        assert len(ended) == 1 and ended[0].outcome == "ok", events
        live = without_counts(session.view)
        assert live[-1]["role"] == "assistant" and "40 lines" in json.dumps(live[-1])
    finally:
        session.close()

    replayed = records(home)
    new = [r for r in replayed if r["sequence"] > recorded_records and r["kind"] == "message"]
    assert [m["payload"]["message"]["role"] for m in new] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert new[0]["payload"]["message"]["content"] == "read notes/gamma.md"

    again = open_resumed(backend)
    try:
        view = plain(again.view)
        assert without_counts(again.view) == live  # where the turn left it, keys and all
        assert is_digest_message(again.view[0])
        recorded = [r["payload"]["message"] for r in replayed if r["kind"] == "message"]
        assert set(user_requests(recorded)) == requests_kept(again.view)
        stats = again.stats()
        assert stats.messages_in_transcript == RECORDED_MESSAGES + 4
        assert sum(stats.tokens_by_category.values()) == stats.total_tokens
        assert 0 < stats.total_tokens < stats.hard_limit
        validate_tool_protocol(view)
    finally:
        again.close()


def test_main_resumes_the_old_session_with_piped_lines(home: Path, work: Path) -> None:
    point_at(home, work)
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["--resume", SESSION_ID, "--workspace", str(work)],
        stdin=io.StringIO("stats\nread notes/gamma.md\n"),
        stdout=out,
        stderr=err,
        env={"AGENT_CLI_HOME": str(home)},
    )
    text = out.getvalue()
    assert code == 0, text + err.getvalue()
    assert f"session {SESSION_ID} (resumed)" in text
    assert "9 in view / 36 in transcript" in text
    assert "gamma.md has 40 lines" in text
    assert "Traceback" not in text + err.getvalue()
    messages = [r for r in records(home) if r["kind"] == "message"]
    assert len(messages) == RECORDED_MESSAGES + 4
