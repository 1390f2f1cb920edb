"""`/sessions`: listing saved sessions and deleting old ones.

Contract: like every handler in `commands`, it only calls the context (the REPL) and
prints what `session_views` builds; bad arguments raise `CommandUsageError` for the REPL
to show with the usage. The open session is never deleted.
"""

from __future__ import annotations

from agent_cli.errors import CommandUsageError
from agent_cli.repl.command_context import CommandContext
from agent_cli.repl.session_views import (
    build_deletion_report,
    build_sessions_view,
    select_sessions_older_than,
)
from agent_cli.repl.word_wrap import print_at_words

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
    if context.session.session_id in ids:
        raise CommandUsageError("/sessions", "current_session")
    outcomes = context.delete_sessions(ids) if ids else []
    print_at_words(context.console, build_deletion_report(outcomes))
