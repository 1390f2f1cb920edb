"""Lines an MCP server writes to stdout that are not JSON-RPC messages (an outside
attack: a call answered with half a JSON line waited for its whole 60 s timeout).

A broken message (a line that begins with `{`, names `"jsonrpc"` and is not JSON, or
JSON naming `jsonrpc` that is no message) stops the server at once: a call waiting for it ends then, an error
result that says so and quotes the line's start, redacted and with controls written out;
the server is failed and its tools leave the next request. Other stray lines (log lines,
blank lines, JSON log records) are skipped, as before: a server that logs to stdout
still works. The process tests run the hand-written `mcp_fixtures/raw_server.py` over
stdio with a 30 s call timeout and assert the words, never the time taken."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.mcp_servers.stray_lines import (
    QUOTED_CHARS,
    might_be_message,
    quote_line,
    read_stray_line,
)
from agent_cli.secret_forms import SecretForms
from agent_cli.tools import Toolbox

RAW = Path(__file__).parent / "mcp_fixtures" / "raw_server.py"
SECRET = "ghp_strayLINES0123456789abcdefXYZ"
NO_ANSWER = "got no answer"  # the timeout's words: none of these calls may end with them


def raw(mode: str, name: str = "raw", timeout: float = 30) -> McpServerSettings:
    return McpServerSettings(
        name,
        command=sys.executable,
        args=(str(RAW), mode),
        env={"RAW_SECRET": SECRET},
        timeout=timeout,
        startup_timeout=30,
    )


def _state(hub: McpHub, name: str = "raw"):
    return next(state for state in hub.states() if state.name == name)


@pytest.fixture
def toolbox(tmp_path) -> Toolbox:
    return make_toolbox(tmp_path, secret_environment={"RAW_TOKEN": SECRET})


def _started(tmp_path: Path, toolbox: Toolbox, mode: str, timeout: float = 30) -> McpHub:
    hub = McpHub([raw(mode, timeout=timeout)], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    assert hub.wait_for_start(40) == []
    return hub


@pytest.fixture
def split(tmp_path, toolbox) -> Iterator[McpHub]:
    hub = _started(tmp_path, toolbox, "split_answer")
    try:
        assert _state(hub).status == "ready", _state(hub).reason
        yield hub
    finally:
        hub.close()


def test_an_answer_cut_in_two_ends_the_call_at_once_and_stops_the_server(split, toolbox):
    result = toolbox.run("mcp__raw__odd", {})
    assert result.is_error
    assert NO_ANSWER not in result.content, result.content
    assert "the MCP server raw was stopped" in result.content
    assert "wrote a line to stdout that is not valid JSON-RPC during a call of odd" in (
        result.content
    )
    assert '"id": ' in result.content and "/mcp restart raw" in result.content
    state = _state(split)
    assert state.status == "failed" and "not valid JSON-RPC" in state.reason
    assert state.tools == ()


def test_the_quoted_line_holds_no_secret_and_no_raw_escape(split, toolbox):
    result = toolbox.run("mcp__raw__odd", {})
    for said in (result.content, _state(split).reason):
        assert SECRET not in said and "[REDACTED]" in said, said
        assert "\x1b" not in said and "\x07" not in said
        assert "^[]0;TITLE^G" in said  # written out, as approvals write controls


def test_the_session_goes_on_the_next_call_says_the_server_is_stopped(split, toolbox):
    assert toolbox.run("mcp__raw__odd", {}).is_error
    assert not any(s["name"].startswith("mcp__raw") for s in toolbox.schemas())  # its tools left
    again = split.call("raw", "odd", {})
    assert again.failure is not None
    assert again.failure.startswith("the MCP server raw is failed: it wrote a line to stdout")
    split.restart("raw")  # and it can be started again
    assert split.wait_for_start(40) == [] and _state(split).status == "ready"


def test_log_lines_before_an_answer_are_skipped_and_the_server_stays_ready(tmp_path, toolbox):
    hub = _started(tmp_path, toolbox, "logs_then_answer")
    try:
        for _ in range(2):
            result = toolbox.run("mcp__raw__odd", {})
            assert not result.is_error and "ok" in result.content, result.content
        assert _state(hub).status == "ready"
    finally:
        hub.close()


def test_a_call_left_without_an_answer_quotes_the_log_line_it_got_instead(tmp_path, toolbox):
    hub = _started(tmp_path, toolbox, "logs_only", timeout=2)
    try:
        outcome = hub.call("raw", "odd", {})
        assert outcome.failure is not None
        assert "got no answer in 2 s" in outcome.failure
        assert "wrote a line to stdout that is not JSON-RPC: 'Error: the backend" in (
            outcome.failure
        )
        assert SECRET not in outcome.failure and "[REDACTED]" in outcome.failure
    finally:
        hub.close()


def test_a_broken_message_between_calls_stops_the_server_with_the_reason(tmp_path, toolbox):
    hub = _started(tmp_path, toolbox, "broken_after")
    try:
        first = hub.call("raw", "odd", {})
        assert first.failure is None and first.items[0]["text"] == "ok"
        deadline = time.monotonic() + 20
        while _state(hub).status == "ready" and time.monotonic() < deadline:
            time.sleep(0.05)
        state = _state(hub)
        assert state.status == "failed"
        assert state.reason.startswith("it wrote a line to stdout that is not valid JSON-RPC: ")
        assert "notifications/progress" in state.reason
        assert "/mcp restart" not in state.reason  # a fact: the REPL's notice gives the advice
    finally:
        hub.close()


def test_a_broken_answer_to_the_handshake_fails_the_start_at_once(tmp_path):
    hub = McpHub([raw("broken_handshake")], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(40) == []
        state = _state(hub)
        assert state.status == "failed"
        assert "not valid JSON-RPC during the MCP handshake" in state.reason, state.reason
        assert "in time" not in state.reason
    finally:
        hub.close()


# --- the pure half -------------------------------------------------------------------


def _parse_error(line: str) -> Exception:
    """What the SDK's stdio reader hands its session for `line`."""
    from mcp.types import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as error:
        return error
    raise AssertionError(f"{line!r} is a valid message")


@pytest.mark.parametrize(
    ("line", "broken"),
    [
        ('{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"text": "cut', True),
        ('{"id": 3, "result": {"content": [{"text": "cut ... "jsonrpc": "2.0"', True),
        ('  {"jsonrpc": "2.0", "id": 3}', True),  # JSON-RPC, but no result
        ('[{"jsonrpc": "2.0", "id": 1, "result": {}}]', True),  # a batch
        ('{"jsonrpc": "1.0", "id": 1, "result": {}}', True),
        ("not json at all", False),
        ("{this is not json", False),
        ("{", False),  # the first line of a pretty-printed dump
        ('{"id": 3, "result": {"content": [{"text": "cut', False),  # names no jsonrpc
        ('DEBUG sent {"jsonrpc": "2.0", "id": 3, "result": {}}', False),  # a log line
        ("INFO server started on stdio", False),
        ("", False),
        ("[2026-01-01 12:00:00] ready", False),
        ('{"level": 30, "msg": "a JSON log record"}', False),
        ("42", False),
    ],
)
def test_broken_messages_are_told_from_other_stray_lines(line, broken):
    stray = read_stray_line(_parse_error(line))
    assert stray is not None and stray.is_broken_message is broken
    if broken:  # the transport skips unparsed only lines that cannot be one
        assert might_be_message(line.encode())


def test_other_items_are_no_stray_lines():
    assert read_stray_line(ValueError("x")) is None
    assert read_stray_line(OSError(5, "EIO")) is None
    assert read_stray_line(object()) is None


def test_a_quote_is_short_redacted_and_one_line():
    secrets = SecretForms.from_values([SECRET])
    quoted = quote_line(f'{{"a": "{SECRET}\x1b[2J\r', secrets)
    assert quoted.startswith('\'{"a": "[REDACTED]^[[2J^M') and quoted.endswith("'")
    long = quote_line("x" * 10_000)
    assert len(long) <= QUOTED_CHARS + 2 and long.endswith("…'")


def _token(length: int, seed: int) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(alphabet[(seed * 7 + n * n * 31 + n) % len(alphabet)] for n in range(length))


def test_a_secret_across_the_quotes_window_is_cut_off_whole():
    """The window read for a quote ends inside a long secret, after text that redaction
    shrinks to a few marks: no piece of the secret is quoted, whatever the cut (less than
    half of a secret is not recognised as one once cut off)."""
    from agent_cli.mcp_servers.stray_lines import QUOTE_WINDOW

    key = _token(400, 1)
    for filler_length in range(210, 400, 7):
        filler = _token(filler_length, 2)
        secrets = SecretForms.from_values([key, filler])
        text = key * 4 + filler + key + " tail"
        assert len(key * 4 + filler) < QUOTE_WINDOW < len(key * 5 + filler)
        quoted = quote_line(text, secrets)
        assert "[REDACTED]" in quoted
        assert not any(key[i : i + 12] in quoted for i in range(len(key) - 11)), quoted
