"""`exit_probe.ExitProbe`, alone: what counts as the server answering after the process
started for it exited, and what does not."""

from __future__ import annotations

import json

from agent_cli.mcp_servers.exit_probe import ANSWER_SECONDS, PING_ID, ExitProbe, ProbeStatus


def test_the_ping_is_an_mcp_ping_request_under_an_id_of_its_own():
    probe = ExitProbe()
    line = probe.exited(now=100.0)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"jsonrpc": "2.0", "id": PING_ID, "method": "ping"}
    assert probe.status is ProbeStatus.ASKING
    assert probe.deadline == 100.0 + ANSWER_SECONDS


def test_the_pings_answer_shows_the_server_is_there_and_is_kept_from_the_session():
    probe = ExitProbe()
    probe.exited(now=0.0)
    assert probe.take(PING_ID) is True
    assert probe.status is ProbeStatus.ANSWERED
    probe.unheard()  # too late: an answer came
    assert probe.status is ProbeStatus.ANSWERED


def test_an_answer_to_a_request_written_before_the_exit_proves_nothing():
    """It may have been written just before the exit (still in the pipe after it)."""
    probe = ExitProbe()
    probe.note_request(7)  # written while the process ran
    probe.exited(now=0.0)
    assert probe.take(7) is False
    assert probe.status is ProbeStatus.ASKING


def test_an_answer_to_a_request_written_after_the_exit_shows_the_server_is_there():
    probe = ExitProbe()
    probe.exited(now=0.0)
    probe.note_request(8)
    assert probe.take(8) is False  # the session's own answer: it gets it
    assert probe.status is ProbeStatus.ANSWERED


def test_a_silent_server_stays_silent_and_the_pings_late_answer_is_still_kept_back():
    probe = ExitProbe()
    assert probe.take(PING_ID) is True and probe.status is ProbeStatus.RUNNING
    probe.exited(now=0.0)
    probe.unheard()
    assert probe.status is ProbeStatus.SILENT
    assert probe.take(PING_ID) is True
    assert probe.status is ProbeStatus.SILENT
