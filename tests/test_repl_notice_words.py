"""Every notice code the session emits has words in the REPL, and only there.

The session yields codes with fields (`events.Notice`); `repl.error_text.notice_text` is
the one place they become sentences. A code the table did not know would reach the
screen as a bare code, so every code written in session/ is checked here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from agent_cli.compaction.results import SKIPPED_NO_SUMMARIZER
from agent_cli.errors import (
    ArtifactWriteFailed,
    ProviderRequestFailed,
    SummarizerFailed,
    TranscriptWriteFailed,
)
from agent_cli.events import Notice
from agent_cli.repl.error_text import notice_text
from agent_cli.session.compactor import FAILED_LAYER_OUTCOMES
from agent_cli.session.turn import PERMISSION_CANCELLED, TOOL_NOT_STARTED

SESSION_DIR = Path(__file__).resolve().parents[1] / "agent_cli" / "session"

# A code and the fields the session gives it, as each call site builds them.
EMITTED = {
    "mcp_waiting": {"servers": "github, files", "limit": 10.0},
    "mcp_still_starting": {"servers": "github"},
    "mcp_failed": {"server": "github", "reason": "the command 'npx' was not found"},
    "mcp_tools_changed": {"server": "github", "added": 2, "removed": 0, "changed": 1},
    "mcp_tools_withdrawn": {"server": "github", "count": 1},
    "mcp_launcher_exited": {"server": "github"},
    "step_limit": {"steps": 40},
    "pause_limit": {"pauses": 3},
    "cancelled": {"during": "tool"},
    PERMISSION_CANCELLED: {"tool": "bash"},
    TOOL_NOT_STARTED: {"tool": "write_file"},
    "max_tokens": {"kept": True},
    "empty_answer": {},
    "refusal": {},
    "invalid_view": {},
    "provider_failed": {},
    "transcript_write_failed": {},
    "answer_not_kept": {},
    "low_water_under_reserve": {"low": 1_000, "fixed": 2_400, "aim": 2_700},
    "uncounted_denser": {"estimate": 19_135, "bound": 21_600, "hard": 20_000},
    "calls_not_run": {"asked": 3_000, "ran": 370},
    "calls_at_stop": {"calls": 2, "reason": "end_turn"},
    "results_held": {},
    "results_recorded": {},
    "message_stored": {"characters": 2_000_000},
    "message_not_stored": {"characters": 2_000_000, "reason": "ENOSPC"},
    "workspace_switched": {"recorded": "/a", "current": "/b"},
    "workspace_missing": {"recorded": "/a", "current": "/b"},
    "durable_elsewhere": {"folder": "/a", "file": "/m/1.json", "facts": 2, "pending": 1},
    "durable_clash": {"folder": "/a", "file": "/m/1.json", "facts": 1, "pending": 0, "ids": ["F1"]},
    "durable_not_brought": {"folder": "/a", "file": "/m/1.json", "reason": "ENOSPC"},
    "torn_record_set_aside": {"kept_at": "/h/transcripts/s.jsonl.torn-1", "bytes": 1_234},
    "credentials_not_hidden": {"short": "DB_PASSWORD", "word": ".env: POSTGRES_PASSWORD"},
    "dotenv_not_read": {
        "not_regular": ".env.pipe",
        "unreadable": "a/.env",
        "cut": "big.env",
        "read_bytes": 4 * 2**20,
        "folders_not_read": 3,
        "folders_read": 200,
    },
    "dotenv_learned": {"files": ".env, web/.env.local", "names": "GITHUB_TOKEN", "count": 1},
    "memory_damaged": {},
    "project_instructions_unusable": {"source": "AGENTS.md", "problem": "binary"},
    "project_instructions_redacted": {"source": "AGENTS.md", "redacted": 2},
    "model_restored": {"model": "claude-x"},
    "model_flag_over_choice": {"model": "claude-x", "chosen": "claude-y"},
    "tool_ids_renamed": {"count": 3},
    "resumed_mid_tool": {},
    "resumed_at_question": {"tool": "bash"},
    "duplicate_tool_id": {"retry": True},
    "bad_tool_id": {"retry": False},
    "unsendable_answer": {"retry": True},
    "durable_block_fills_limit": {
        "fixed": 3_016,
        "durable": 1_277,
        "hard": 3_000,
        "needed": 750,
        "oldest": "F1",
    },
    **{outcome: {} for outcome in FAILED_LAYER_OUTCOMES},
}


def codes_written_in_session() -> set[str]:
    """The string codes of every `Notice(level, "code", ...)` in session/."""
    codes = set()
    for path in SESSION_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Notice":
                code = node.args[1] if len(node.args) > 1 else None
                if isinstance(code, ast.Constant) and isinstance(code.value, str):
                    codes.add(code.value)
    return codes


def test_every_code_written_in_the_session_is_one_the_words_cover():
    written = codes_written_in_session()
    assert len(written) > 15  # the scan finds the call sites
    assert written <= set(EMITTED)


def test_no_notice_in_the_session_carries_a_sentence():
    for path in SESSION_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Notice":
                third = node.args[2] if len(node.args) > 2 else None
                assert not isinstance(third, ast.Constant | ast.JoinedStr), (
                    f"{path.name}:{node.lineno}"
                )


@pytest.mark.parametrize("code", sorted(EMITTED))
def test_each_code_becomes_a_sentence_not_the_code(code):
    text = notice_text(Notice("warning", code, EMITTED[code]))
    assert text != code and text.endswith(".") and "{" not in text


def test_failures_are_worded_from_the_typed_error_they_carry():
    full = notice_text(
        Notice("error", "transcript_write_failed", error=TranscriptWriteFailed("s", "ENOSPC"))
    )
    assert full.startswith("Could not write the transcript (the disk is full, ENOSPC)")
    busy = ProviderRequestFailed("overloaded", status=529, attempts=3)
    assert "(HTTP 529) after 3 attempts: the API is overloaded" in notice_text(
        Notice("error", "provider_failed", error=busy)
    )
    assert notice_text(Notice("error", "provider_failed")) == (
        "The provider ended the stream without an answer."
    )


SUMMARY_CAUSES = [
    (
        SummarizerFailed(
            "provider_error", provider_failure=ProviderRequestFailed("overloaded", attempts=5)
        ),
        "L4: the summary request failed after 5 attempts: the API was overloaded.",
    ),
    (
        SummarizerFailed(
            "provider_error",
            provider_failure=ProviderRequestFailed("rate_limited", status=429, attempts=5),
        ),
        "L4: the summary request failed after 5 attempts (HTTP 429): the API's rate limit "
        "was reached.",
    ),
    (
        SummarizerFailed(
            "provider_error", provider_failure=ProviderRequestFailed("connection", attempts=3)
        ),
        "L4: the summary request failed after 3 attempts: the connection to the API failed "
        "or dropped.",
    ),
    (
        SummarizerFailed(
            "provider_error",
            provider_failure=ProviderRequestFailed(
                "bad_request", status=400, detail="prompt is too long:\n\x1b[2J 300000 > 200000"
            ),
        ),
        "L4: the summary request failed (HTTP 400): the API refused it: prompt is too long:",
    ),
    (
        SummarizerFailed("timeout", timeout_seconds=120.0),
        "L4: the summary request timed out: no answer came within 120 s.",
    ),
    (
        SummarizerFailed("called_tool"),
        "L4: the summary request failed: the model answered with a tool call instead of a summary.",
    ),
    (RuntimeError("a plain summarizer's own words"), "L4: the summarizer failed."),
    (None, "L4: the summarizer failed."),
]


@pytest.mark.parametrize(("error", "said"), SUMMARY_CAUSES)
def test_a_failed_summary_says_why_in_words_and_what_comes_next(
    error: BaseException | None, said: str
) -> None:
    words = notice_text(Notice("warning", "summary_failed", {"forced": False}, error=error))
    assert words.startswith(said), words
    assert "\x1b" not in words and "\n" not in words
    assert words.endswith(
        "until your next message, compaction prunes older messages instead of asking for a "
        "summary again."
    )
    forced = notice_text(Notice("warning", "summary_failed", {"forced": True}, error=error))
    assert forced.startswith(said) and forced.endswith("try /compact again later.")
    one_shot = notice_text(Notice("warning", "summary_failed", error=error), one_shot=True)
    assert one_shot.endswith(
        "the rest of this run prunes older messages instead of asking for a summary again."
    )


def test_a_summary_that_no_summarizer_could_write_is_said_as_such():
    assert notice_text(Notice("warning", SKIPPED_NO_SUMMARIZER)) == (
        "L4 was needed but no summarizer is available."
    )


@pytest.mark.parametrize("code", ["overloaded", "rate_limited", "bad_request", "timeout"])
def test_a_failed_request_in_one_shot_mode_says_run_again_not_send_continue(code: str) -> None:
    notice = Notice("error", "provider_failed", error=ProviderRequestFailed(code, status=529))
    interactive = notice_text(notice)
    one_shot = notice_text(notice, one_shot=True)
    assert "send 'continue'" in interactive  # the REPL's wording is unchanged
    assert "send 'continue'" not in one_shot
    assert "run the command again with --continue" in one_shot
    assert one_shot.split(":")[0] == interactive.split(":")[0]  # the same failure is named


@pytest.mark.parametrize("kept", [True, False])
def test_a_cut_answer_in_one_shot_mode_says_run_again(kept: bool) -> None:
    one_shot = notice_text(Notice("warning", "max_tokens", {"kept": kept}), one_shot=True)
    assert "Run the command again" in one_shot or "run the command again" in one_shot
    assert ("Ask the agent to continue" in one_shot) is False
    assert ("what arrived is kept" in one_shot) is kept


def test_mcp_notices_in_one_shot_mode_offer_no_command_that_minus_p_cannot_run() -> None:
    """`-p` said "/mcp restart github tries again" and "/mcp shows how they stand": it
    runs no command. Each says what becomes of this run instead; the REPL's are kept."""
    failed = Notice("warning", "mcp_failed", EMITTED["mcp_failed"])
    assert notice_text(failed).endswith("/mcp restart github tries again.")
    one_shot = notice_text(failed, one_shot=True)
    assert one_shot == (
        "MCP server github is not available: the command 'npx' was not found. This run goes "
        "on without it (the next run of agent-cli starts it again)."
    )
    starting = Notice("warning", "mcp_still_starting", EMITTED["mcp_still_starting"])
    assert "/mcp shows" in notice_text(starting)
    said = notice_text(starting, one_shot=True)
    assert "/mcp" not in said and "left out of this request: github" in said
    assert "startup_timeout" in said


def test_a_server_whose_tools_changed_is_said_with_what_changed_only():
    said = notice_text(Notice("info", "mcp_tools_changed", EMITTED["mcp_tools_changed"]))
    assert said == (
        "MCP server github changed its tools (2 added, 1 changed); the model is offered its "
        "new list from now on."
    )


def test_an_answer_the_store_refused_says_it_arrived_was_billed_and_what_to_do():
    said = notice_text(
        Notice("error", "answer_not_kept", error=ArtifactWriteFailed("assistant", "EFBIG"))
    )
    assert said.startswith("The model's answer arrived (its tokens are billed) but could not")
    assert "file-size limit" in said and "EFBIG" in said and "ulimit -f" in said
    assert "none of its tool calls ran" in said
    stored = notice_text(
        Notice("error", "transcript_write_failed", error=ArtifactWriteFailed("a", "ENOSPC"))
    )
    assert stored.startswith("Could not store a large part of this turn in the state folder")
    assert "(the disk is full, ENOSPC)" in stored and "ArtifactWriteFailed" not in stored


def _commands_to_type(text: str) -> list[str]:
    """The REPL commands `text` asks to be typed in this run: each named in a sentence
    where no `agent-cli` run is named before it, and not as history ("chosen with
    /model")."""
    from agent_cli.repl.commands import COMMANDS

    named = "|".join(re.escape(name) for name in sorted(COMMANDS, key=len, reverse=True))
    found = []
    for sentence in re.split(r"(?<=[.;:])\s", text):
        for match in re.finditer(rf"(?<![\w./-])({named})\b", sentence):
            before = sentence[: match.start()]
            if "agent-cli" not in before and not before.endswith("chosen with "):
                found.append(match.group(1))
    return found


@pytest.mark.parametrize("code", sorted(EMITTED))
def test_no_notice_in_one_shot_mode_asks_for_a_command_minus_p_cannot_run(code: str) -> None:
    """`-p` reads no command: its notices name a REPL command only as history or in a
    run of agent-cli without -p (left by session 31: `/model` and `/forget`; then
    `/reload`, `/remember` found by this test)."""
    text = notice_text(Notice("warning", code, EMITTED[code]), one_shot=True, session_id="s1")
    assert _commands_to_type(text) == [], text


def test_the_command_finder_sees_a_command_asked_for():
    assert _commands_to_type("Fix the file and run /reload.") == ["/reload"]
    assert _commands_to_type("run agent-cli --resume s1 and type /facts bring.") == []
