"""`-p` (one prompt from the command line, then exit) gives advice that works in `-p`:
no Up key, no REPL command (session 30's left item).

A large `-p` prompt whose artifact could not be written said "then send it again (Up
brings it back)"; there is no prompt to press Up at. Checked the other words `-p` can
print for REPL-only advice: an MCP server's tools withdrawn said "/mcp lists them", and
a request blocked over the hard limit said "Try /compact <focus>, a higher --hard-limit,
or /new" (or "/forget …", "/context shows it"). Each now says what to do from the
command line. A real `agent-cli -p` under a real RLIMIT_FSIZE for the first.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from test_faults_file_size_limit import run_agent

from agent_cli.errors import MessageViewLimitExceeded
from agent_cli.events import CompactionSkipped, Notice
from agent_cli.repl.compact_lines import format_skipped
from agent_cli.repl.error_text import (
    describe_print_turn_error,
    describe_startup_error,
    notice_text,
)

API_KEY = "sk-ant-print-advice-FAKE-3"
SESSION_ID = "20261207-120000-abc123"

REPL_ONLY = re.compile(r"\bUp\b|/compact|/new\b|/facts|/forget|/context|/mcp\b|send 'continue'")


def test_a_large_prompt_whose_artifact_meets_a_real_limit_says_to_run_the_command_again(
    tmp_path,
) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    done = run_agent(workspace, home, "-p", "a long paste " * 10_000, limit=60_000)
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, said
    assert "Your prompt (130,000 characters) was not sent" in said, said
    assert "file-size limit" in said and "ulimit -f" in said
    assert "then run the command again" in said
    assert not REPL_ONLY.search(said), said


@pytest.mark.parametrize("reason", ["ENOSPC", "EFBIG", "EIO"])
def test_a_large_prompt_not_stored_names_no_up_key_in_print_mode(reason: str) -> None:
    notice = Notice("error", "message_not_stored", {"characters": 2_000_000, "reason": reason})
    said = notice_text(notice, one_shot=True, session_id="20261207-120000-abc123")
    assert said.startswith("Your prompt (2,000,000 characters) was not sent"), said
    assert said.endswith("then run the command again.") and not REPL_ONLY.search(said), said
    assert "Up brings it back" in notice_text(notice)  # the REPL keeps its own words


def test_tools_withdrawn_in_print_mode_name_no_mcp_command() -> None:
    notice = Notice("info", "mcp_tools_withdrawn", {"server": "github", "count": 2})
    said = notice_text(notice, one_shot=True)
    assert said.startswith("MCP server github: 2 tools no longer offered to the model"), said
    assert not REPL_ONLY.search(said), said
    assert "/mcp lists them" in notice_text(notice)


def blocked(**figures: int) -> MessageViewLimitExceeded:
    found = {"tokens_before": 9_000, "tokens_after": 8_000, "hard_limit": 6_000}
    return MessageViewLimitExceeded(applied_layers=("L1",), **{**found, **figures})


@pytest.mark.parametrize(
    "error",
    [
        blocked(),
        blocked(reserved_tokens=7_000, durable_tokens=2_000),
        blocked(reserved_tokens=7_000),
        blocked(reserved_tokens=1_000, sized_content_over=True),
    ],
    ids=["conversation", "durable block", "what every request carries", "an image"],
)
def test_a_request_blocked_in_print_mode_says_what_to_change_on_the_command_line(
    error: MessageViewLimitExceeded,
) -> None:
    said = describe_print_turn_error(error, SESSION_ID)  # what `-p` prints for its turn's
    assert said.startswith("request blocked: the view is 8,000 tokens")
    assert_goes_on_from_the_session(said, "6,000")
    assert said == describe_startup_error(error).replace("<session id>", SESSION_ID)


def assert_goes_on_from_the_session(said: str, hard_limit: str) -> None:
    """The blocked run's advice: continue this session with a higher --hard-limit; no
    REPL command, no "run the command again" (it would block again), no new session
    offered as "without --continue/--resume" (a run that had neither is one)."""
    assert "agent-cli --continue -p" in said and f"--resume {SESSION_ID}" in said, said
    assert f"--hard-limit above {hard_limit}" in said, said
    assert "again" not in said and "without --continue" not in said, said
    named_where = said.replace("/forget facts in agent-cli without -p", "")  # says where
    assert not REPL_ONLY.search(named_where), said


def test_a_request_blocked_in_a_real_print_run_says_to_continue_with_a_higher_limit(
    tmp_path: Path,
) -> None:
    """Real `agent-cli -p` (real SDK, strict fake): a prompt that leaves the view over a
    hard limit of 2,100 once every layer ran; exit 3, nothing sent."""
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    with start_fake_server(api_key=API_KEY) as server:
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        limits = ["--hard-limit", "2100", "--soft-threshold", "2000"]
        done = run_piped([*limits, "-p", "count " + "word " * 300], cwd=workspace, env=env)
        assert server.requests == []  # nothing was sent
    (transcript,) = (home / "transcripts").glob("*.jsonl")
    said = " ".join(done.stderr.split()).replace(transcript.stem, SESSION_ID)
    assert done.returncode == 3, said
    assert "[compact] blocked: view is" in said and "hard limit 2,100" in said, said
    assert_goes_on_from_the_session(said, "2,100")


def test_a_paused_compaction_in_print_mode_says_what_to_run_not_which_command_to_type(
    tmp_path: Path,
) -> None:
    """Real `agent-cli -p` on the real SDK and the strict fake: a command's long output
    leaves the view over the soft threshold after compacting (the review's `blocked_p.py`)."""
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    with start_fake_server(api_key=API_KEY) as server:
        run_seq = tool_use_block("toolu_seq", "bash", {"command": "seq 1 6000"})
        server.enqueue(Reply([run_seq], "tool_use"))
        server.enqueue(Reply([text_block("Counted.")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        limits = ["--hard-limit", "5000", "--soft-threshold", "2500"]
        done = run_piped(["--yes", *limits, "-p", "count " + "word " * 10], cwd=workspace, env=env)
    said = " ".join(done.stderr.split())
    assert done.returncode == 0, said
    held = said[said.index("[compact] still over the soft threshold after compacting") :]
    assert "run agent-cli -p without --continue or --resume for a new session" in held, said
    assert not REPL_ONLY.search(held), said


def test_the_repl_keeps_its_commands_in_a_paused_compaction() -> None:
    paused = CompactionSkipped(
        "loop_guard", 95_000, held="over_soft", retry_at=99_000, soft_threshold=80_000
    )
    assert "/compact" in format_skipped(paused) and "/new" in format_skipped(paused)
    assert not REPL_ONLY.search(format_skipped(paused, one_shot=True))
