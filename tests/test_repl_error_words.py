"""Session errors are worded once: the REPL and the start-up add only their own advice."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli import errors as e
from agent_cli.repl.error_text import (
    describe_error,
    describe_failed_request,
    describe_session_fact,
    describe_startup_error,
)

SESSION = "20261203-091436-68f9c2"
SESSION_ERRORS = [
    e.TranscriptLocked(SESSION),
    e.TranscriptCorrupt(SESSION, 7, "bad_json"),
    e.SessionUnresumable(SESSION, "orphan_tool_result", line_number=12),
    e.TranscriptChangedUnderneath(SESSION, "truncated"),
]
ADVICE = {
    "repl": "/new",
    "start-up": "run agent-cli without --continue or --resume to start a new session",
}


@pytest.mark.parametrize("error", SESSION_ERRORS, ids=lambda error: type(error).__name__)
def test_the_repl_and_the_start_up_share_the_fact_and_differ_only_in_advice(error):
    fact = describe_session_fact(error)
    assert fact and SESSION in fact
    in_repl, at_start = describe_error(error), describe_startup_error(error)
    assert in_repl.startswith(fact) and at_start is not None and at_start.startswith(fact)
    assert ADVICE["repl"] in in_repl[len(fact) :] and "/new" not in at_start
    assert ADVICE["start-up"] in at_start[len(fact) :]


def test_other_errors_have_no_session_fact():
    assert describe_session_fact(e.SessionNotFound(SESSION)) is None


def test_each_session_error_sentence_is_written_in_one_module_only():
    package = Path(__file__).resolve().parent.parent / "agent_cli"
    phrases = [
        "is open in another agent-cli process",
        "is damaged at line",
        "conversation the API would refuse",
        "changed underneath (",
    ]
    for phrase in phrases:
        holders = [path.name for path in package.rglob("*.py") if phrase in path.read_text("utf-8")]
        assert holders == ["error_text.py"], (phrase, holders)


@pytest.mark.parametrize("kind, status", [("auth", 401), ("permission", 403)])
def test_a_refused_key_is_not_answered_with_continue_which_would_send_it_again(kind, status):
    """Seventh attack: after a 401 the advice was "send 'continue' to retry", in a
    process that keeps the refused key until it is started again."""
    words = describe_failed_request(e.ProviderRequestFailed(kind, status=status))
    assert f"HTTP {status}" in words and "agent-cli --continue" in words
    assert "send 'continue'" not in words


def test_a_400_over_one_tool_names_it_and_says_what_helps_instead_of_continue():
    """A refused tool rides in every request: 'continue' sent it again, forever. The
    words name the tool and its server, and the config key that turns the server off;
    -p says how to go on from this run's session. Our own tool refused is a bug."""
    from agent_cli.events import Notice
    from agent_cli.repl.error_text import notice_text

    detail = (
        "tools.9.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf "
        "at the top level"
    )
    error = e.ProviderRequestFailed("bad_request", status=400, detail=detail, tool="mcp__crm__f")
    words = describe_failed_request(error)
    assert words == (
        "Model request failed (HTTP 400): the API refused mcp__crm__f, a tool of the MCP "
        f"server crm ({detail}). Sending again would fail the same way: turn that server off "
        "(enabled = false under [mcp_servers.crm] in config.toml), then quit and start again "
        "with `agent-cli --continue`."
    )
    notice = Notice("error", "provider_failed", error=error)
    one_shot = notice_text(notice, one_shot=True, session_id=SESSION)
    assert one_shot.endswith(f"then run the command again with --continue (or --resume {SESSION}).")
    assert len(one_shot) <= 400  # what a notice shows
    own = describe_failed_request(e.ProviderRequestFailed("bad_request", tool="read_file"))
    assert "agent-cli's own tool read_file" in own and "bug in agent-cli" in own
    assert "send 'continue'" not in own


@pytest.mark.parametrize("kind", ["overloaded", "rate_limited", "connection", "timeout"])
def test_a_passing_failure_is_answered_with_continue(kind):
    assert "send 'continue' to retry" in describe_failed_request(e.ProviderRequestFailed(kind))


def test_a_memory_file_that_cannot_be_saved_says_nothing_changed_and_what_to_do():
    """Thirteenth attack: `/remember` on a full disk printed the bare exception,
    'MemoryWriteFailed: <path>: save failed (ENOSPC)'."""
    words = describe_error(e.MemoryWriteFailed("/h/memory/ab12.json", "ENOSPC"))
    assert words.startswith("could not save the durable memory file /h/memory/ab12.json")
    assert "the disk is full" in words and "no fact or pending item changed" in words
    assert "run the command again" in words and "MemoryWriteFailed" not in words


@pytest.mark.parametrize(
    ("kind", "status", "content_type", "url", "fact", "advice"),
    [
        (
            "wrong_endpoint",
            404,
            None,
            "http://127.0.0.1:8080/v1/v1/messages",
            "http://127.0.0.1:8080/v1/v1/messages is not the Messages API",
            "ANTHROPIC_BASE_URL ends in /v1, which the SDK adds itself: drop it.",
        ),
        (
            "wrong_endpoint",
            405,
            "text/html",
            "https://example.test/site/v1/messages",
            "https://example.test/site/v1/messages is not the Messages API",
            "Check ANTHROPIC_BASE_URL: the API's root",
        ),
    ],
)
def test_a_url_that_is_no_messages_api_says_where_and_what_to_check_and_offers_no_retry(
    kind, status, content_type, url, fact, advice
):
    """Outside tester (session 30): ANTHROPIC_BASE_URL ending in /v1 gave "Model request
    failed (HTTP 404): the request failed ... send 'continue' to retry", which fails the
    same way; a server answering text/plain was retried 5 times. The words say where the
    request went, what the server said and what to fix; -p says how to go on, and both
    stay whole within the 400 characters a notice shows, however long the URL and words."""
    from agent_cli.events import Notice
    from agent_cli.repl.error_text import notice_text

    said = "Not found: " + "/a-long-path" * 40
    error = e.ProviderRequestFailed(
        kind, status=status, detail=said, url=url, content_type=content_type
    )
    words = describe_failed_request(error)
    assert words.startswith(f"Model request failed (HTTP {status}): ")
    assert fact in words and advice in words and "(it said: Not found: /a-long-path" in words
    assert words.endswith(
        "quit, fix ANTHROPIC_BASE_URL, then start again with `agent-cli --continue`."
    )
    assert "send 'continue'" not in words and "the request failed" not in words
    one_shot = notice_text(
        Notice("error", "provider_failed", error=error), one_shot=True, session_id=SESSION
    )
    assert fact in one_shot and advice in one_shot
    assert one_shot.endswith(f"run the command again with --continue (or --resume {SESSION}).")
    long_url = e.ProviderRequestFailed(
        kind, status=status, detail=said, url="https://" + "h" * 300 + "/v1/messages"
    )
    for text in (
        words,
        one_shot,
        notice_text(
            Notice("error", "provider_failed", error=long_url), one_shot=True, session_id=SESSION
        ),
    ):
        assert len(text) <= 400, text
    assert describe_error(error) == words  # an error that reaches the REPL says the same


@pytest.mark.parametrize("kind", ["stream_incomplete", "stream_malformed"])
def test_answers_that_were_no_event_stream_say_what_came_and_offer_a_retry(kind):
    """Review of fix30h: one gateway page sent with 200 made agent-cli say "fix
    ANTHROPIC_BASE_URL". Such answers are retried; when retries run out the words say what
    came and what the server said, to check the URL only if this goes on, and how to send
    again, whole within the 400 characters a notice shows."""
    from agent_cli.events import Notice
    from agent_cli.repl.error_text import notice_text

    error = e.ProviderRequestFailed(
        kind,
        attempts=5,
        detail="502 Bad Gateway cloudflare",
        url="https://gw.example.test/v1/messages",
        content_type="text/html",
    )
    words = describe_failed_request(error)
    assert words == (
        "Model request failed after 5 attempts: https://gw.example.test/v1/messages answered "
        "text/html, not the Messages API's event stream (it said: 502 Bad Gateway cloudflare); "
        "if this goes on, check ANTHROPIC_BASE_URL. The conversation is unchanged but for your "
        "message, which is kept: send 'continue' to retry (sending it again would repeat it)."
    )
    one_shot = notice_text(
        Notice("error", "provider_failed", error=error), one_shot=True, session_id=SESSION
    )
    assert "(it said: 502 Bad Gateway cloudflare); if this goes on" in one_shot
    assert one_shot.endswith(f"run the command again with --continue (or --resume {SESSION}).")
    long = e.ProviderRequestFailed(
        kind,
        attempts=5,
        detail="w " * 200,
        url="https://" + "h" * 300,
        content_type="x/" + "y" * 60,
    )
    for text in (
        describe_failed_request(long),
        notice_text(
            Notice("error", "provider_failed", error=long), one_shot=True, session_id=SESSION
        ),
    ):
        assert len(text) <= 400 and "if this goes on, check ANTHROPIC_BASE_URL" in text, text
        assert "fix ANTHROPIC_BASE_URL" not in text
    plain = describe_failed_request(e.ProviderRequestFailed(kind, attempts=5))
    assert "event stream" not in plain and "send 'continue' to retry" in plain
