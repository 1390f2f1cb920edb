"""What Tab offers after a command's name: the pointers on screen, the saved sessions.

Contract: an `ArgumentChoice` is one value the completer may put on the line (`value`),
the short number that stands for it (`number`: the `(/expand 3)` of a pointer, the `#`
of a session in `/sessions`) and a few words to show beside it (`label`). The builders
only turn what the REPL already holds into choices, newest first; they read nothing.
`COMPLETED_ARGUMENTS` names the commands whose argument is completed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_cli.repl.safe_text import clip_line

if TYPE_CHECKING:
    from agent_cli.repl.pointer_handles import PointerHandles
    from agent_cli.session.catalog import SessionSummary

COMPLETED_ARGUMENTS = frozenset({"/expand", "/resume"})


@dataclass(frozen=True)
class ArgumentChoice:
    value: str
    number: int
    label: str

    def is_meant_by(self, typed: str) -> bool:
        """True when what was typed so far starts the value, or is its number."""
        is_number = typed.isascii() and typed.isdigit()  # (not `²`: int() refuses it)
        return self.value.startswith(typed) or (is_number and int(typed) == self.number)


def build_pointer_choices(handles: PointerHandles) -> list[ArgumentChoice]:
    """Every numbered pointer, the newest number first."""
    return [
        ArgumentChoice(pointer, number, f"/expand {number}") for number, pointer in handles.recent()
    ]


def build_session_choices(listed: Sequence[SessionSummary], current: str) -> list[ArgumentChoice]:
    """The listed sessions but the open one, numbered as `/sessions` numbers them, each
    labelled with its number and first request."""
    return [
        ArgumentChoice(
            info.session_id,
            number,
            f"{number} · {clip_line(info.first_request or '(no request)', 40)}",
        )
        for number, info in enumerate(listed, start=1)
        if info.session_id != current
    ]
