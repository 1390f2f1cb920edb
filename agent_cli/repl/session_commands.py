"""`/sessions`: listing saved sessions and deleting old ones.

Contract: like every handler in `commands`, it only calls the context (the REPL) and
prints what `session_views` builds; bad arguments raise `CommandUsageError` for the REPL
to show with the usage. The open session is never deleted: named alone it is a usage
error; named among others it is refused in the report and the others are still deleted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.errors import CommandUsageError
from agent_cli.repl.command_context import CommandContext
from agent_cli.repl.session_views import (
    build_deletion_report,
    build_sessions_view,
    select_sessions_older_than,
)
from agent_cli.repl.word_wrap import print_at_words

if TYPE_CHECKING:
    from agent_cli.session.catalog import SessionDeletion

MAX_DAYS_DIGITS = 5  # 99,999 days: further back than a date can go is no age at all


def run_sessions_command(context: CommandContext, args: str) -> None:
    """`/sessions`: list; `/sessions delete <id>...` or `delete --older-than <days>`."""
    words = args.split()
    if words and words[0] == "delete":
        _delete_sessions(context, words[1:])
        return
    if args:
        raise CommandUsageError("/sessions", "unexpected_argument")
    context.console.print(build_sessions_view(context.list_sessions(), context.session.session_id))


def _delete_sessions(context: CommandContext, words: list[str]) -> None:
    """`delete <id>...` or `delete --older-than <days>` (never the open session)."""
    if not words:
        raise CommandUsageError("/sessions", "missing_argument")
    if words[0] == "--older-than":
        days = words[1] if len(words) == 2 else ""
        if not (days.isascii() and days.isdigit() and len(days) <= MAX_DAYS_DIGITS):
            raise CommandUsageError("/sessions", "bad_days")
        ids = select_sessions_older_than(
            context.list_sessions(), int(days), context.session.session_id
        )
    else:
        ids = list(dict.fromkeys(words))
    open_id = context.session.session_id
    if ids == [open_id]:
        raise CommandUsageError("/sessions", "current_session")
    others = [session_id for session_id in ids if session_id != open_id]
    outcomes = context.delete_sessions(others) if others else []
    if len(others) < len(ids):
        outcomes.append(_refused_open_session(open_id))
    print_at_words(context.console, build_deletion_report(outcomes))


def _refused_open_session(open_id: str) -> SessionDeletion:
    """The outcome reported for the open session when it is named among others."""
    from agent_cli.session.catalog import FAILED, SessionDeletion

    return SessionDeletion(open_id, FAILED, CommandUsageError("/sessions", "current_session"))
