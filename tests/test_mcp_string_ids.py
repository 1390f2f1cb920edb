"""A stdio MCP server that answers request 7 under `"7"` (the SDK takes that as 7's
answer: `mcp.shared.dispatcher.coerce_request_id`).

Found by the reviewer of round 29 (`f_strid_leak.py`): the exit probe (`exit_probe`)
kept each such call in flight for the server's whole life, one entry a call (3,000
calls: 3,002 entries), and once the server died while a process it left held its pipes,
those answered calls held it "ready" until their timeout. Real processes (the server of
`mcp_fixtures/string_id_server.py`, run directly and through a real `bash`) and the hub;
timeouts far above what the tests take.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from test_mcp_exit_pipes_held import BOUND, LONG, _assert_ended, _state, wrapped

from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.mcp_servers.states import READY

SERVER = Path(__file__).parent / "mcp_fixtures" / "string_id_server.py"
CALLS = 300


def test_calls_answered_under_string_ids_are_in_flight_no_longer(tmp_path):
    """The reviewer's run, shorter: each call is answered, and none stays in flight."""
    settings = McpServerSettings(
        "s", command=sys.executable, args=(str(SERVER),), timeout=LONG, startup_timeout=LONG
    )
    hub = McpHub([settings], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        for _ in range(CALLS):
            outcome = hub.call("s", "echo", {})
            assert outcome.failure is None, outcome.failure
        probe = hub._running["s"].probe  # what the session wrote, as the probe keeps it
        assert probe is not None and probe.in_flight() == frozenset()
    finally:
        hub.close()


def test_a_server_that_dies_after_answering_under_string_ids_turns_failed(tmp_path, monkeypatch):
    """It answers two calls under string ids, the second its last (it exits); a `sleep`
    it left holds its stdin and stdout, so the ping is written and goes unanswered (its
    answer time made 0.5 s). The answered calls held the verdict until their timeout
    (90 s): the server stayed "ready", its tools offered. Now it turns failed."""
    monkeypatch.setattr("agent_cli.mcp_servers.hub.ANSWER_SECONDS", 0.5)
    left = tmp_path / "left.pid"
    script = f"exec {shlex.quote(sys.executable)} {shlex.quote(str(SERVER))}"
    hub = McpHub([wrapped("s", script, left, holds_stdin=True)], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        for tool, said in (("echo", "ok"), ("exit", "bye")):
            outcome = hub.call("s", tool, {})
            assert outcome.failure is None, outcome.failure
            assert [item["text"] for item in outcome.items] == [said]
        deadline = time.monotonic() + BOUND
        while _state(hub, "s").status == READY and time.monotonic() < deadline:
            time.sleep(0.05)
        state = _state(hub, "s")
        assert state.status == "failed", state
        assert "did not answer a ping" in state.reason, state.reason
        assert hub.offered_tools() == []
        _assert_ended(left)
    finally:
        hub.close()
