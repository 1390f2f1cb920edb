"""What `/sessions`, `/resume` and the session listing at start-up show.

Contract: like `views`, each function turns values into a renderable or a line and does
nothing else; outside text (requests, answers, ids, paths) is clipped or sanitized and
shown only as `Text`. Session summaries come from `session.catalog`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agent_cli.repl.safe_text import clip_line, sanitize_block
from agent_cli.tools.output import count_noun

if TYPE_CHECKING:
    from agent_cli.session.catalog import Exchange, SessionDeletion, SessionSummary


def build_sessions_view(sessions: Sequence[SessionSummary], current: str | None) -> Table | Text:
    """Sessions on disk, newest first as given, numbered from 1 (`/resume 2` takes the
    number, shown after the id); the open one is marked with `*`. Each shows its first request (its title),
    turns answered / asked and the tokens used."""
    if not sessions:
        return Text("no sessions yet", style="dim")
    table = Table(box=None, padding=(0, 2), show_edge=False)
    # ids, times and counts stay whole on one line (an id is copied into /resume);
    # the request and the workspace take what width is left
    # the open session's mark, the id and its number keep their width on a narrow
    # screen: /resume takes the id or the number
    table.add_column("", no_wrap=True, min_width=1)
    widest_id = max(len(clip_line(info.session_id, 80)) for info in sessions)
    table.add_column("session", no_wrap=True, min_width=widest_id)
    table.add_column("#", no_wrap=True, min_width=len(str(len(sessions))), justify="right")
    for column in ("last change", "turns", "tokens"):
        table.add_column(column, no_wrap=True)
    table.add_column("first request", overflow="fold", max_width=40)
    # the workspace only when the list spans several (it is long, and often the same)
    several = len({info.workspace for info in sessions}) > 1
    if several:
        table.add_column("workspace", overflow="fold")
    for number, info in enumerate(sessions, start=1):
        workspace = [Text(clip_line(str(info.workspace or "?"), 100), style="dim")]
        table.add_row(
            Text("*" if info.session_id == current else ""),
            Text(clip_line(info.session_id, 80)),
            Text(str(number), style="dim"),
            Text(_format_when(info.modified_at)),
            Text(_describe_turns(info)),
            Text(_describe_tokens(info)),
            _describe_title(info),
            *(workspace if several else []),
        )
    return table


def _describe_turns(info: SessionSummary) -> str:
    return f"{info.answered_turns}/{info.turns}"


def _describe_tokens(info: SessionSummary) -> str:
    return f"{info.tokens:,}"


def _describe_title(info: SessionSummary) -> Text:
    if not info.readable:
        return Text("(transcript unreadable)", style="red")
    title = info.first_request
    return Text(clip_line(title, 60)) if title else Text("(no request)", style="dim")


REPLAY_ANSWER_LINES = 6


def build_exchanges_view(exchanges: Sequence[Exchange]) -> Group | Text:
    """The last few exchanges of a resumed session: each request as it was typed, the
    tools used and the start of the answer."""
    if not exchanges:
        return Text("(no earlier exchange in view)", style="dim")
    parts: list[RenderableType] = [Text("── where you left off ──", style="dim")]
    for exchange in exchanges:
        # not the prompt's mark: an earlier request must not look like a live prompt
        parts.append(Text.assemble(("you: ", "bold"), clip_line(exchange.request, 300)))
        if exchange.tools:
            parts.append(Text(f"  used {clip_line(', '.join(exchange.tools), 200)}", style="dim"))
        lines = sanitize_block(exchange.answer).strip().splitlines() or ["(no answer)"]
        shown = lines[:REPLAY_ANSWER_LINES]
        if len(lines) > REPLAY_ANSWER_LINES:
            shown.append(f"… +{count_noun(len(lines) - REPLAY_ANSWER_LINES, 'line')}")
        parts.extend(Text("  " + clip_line(line, 300)) for line in shown)
    parts.append(Text("──", style="dim"))
    return Group(*parts)


def select_sessions_older_than(
    sessions: Sequence[SessionSummary], days: int, current: str
) -> list[str]:
    """Ids of the listed sessions last changed more than `days` days ago (never `current`)."""
    from datetime import UTC, timedelta

    cutoff = datetime.now(UTC) - timedelta(days=days)
    return [
        info.session_id
        for info in sessions
        if info.session_id != current and info.modified_at < cutoff
    ]


def describe_deleted_sessions(deleted: Sequence[str]) -> str:
    """One line naming the sessions deleted whole (at most five by id, then a count)."""
    if not deleted:
        return "no session to delete"
    word = "session" if len(deleted) == 1 else "sessions"
    return f"deleted {len(deleted)} {word} (transcript and artifacts): {_some_ids(deleted)}"


def build_deletion_report(outcomes: Sequence[SessionDeletion]) -> Text:
    """What `/sessions delete` did with every id it was given (`SessionDeletion` values):
    one green line for those deleted, one for those not found, and one line per id that
    failed or was half deleted, with the reason, so nothing half-done goes unsaid."""
    from agent_cli.session.catalog import (
        ARTIFACTS_LEFT,
        DELETED,
        FAILED,
        NOT_A_SESSION,
        NOT_FOUND,
    )

    ids_by_outcome: dict[str, list[str]] = {}
    for outcome in outcomes:
        ids_by_outcome.setdefault(outcome.outcome, []).append(outcome.session_id)
    lines: list[Text] = []
    if DELETED in ids_by_outcome or not outcomes:
        deleted = ids_by_outcome.get(DELETED, [])
        lines.append(Text(describe_deleted_sessions(deleted), style="green"))
    if NOT_FOUND in ids_by_outcome:
        lines.append(Text(f"no such session: {_some_ids(ids_by_outcome[NOT_FOUND])}", "yellow"))
    if NOT_A_SESSION in ids_by_outcome:
        lines.append(Text(_not_session_ids(ids_by_outcome[NOT_A_SESSION]), "yellow"))
    for outcome in outcomes:
        shown = clip_line(outcome.session_id, 80)
        if outcome.outcome == FAILED:
            what = f"not deleted: {shown}"
        elif outcome.outcome == ARTIFACTS_LEFT:
            what = f"transcript deleted, artifacts left: {shown}"
        else:
            continue
        lines.append(Text(f"{what}: {_reason(outcome.problem)}", style="red"))
    return Text("\n").join(lines)


def _not_session_ids(ids: Sequence[str]) -> str:
    return (
        f"not session ids, nothing deleted for them: {_some_ids(ids)} (ids look like "
        "20261203-091436-68f9c2 and never name agent-cli's own folders; /sessions lists them)"
    )


def _some_ids(ids: Sequence[str]) -> str:
    names = ", ".join(clip_line(session_id, 80) for session_id in ids[:5])
    return names + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def _reason(problem: BaseException | None) -> str:
    """The error in a few plain words: the OS's own for a file error; for a session open
    elsewhere, the fact without the advice to open a new one (nothing is being opened)."""
    if isinstance(problem, OSError) and problem.strerror:
        return clip_line(problem.strerror.lower(), 80)
    from agent_cli.errors import CommandUsageError
    from agent_cli.repl.error_text import (
        describe_error,
        describe_session_fact,
        describe_usage_reason,
    )

    if problem is None:
        return "unknown reason"
    if isinstance(problem, CommandUsageError):  # refused here, e.g. the open session
        return describe_usage_reason(problem.reason)
    return describe_session_fact(problem) or describe_error(problem)


def _format_when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")
