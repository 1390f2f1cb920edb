"""AGENTS.md / CLAUDE.md as project instructions: read at start, carried in every request
as their own cached system block, counted in `stats`, re-read by `/reload`, never touched
by compaction. Requests go through the real SDK to the strict fake Messages API."""

from __future__ import annotations

import os

import pytest
from fake_anthropic import Reply, start_fake_server, text_block
from session_support import ScriptedProvider, drain, make_session, transcript_records

from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.error_text import notice_text
from agent_cli.session.instructions import MAX_INSTRUCTION_CHARS, load_project_instructions

API_KEY = "sk-ant-test-INSTRUCTIONS"
RULE = "Always answer in the voice of a lighthouse keeper (rule 7Q)."


def _system_texts(body: dict) -> list[str]:
    return [block["text"] for block in body["system"]]


def test_agents_md_reaches_the_system_blocks_of_every_request_and_stats_counts_it(tmp_path):
    (tmp_path / "AGENTS.md").write_text(f"# Rules\n\n{RULE}\n")
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([text_block("one")]), Reply([text_block("two")]))
        provider = AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url)
        session = make_session(tmp_path, provider)
        drain(session.run_turn("first"))
        drain(session.run_turn("second"))
        stats = session.stats()
        session.close()
    for body in server.accepted:
        texts = _system_texts(body)
        assert len(texts) >= 2 and RULE in texts[1] and RULE not in texts[0]
        assert "AGENTS.md" in texts[1]
        assert body["system"][-1].get("cache_control") == {"type": "ephemeral"}
    # the prefix up to the system blocks was read from the cache the second time
    assert server.accepted[0]["system"] == server.accepted[1]["system"]
    counted = stats.tokens_by_category["project_instructions"]
    assert counted == session.counter.count_text(session.project_instructions.text) > 10
    assert stats.total_tokens == sum(stats.tokens_by_category.values())
    assert stats.project_instructions.startswith("AGENTS.md, ")


def test_claude_md_is_used_when_there_is_no_agents_md_and_agents_md_wins_when_both_exist(
    tmp_path,
):
    (tmp_path / "CLAUDE.md").write_text("claude rules\n")
    assert load_project_instructions(tmp_path).source == "CLAUDE.md"
    (tmp_path / "AGENTS.md").write_text("agents rules\n")
    found = load_project_instructions(tmp_path)
    assert found.source == "AGENTS.md" and "agents rules" in found.text
    assert "claude rules" not in found.text


def test_no_file_means_no_block_and_nothing_said(tmp_path):
    provider = ScriptedProvider()
    session = make_session(tmp_path, provider)
    drain(session.run_turn("hi"))
    assert provider.requests[-1].project_instructions == ""
    assert session.startup_notices == []
    assert session.stats().tokens_by_category["project_instructions"] == 0


def test_a_large_file_is_capped_with_a_note_that_says_so(tmp_path):
    (tmp_path / "AGENTS.md").write_text("start\n" + "x" * (MAX_INSTRUCTION_CHARS * 5) + "\nEND\n")
    found = load_project_instructions(tmp_path)
    assert found.truncated and "END" not in found.text and "start" in found.text
    assert len(found.text) < MAX_INSTRUCTION_CHARS + 1_000
    assert "longer than the 40,000 characters" in found.text


def test_a_multibyte_character_cut_at_the_read_limit_is_not_called_bad_utf8(tmp_path):
    (tmp_path / "AGENTS.md").write_text("é" * (MAX_INSTRUCTION_CHARS * 3))
    found = load_project_instructions(tmp_path)
    assert found.problem is None and found.truncated


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig"])
def test_a_file_saved_by_windows_tools_is_read_as_the_text_it_is(tmp_path, encoding):
    """PowerShell 5's `>` writes UTF-16 with a byte-order mark: it was refused as binary,
    though read_file reads it; Notepad's UTF-8 mark was kept as a character of the text."""
    text = "# Rules\n\nRun the tests with `make test` before committing. Überprüfe alles.\n"
    mark = {"utf-16-be": "\ufeff"}.get(encoding, "")  # (this codec writes no mark itself)
    (tmp_path / "AGENTS.md").write_bytes((mark + text).encode(encoding))
    found = load_project_instructions(tmp_path)
    assert found.problem is None
    assert found.text.endswith(text.strip()) and "\ufeff" not in found.text


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda root: (root / "AGENTS.md").write_bytes(b"\xff\xfe\x00\xd8"), "not_utf8"),
        (lambda root: (root / "AGENTS.md").write_bytes(b"# rules\n bad \xc3("), "not_utf8"),
        (lambda root: (root / "AGENTS.md").write_bytes(b"# rules\n\x00\x01\x02"), "binary"),
        (lambda root: (root / "AGENTS.md").mkdir(), "not_a_file"),
        (lambda root: os.symlink("/etc/hostname", root / "AGENTS.md"), "outside_workspace"),
        (lambda root: os.symlink("AGENTS.md", root / "AGENTS.md"), "unreadable"),
    ],
)
def test_a_file_that_cannot_be_used_is_reported_once_and_the_session_goes_on(
    tmp_path, make, problem
):
    make(tmp_path)
    provider = ScriptedProvider()
    session = make_session(tmp_path, provider)
    [notice] = session.startup_notices
    assert notice.code == "project_instructions_unusable" and "AGENTS.md" in notice_text(notice)
    assert "/reload" in notice_text(notice)
    drain(session.run_turn("hi"))
    assert provider.requests[-1].project_instructions == ""
    assert session.project_instructions.problem == problem


def test_reload_reads_a_changed_file_and_the_next_request_carries_it(tmp_path):
    agents = tmp_path / "AGENTS.md"
    agents.write_text("old rule\n")
    provider = ScriptedProvider()
    session = make_session(tmp_path, provider)
    agents.write_text("new rule\n")
    drain(session.run_turn("before reload"))
    assert "old rule" in provider.requests[-1].project_instructions
    assert session.reload_project_instructions().source == "AGENTS.md"
    drain(session.run_turn("after reload"))
    assert "new rule" in provider.requests[-1].project_instructions
    kinds = [r["kind"] for r in transcript_records(session)]
    assert kinds.count("project_instructions") == 2  # at start and at the reload


def test_compaction_and_the_durable_state_never_touch_the_instructions(tmp_path):
    (tmp_path / "AGENTS.md").write_text(f"{RULE}\n")
    provider = ScriptedProvider(summarizer=lambda old: "summary of the old part")
    session = make_session(tmp_path, provider, keep_recent=2)
    for index in range(6):
        drain(session.run_turn(f"message {index} " + "words " * 50))
    session.remember("a durable fact")
    drain(session.compact_now("focus"))
    drain(session.run_turn("after compaction"))
    request = provider.requests[-1]
    assert RULE in request.project_instructions
    assert RULE not in request.durable_context
    assert all(RULE not in str(message) for message in request.messages)
