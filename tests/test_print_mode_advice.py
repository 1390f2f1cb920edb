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

import pytest
from test_faults_file_size_limit import run_agent

from agent_cli.errors import MessageViewLimitExceeded
from agent_cli.events import Notice
from agent_cli.repl.error_text import describe_startup_error, notice_text

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
    said = describe_startup_error(error)  # what `-p` prints for an error its turn raised
    assert said is not None and said.startswith("request blocked: the view is 8,000 tokens")
    assert "--hard-limit" in said, said
    named_where = said.replace("/forget facts in agent-cli without -p", "")  # says where
    assert not REPL_ONLY.search(named_where), said
