"""Which saved session `/resume <what was typed>` (or `--resume`) means.

Contract: `choose_session(typed, listed)` takes the sessions as `/sessions` lists them
(newest first) and answers a session id: the session at that number of the list (`2`),
the session of exactly that id, or the only other session whose id starts with what was
typed; digits fewer than a year's (`SHORTEST_DIGIT_PREFIX`) are only a number of the list.
When several ids start with it, `SessionChoiceAmbiguous` names them; when none does, what
was typed comes back unchanged, so opening it says there is no such session (and an id
the list could not show is still tried).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_cli.errors import SessionChoiceAmbiguous

if TYPE_CHECKING:
    from agent_cli.session.catalog import SessionSummary

# Ids start with the year (`20261206-…`): fewer digits than that are a number of the list.
SHORTEST_DIGIT_PREFIX = 4


def choose_session(
    typed: str,
    listed: Sequence[SessionSummary],
    current: str = "",
    asked_by: str = "/resume",
    numbers: bool = True,
) -> str:
    """The session id `typed` stands for; see the module contract. The open session
    (`current`) is meant only by its number or whole id: a start of an id never picks
    it, and never makes another choice ambiguous. `asked_by` names what was typed
    (`/resume`, `--resume`) in `SessionChoiceAmbiguous`; without `numbers`, digits are
    only the start of an id."""
    ids = [info.session_id for info in listed]
    if numbers and typed.isascii() and typed.isdigit():
        if 1 <= int(typed) <= len(ids):
            return ids[int(typed) - 1]
        if len(typed) < SHORTEST_DIGIT_PREFIX:
            return typed  # a number past the list, never the start of an id (`2` of `2026…`)
    if typed in ids:
        return typed
    starting = tuple(
        session_id for session_id in ids if session_id.startswith(typed) and session_id != current
    )
    if len(starting) > 1:
        raise SessionChoiceAmbiguous(typed, starting, asked_by)
    return starting[0] if starting else typed
