"""Whether a stdio MCP server still answers once the process agent-cli started for it
exited while its stdout stays open.

Why: that exit alone does not tell a gone server from a running one. A launcher may fork
the server and exit (a daemonizing wrapper, a script that forks), the server keeping the
same stdin and stdout and answering every request: session 27's rule (`process_exit`)
marked it failed at once, its tools gone. Or the server itself exited and a process it
left running holds its stdout (`bash -c "sleep 300 & exec server"`): nobody answers, and a
call would wait its whole timeout. The processes cannot tell the two apart; asking can.
But a server busy with a call may not answer before the call is done (many handle one
message at a time): while a call is in flight, the call decides, not the ping.

Contract: `ExitProbe(hold_seconds)` starts `RUNNING`. Every request the session writes is
noted (`note_request(ident, now)`) and is in flight (`in_flight()`: their ids) until its
answer is read, it is cancelled (`note_cancelled`), or `hold_seconds` (the server's call
`timeout`) passed since it was written, whatever the status: none is kept longer. Ids
are compared as the MCP SDK correlates them (`request_key`): a server may answer request
7 under `"7"`, which the SDK takes as the answer to 7 (`coerce_request_id` in
`mcp.shared.dispatcher`), and so does the probe. `exited(now, answer_seconds)` (the
launched process exited; its stdout has not ended) turns it `ASKING` until `deadline`
(`answer_seconds`, `ANSWER_SECONDS` unless given, after `now`, on the caller's clock) and
returns the line to write to the server's stdin: MCP's `ping` request, which a server
must answer at any time, its handshake's start included, under an id of agent-cli's own
(`PING_ID`). `take(ident, now)` is told of each message read from the server's stdout
(`ident`: the id it answers, None for one that answers nothing) and returns whether it
answers the ping (the session never sent that, so it must not see it); the probe turns
`ANSWERED` (for good) when the answer is to the ping or to a request in flight that was
written since the exit: something read stdin and wrote stdout after the exit. Any other
message (an answer to a request written before the exit, which may have been written
just before it; a notification) proves nothing alone but is a sign of life: the ping
gets `answer_seconds` more from then. `settle(now)` turns an asking probe `SILENT` (for
good, `unanswered_for` the seconds it asked) once its deadline passed and no request is
in flight: a call in flight, within its own time, is waited for (its answer, or its
timeout, decides). `wake_at(now)` is when `settle` may next change that.
`note_unwritten()` (the ping could not be written: nothing reads the server's stdin)
turns it `SILENT` at once, `unanswered_for` None. Pure: no I/O.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import NamedTuple

ANSWER_SECONDS = 10.0  # for the ping's answer: far under a call's timeout (60 s)
PING_ID = "agent-cli-launched-process-exited"  # the session's own ids are integers
_PING_LINE = (json.dumps({"jsonrpc": "2.0", "id": PING_ID, "method": "ping"}) + "\n").encode()


def request_key(ident: object) -> object:
    """`ident` as the MCP SDK correlates a request's id: a string that `int()` reads is
    that integer (`"7"` and 7 are one id); anything else is itself."""
    if isinstance(ident, str):
        try:
            return int(ident)
        except ValueError:
            pass
    return ident


class ProbeStatus(Enum):
    """Where the probe stands (module contract)."""

    RUNNING = "running"  # the launched process runs
    ASKING = "asking"  # it exited; the ping is out, unanswered
    ANSWERED = "answered"  # the server answered after the exit: it lives on
    SILENT = "silent"  # no answer in time, or the ping could not be written


class _Flight(NamedTuple):
    """A request in flight: until when it is waited for, and whether it was written
    after the launched process exited (then its answer shows the server is there)."""

    until: float
    since_exit: bool


class ExitProbe:
    """See the module contract."""

    def __init__(self, hold_seconds: float) -> None:
        self.status = ProbeStatus.RUNNING
        self.deadline = float("inf")
        self.unanswered_for: float | None = None  # once SILENT for want of an answer
        self._hold_seconds = hold_seconds
        self._answer_seconds = ANSWER_SECONDS
        self._asked_at = 0.0
        self._in_flight: dict[object, _Flight] = {}  # by `request_key`

    def exited(self, now: float, answer_seconds: float = ANSWER_SECONDS) -> bytes:
        """The launched process exited: start asking; the ping's line to write."""
        if self.status is ProbeStatus.RUNNING:
            self.status = ProbeStatus.ASKING
            self.deadline = now + answer_seconds
            self._answer_seconds = answer_seconds
            self._asked_at = now
        return _PING_LINE

    def in_flight(self) -> frozenset[object]:
        """The ids (`request_key`) of the requests in flight: answered, cancelled and
        timed-out ones (by the last `now` it was told) are gone."""
        return frozenset(self._in_flight)

    def note_request(self, ident: object, now: float) -> None:
        """The session writes request `ident`: in flight from `now` (module contract)."""
        self._drop_past(now)
        since_exit = self.status is ProbeStatus.ASKING
        self._in_flight[request_key(ident)] = _Flight(now + self._hold_seconds, since_exit)

    def note_cancelled(self, ident: object) -> None:
        """The session cancelled request `ident`: its answer is waited for no longer."""
        self._in_flight.pop(request_key(ident), None)

    def take(self, ident: object, now: float) -> bool:
        """A message answering `ident` (None: answering nothing) was read: whether it
        answers the ping (not for the session); see the module contract for the rest."""
        is_ping = ident == PING_ID
        flight = self._in_flight.pop(request_key(ident), None) if ident is not None else None
        self._drop_past(now)
        if self.status is not ProbeStatus.ASKING:
            return is_ping
        if is_ping or (flight is not None and flight.since_exit):
            self.status = ProbeStatus.ANSWERED
        else:  # a sign of life: the ping may be queued behind what it just answered
            self.deadline = max(self.deadline, now + self._answer_seconds)
        return is_ping

    def settle(self, now: float) -> None:
        """Drop the requests whose time is up; turn `SILENT` when the ping went
        unanswered past its deadline and no request in flight is still within its time."""
        self._drop_past(now)
        if self.status is not ProbeStatus.ASKING or now < self.deadline:
            return
        if not self._in_flight:
            self.status = ProbeStatus.SILENT
            self.unanswered_for = now - self._asked_at

    def wake_at(self, now: float) -> float:
        """When `settle` may next find the server silent, answers aside (inf: never)."""
        if self.status is not ProbeStatus.ASKING:
            return float("inf")
        holds = [flight.until for flight in self._in_flight.values() if flight.until > now]
        return max([self.deadline, *holds])

    def is_overdue(self, now: float) -> bool:
        """Whether the ping went unanswered past its deadline (held only by a call in
        flight, or found silent for it)."""
        if self.status is ProbeStatus.ASKING:
            return now >= self.deadline
        return self.unanswered_for is not None

    def note_unwritten(self) -> None:
        """The ping could not be written: nothing reads the server's stdin."""
        if self.status is ProbeStatus.ASKING:
            self.status = ProbeStatus.SILENT

    def _drop_past(self, now: float) -> None:
        """Forget the requests whose `hold_seconds` passed: their answers decide nothing."""
        if any(flight.until <= now for flight in self._in_flight.values()):
            self._in_flight = {k: f for k, f in self._in_flight.items() if f.until > now}
