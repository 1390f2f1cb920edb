"""Whether a stdio MCP server still answers once the process agent-cli started for it
exited while its stdout stays open.

Why: that exit alone does not tell a gone server from a running one. A launcher may fork
the server and exit (a daemonizing wrapper, a script that forks), the server keeping the
same stdin and stdout and answering every request: session 27's rule (`process_exit`)
marked it failed at once, its tools gone. Or the server itself exited and a process it
left running holds its stdout (`bash -c "sleep 300 & exec server"`): nobody answers, and a
call would wait its whole timeout. The processes cannot tell the two apart; asking can.

Contract: `ExitProbe()` starts `RUNNING`. `exited(now, answer_seconds)` (the launched
process exited; its stdout has not ended) turns it `ASKING` until `deadline`
(`answer_seconds`, `ANSWER_SECONDS` unless given, after `now`, on the caller's clock) and returns the line to write to the server's stdin: MCP's `ping`
request, which a server must answer at any time, its handshake's start included, under
an id of agent-cli's own (`PING_ID`). While it asks, `note_request(ident)` records each
request the session writes. `take(ident)` is told the id of each answer read from the
server's stdout and returns whether it answers the ping (the session never sent that, so
it must not see it); the probe turns `ANSWERED` (for good) when the answer is to the
ping or to a recorded request: something read stdin and wrote stdout after the exit. An
answer to a request written before the exit proves nothing (it may have been written
just before it), so it is not counted. `unheard()` (the ping could not be written, or
`deadline` passed unanswered) turns an asking probe `SILENT` (for good). Pure: no I/O.
"""

from __future__ import annotations

import json
from enum import Enum

ANSWER_SECONDS = 10.0  # for the ping's answer: far under a call's timeout (60 s)
PING_ID = "agent-cli-launched-process-exited"  # the session's own ids are integers
_PING_LINE = (json.dumps({"jsonrpc": "2.0", "id": PING_ID, "method": "ping"}) + "\n").encode()


class ProbeStatus(Enum):
    """Where the probe stands (module contract)."""

    RUNNING = "running"  # the launched process runs
    ASKING = "asking"  # it exited; the ping is out, unanswered
    ANSWERED = "answered"  # the server answered after the exit: it lives on
    SILENT = "silent"  # no answer in time, or the ping could not be written


class ExitProbe:
    """See the module contract."""

    def __init__(self) -> None:
        self.status = ProbeStatus.RUNNING
        self.deadline = float("inf")
        self._asked: set[object] = set()  # ids of requests written since the exit

    def exited(self, now: float, answer_seconds: float = ANSWER_SECONDS) -> bytes:
        """The launched process exited: start asking; the ping's line to write."""
        if self.status is ProbeStatus.RUNNING:
            self.status = ProbeStatus.ASKING
            self.deadline = now + answer_seconds
        return _PING_LINE

    def note_request(self, ident: object) -> None:
        """The session writes request `ident` (only counted once the exit was seen)."""
        if self.status is ProbeStatus.ASKING:
            self._asked.add(ident)

    def take(self, ident: object) -> bool:
        """An answer of id `ident` was read: whether it is the ping's (not for the
        session); the probe turns `ANSWERED` when it proves the server lives on."""
        is_ping = ident == PING_ID
        if self.status is ProbeStatus.ASKING and (is_ping or ident in self._asked):
            self.status = ProbeStatus.ANSWERED
            self._asked.clear()
        return is_ping

    def unheard(self) -> None:
        """The ping could not be written, or its deadline passed unanswered."""
        if self.status is ProbeStatus.ASKING:
            self.status = ProbeStatus.SILENT
            self._asked.clear()
