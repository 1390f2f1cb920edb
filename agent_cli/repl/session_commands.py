"""`/sessions`: listing saved sessions and deleting old ones.

Contract: like every handler in `commands`, it only calls the context (the REPL) and
prints what `session_views` builds; bad arguments raise `CommandUsageError` for the REPL
to show with the usage. The open session is never deleted: named alone it is a usage
error; named among others it is refused in the report and the others are still deleted.
`--older-than` takes this folder's sessions (every folder's with `--all-folders`), and at
a terminal deletes them only once the person says yes to the list's size. When durable
facts or pending items cite a session about to go as their source (they would then show
as missing in every request), a question names them first (piped, nobody is asked and
the typed command stays the instruction), and the report says so again.
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
    cited = _items_citing(context, others)
    if cited and not context.confirm(f"{_citing_words(cited)}; delete anyway? [y/N] "):
        say(context, "nothing deleted", "yellow")
        return
    outcomes = context.delete_sessions(others) if others else []
    if len(others) < len(ids):
        outcomes.append(_refused_open_session(open_id))
    print_at_words(context.console, build_deletion_report(outcomes))
    _say_what_cited_them(context, cited)


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
        cited = _items_citing(context, aged.ids)
        question = (
            (f"{_citing_words(cited)}. " if cited else "")
            + f"delete {count_noun(len(aged.ids), 'session')} {where} last changed over "
            f"{count_noun(int(days), 'day')} ago, transcripts and artifacts? [y/N] "
        )
        if not context.confirm(question):
            say(context, "nothing deleted", "yellow")
            return
        print_at_words(context.console, build_deletion_report(context.delete_sessions(aged.ids)))
        _say_what_cited_them(context, cited)
    else:
        print_at_words(context.console, build_deletion_report([]))
    if aged.left_elsewhere:
        say(context, describe_left_elsewhere(aged.left_elsewhere), "dim")


def _items_citing(context: CommandContext, session_ids: list[str]) -> list[str]:
    """The ids of the durable facts and pending items whose source lies in one of
    `session_ids`."""
    from agent_cli.errors import SourcePointerError
    from agent_cli.sources.pointers import parse_source_pointer

    going, state, cited = set(session_ids), context.session.durable_state, []
    sources = [(fact.fact_id, fact.source_pointer) for fact in state.facts]
    sources += [(item.item_id, item.source_pointer) for item in state.pending_items]
    for item_id, pointer in sources:
        try:
            if parse_source_pointer(pointer).session_id in going:
                cited.append(item_id)
        except SourcePointerError:
            continue
    return cited


def _say_what_cited_them(context: CommandContext, cited: list[str]) -> None:
    if cited:
        say(context, f"{_named(cited)}: source deleted, shown as missing until /forget", "yellow")


def _citing_words(cited: list[str]) -> str:
    """The warning before deleting the sources of the durable items `cited`."""
    return (
        f"{_named(cited)} cite{'s' if len(cited) == 1 else ''} these sessions as source: "
        "deleted, they show as missing in every request (/forget <id> drops one)"
    )


def _named(cited: list[str]) -> str:
    more = f" and {len(cited) - 5} more" if len(cited) > 5 else ""
    return f"durable {', '.join(cited[:5])}{more}"


def _refused_open_session(open_id: str) -> SessionDeletion:
    """The outcome reported for the open session when it is named among others."""
    from agent_cli.session.catalog import FAILED, SessionDeletion

    return SessionDeletion(open_id, FAILED, CommandUsageError("/sessions", "current_session"))
