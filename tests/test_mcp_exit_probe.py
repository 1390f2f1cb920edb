"""`exit_probe.ExitProbe`, alone: what counts as the server answering after the process
started for it exited, what does not, and what holds the verdict (a call in flight)."""

from __future__ import annotations

import json

from agent_cli.mcp_servers.exit_probe import (
    ANSWER_SECONDS,
    PING_ID,
    ExitProbe,
    ProbeStatus,
    request_key,
)

HOLD = 90.0  # a call's timeout


def test_the_ping_is_an_mcp_ping_request_under_an_id_of_its_own():
    probe = ExitProbe(HOLD)
    line = probe.exited(now=100.0)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"jsonrpc": "2.0", "id": PING_ID, "method": "ping"}
    assert probe.status is ProbeStatus.ASKING
    assert probe.deadline == 100.0 + ANSWER_SECONDS


def test_the_pings_answer_shows_the_server_is_there_and_is_kept_from_the_session():
    probe = ExitProbe(HOLD)
    probe.exited(now=0.0)
    assert probe.take(PING_ID, now=1.0) is True
    assert probe.status is ProbeStatus.ANSWERED
    probe.settle(now=1_000.0)  # too late: an answer came
    assert probe.status is ProbeStatus.ANSWERED


def test_an_answer_to_a_request_written_before_the_exit_proves_nothing():
    """It may have been written just before the exit (still in the pipe after it)."""
    probe = ExitProbe(HOLD)
    probe.note_request(7, now=0.0)  # written while the process ran
    probe.exited(now=0.0)
    assert probe.take(7, now=1.0) is False
    assert probe.status is ProbeStatus.ASKING


def test_an_answer_to_a_request_written_after_the_exit_shows_the_server_is_there():
    probe = ExitProbe(HOLD)
    probe.exited(now=0.0)
    probe.note_request(8, now=1.0)
    assert probe.take(8, now=2.0) is False  # the session's own answer: it gets it
    assert probe.status is ProbeStatus.ANSWERED


def test_a_silent_server_stays_silent_and_the_pings_late_answer_is_still_kept_back():
    probe = ExitProbe(HOLD)
    assert probe.take(PING_ID, now=0.0) is True and probe.status is ProbeStatus.RUNNING
    probe.exited(now=0.0)
    probe.settle(now=ANSWER_SECONDS - 1)
    assert probe.status is ProbeStatus.ASKING
    probe.settle(now=ANSWER_SECONDS)
    assert probe.status is ProbeStatus.SILENT
    assert probe.unanswered_for == ANSWER_SECONDS
    assert probe.take(PING_ID, now=ANSWER_SECONDS + 1) is True
    assert probe.status is ProbeStatus.SILENT


def test_a_call_in_flight_holds_the_verdict_until_its_own_time_is_up():
    """Round 29: a server that handles one message at a time answers the ping only after
    the call it is busy with; the unanswered ping alone ended it mid-call."""
    probe = ExitProbe(HOLD)
    probe.note_request(3, now=0.0)  # the long call, written before the exit
    probe.exited(now=4.0)
    probe.settle(now=4.0 + ANSWER_SECONDS)
    assert probe.status is ProbeStatus.ASKING
    assert probe.is_overdue(now=4.0 + ANSWER_SECONDS)
    assert probe.wake_at(now=4.0 + ANSWER_SECONDS) == HOLD
    probe.settle(now=HOLD)  # the call's time is up, unanswered: its timeout decides
    assert probe.status is ProbeStatus.SILENT and probe.unanswered_for == HOLD - 4.0


def test_the_calls_answer_gives_the_ping_queued_behind_it_its_time_again():
    probe = ExitProbe(HOLD)
    probe.note_request(3, now=0.0)
    probe.exited(now=4.0)
    assert probe.take(3, now=30.0) is False  # no proof alone (it may predate the exit)
    probe.settle(now=30.0)
    assert probe.status is ProbeStatus.ASKING and probe.deadline == 30.0 + ANSWER_SECONDS
    assert probe.take(PING_ID, now=30.0) is True
    assert probe.status is ProbeStatus.ANSWERED


def test_a_notification_is_a_sign_of_life_but_no_proof():
    probe = ExitProbe(HOLD)
    probe.exited(now=0.0)
    assert probe.take(None, now=8.0) is False
    assert probe.status is ProbeStatus.ASKING and probe.deadline == 8.0 + ANSWER_SECONDS
    probe.settle(now=8.0 + ANSWER_SECONDS)
    assert probe.status is ProbeStatus.SILENT


def test_a_cancelled_request_holds_the_verdict_no_longer():
    probe = ExitProbe(HOLD)
    probe.note_request(5, now=0.0)
    probe.exited(now=0.0)
    probe.note_cancelled(5)
    probe.settle(now=ANSWER_SECONDS)
    assert probe.status is ProbeStatus.SILENT


def test_a_ping_that_cannot_be_written_finds_the_server_gone_at_once():
    """fix27g's case: what the server left running holds its stdout, nothing its stdin;
    a call in flight does not hold that verdict (nothing can read it)."""
    probe = ExitProbe(HOLD)
    probe.note_request(3, now=0.0)
    probe.exited(now=1.0)
    probe.note_unwritten()
    assert probe.status is ProbeStatus.SILENT and probe.unanswered_for is None
    assert not probe.is_overdue(now=2.0)


# Review of round 29 (`f_strid_leak.py`): a server may answer request 7 under "7", which
# the SDK takes as 7's answer; the probe kept 7 in flight for good (one entry a call),
# never counted "8" written after the exit as proof, and a dead server's answered calls
# held it "ready" up to their timeout.
STRING_IDS = ["7", "0", "-3", "+7", " 7 ", "007", "7.0", "1e3", "abc", PING_ID, ""]


def test_ids_are_compared_as_the_sdk_correlates_them():
    from mcp.shared.dispatcher import coerce_request_id

    for ident in [7, 0, -3, *STRING_IDS]:
        assert request_key(ident) == coerce_request_id(ident), ident
        assert type(request_key(ident)) is type(coerce_request_id(ident)), ident


def test_an_answer_under_the_string_of_its_id_ends_the_request_in_every_state():
    probe = ExitProbe(HOLD)
    for n in range(1_000):  # running: answered calls leave nothing behind
        probe.note_request(n, now=n / 100)
        assert probe.take(str(n), now=n / 100) is False
    assert probe.in_flight() == frozenset()
    probe.note_request(1_000, now=10.0)
    probe.note_cancelled("1000")
    assert probe.in_flight() == frozenset()


def test_a_request_whose_time_is_up_is_dropped_though_the_launcher_still_runs():
    """Unanswered and never cancelled: at most a timeout's worth stays in flight."""
    probe = ExitProbe(HOLD)
    for second in range(1_000):
        probe.note_request(second, now=float(second))
    assert probe.in_flight() == frozenset(range(1_000 - int(HOLD), 1_000))
    probe.settle(now=1_000.0 + HOLD)
    assert probe.in_flight() == frozenset()


def test_an_answer_under_the_string_of_an_id_written_after_the_exit_shows_the_server_is_there():
    probe = ExitProbe(HOLD)
    probe.exited(now=0.0)
    probe.note_request(8, now=1.0)
    assert probe.take("8", now=2.0) is False
    assert probe.status is ProbeStatus.ANSWERED


def test_calls_answered_under_string_ids_do_not_hold_a_dead_servers_verdict():
    """They were kept in flight, so the ping's silence was waited out to their timeout."""
    probe = ExitProbe(HOLD)
    for n in range(3):
        probe.note_request(n, now=float(n))
        probe.take(str(n), now=float(n))
    probe.exited(now=4.0)
    assert probe.wake_at(now=4.0) == 4.0 + ANSWER_SECONDS
    probe.settle(now=4.0 + ANSWER_SECONDS)
    assert probe.status is ProbeStatus.SILENT and probe.unanswered_for == ANSWER_SECONDS
