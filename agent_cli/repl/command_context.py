"""What a command handler may use, and the argument checks every handler shares.

Contract: `CommandContext` is the REPL side a handler sees (the session and a few REPL
actions). The `require_*` checks raise `CommandUsageError` (name, code) for the REPL to
show with the usage; `say` prints one wrapped line. No handler logic lives here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from rich.console import Console
from rich.text import Text

from agent_cli.errors import CommandUsageError
from agent_cli.events import SessionEvent, ToolFinished
from agent_cli.repl.pointer_handles import PointerHandles
from agent_cli.repl.port import SessionPort
from agent_cli.repl.word_wrap import print_at_words

if TYPE_CHECKING:
    from agent_cli.session.catalog import SessionDeletion, SessionSummary


class CommandContext(Protocol):
    """What a handler may use: the current session and a few REPL actions."""

    session: SessionPort
    console: Console
    pointer_handles: PointerHandles  # the numbers shown after pointers (`/expand 3`)
    approvals_off_by: str | None  # "--yes" or config.toml's path when approvals are off

    def render_events(self, events: Iterator[SessionEvent]) -> None: ...
    def write_plain(self, text: str) -> None: ...
    def switch_session(self, resume: str | None) -> None: ...
    def list_sessions(self) -> list[SessionSummary]: ...
    def delete_sessions(self, session_ids: list[str]) -> list[SessionDeletion]: ...
    def last_tool_result(self) -> ToolFinished | None: ...
    def request_quit(self) -> None: ...
    def confirm(self, question: str) -> bool:
        """True when the person at the terminal answers yes to `question`; True at once
        when input is piped: nobody is there to ask, and the typed command was the
        instruction."""
        ...


def require_no_args(name: str, args: str) -> None:
    if args:
        raise CommandUsageError(name, "unexpected_argument")


def require_text(name: str, args: str) -> str:
    if not args:
        raise CommandUsageError(name, "missing_argument")
    return args


def require_one_id(name: str, args: str) -> str:
    parts = args.split()
    if not parts:
        raise CommandUsageError(name, "missing_argument")
    if len(parts) > 1:
        raise CommandUsageError(name, "one_id_expected")
    return parts[0]


def say(context: CommandContext, text: str, style: str = "green") -> None:
    """A command's own line, wrapped at words on a terminal (one line elsewhere)."""
    print_at_words(context.console, Text(text, style=style))
