"""`/sessions`: listing saved sessions and deleting old ones.

Contract: like every handler in `commands`, it only calls the context (the REPL) and
prints what `session_views` builds; bad arguments raise `CommandUsageError` for the REPL
to show with the usage. The open session is never deleted: named alone it is a usage
error; named among others it is refused in the report and the others are still deleted.
`--older-than` takes this folder's sessions (every folder's with `--all-folders`), and at
a terminal deletes them only once the person says yes to the list's size.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.errors import CommandUsageError
from agent_cli.repl.command_context import CommandContext, say
from agent_cli.repl.session_views import (
    build_deletion_report,
    build_sessions_view,
    describe_left_elsewhere,
    select_sessions_older_than,
)
from agent_cli.repl.word_wrap import print_at_words
from agent_cli.tools.output import count_noun

if TYPE_CHECKING:
    from agent_cli.session.catalog import SessionDeletion

MAX_DAYS_DIGITS = 5  # 99,999 days: further back than a date can go is no age at all


def run_sessions_command(context: CommandContext, args: str) -> None:
    """`/sessions`: list; `/sessions delete <id>...` or `delete --older-than <days>
    [--all-folders]`."""
    words = args.split()
    if words and words[0] == "delete":
        _delete_sessions(context, words[1:])
        return
    if args:
        raise CommandUsageError("/sessions", "unexpected_argument")
    context.console.print(build_sessions_view(context.list_sessions(), context.session.session_id))


def _delete_sessions(context: CommandContext, words: list[str]) -> None:
    """`delete <id>...` or `delete --older-than <days> [--all-folders]` (never the open
    session)."""
    if not words:
        raise CommandUsageError("/sessions", "missing_argument")
    if "--older-than" in words or "--all-folders" in words:
        _delete_aged_sessions(context, words)
        return
    _delete_listed(context, list(dict.fromkeys(words)))


def _delete_listed(context: CommandContext, ids: list[str]) -> None:
    open_id = context.session.session_id
    if ids == [open_id]:
        raise CommandUsageError("/sessions", "current_session")
    others = [session_id for session_id in ids if session_id != open_id]
    outcomes = context.delete_sessions(others) if others else []
    if len(others) < len(ids):
        outcomes.append(_refused_open_session(open_id))
    print_at_words(context.console, build_deletion_report(outcomes))


def _delete_aged_sessions(context: CommandContext, words: list[str]) -> None:
    """`--older-than <days>`, with `--all-folders` before or after it."""
    every_folder = "--all-folders" in words
    rest = [word for word in words if word != "--all-folders"]
    days = rest[1] if len(rest) == 2 and rest[0] == "--older-than" else ""
    if not (days.isascii() and days.isdigit() and len(days) <= MAX_DAYS_DIGITS):
        raise CommandUsageError("/sessions", "bad_days")
    here = None if every_folder else str(Path(context.session.workspace).resolve())
    aged = select_sessions_older_than(
        context.list_sessions(), int(days), context.session.session_id, here
    )
    if aged.ids:
        where = "of every folder" if every_folder else "of this folder"
        question = (
            f"delete {count_noun(len(aged.ids), 'session')} {where} last changed over "
            f"{count_noun(int(days), 'day')} ago, transcripts and artifacts? [y/N] "
        )
        if not context.confirm(question):
            say(context, "nothing deleted", "yellow")
            return
        print_at_words(context.console, build_deletion_report(context.delete_sessions(aged.ids)))
    else:
        print_at_words(context.console, build_deletion_report([]))
    if aged.left_elsewhere:
        say(context, describe_left_elsewhere(aged.left_elsewhere), "dim")


def _refused_open_session(open_id: str) -> SessionDeletion:
    """The outcome reported for the open session when it is named among others."""
    from agent_cli.session.catalog import FAILED, SessionDeletion

    return SessionDeletion(open_id, FAILED, CommandUsageError("/sessions", "current_session"))
