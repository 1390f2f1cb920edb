"""What `/sessions`, `/resume` and the session listing at start-up show.

Contract: like `views`, each function turns values into a renderable or a line and does
nothing else; outside text (requests, answers, ids, paths) is clipped or sanitized and
shown only as `Text`. Session summaries come from `session.catalog`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from agent_cli.repl.safe_text import clip_line, clip_path, sanitize_block
from agent_cli.tools.output import count_noun

if TYPE_CHECKING:
    from agent_cli.session.catalog import Call, Exchange, SessionDeletion, SessionSummary


def build_sessions_view(
    sessions: Sequence[SessionSummary],
    current: str | None,
    numbers: Sequence[int] | None = None,
) -> SessionList | Text:
    """Sessions on disk, newest first as given, numbered from 1 (`/resume 2` and
    `--resume 2` take the number, shown after the id), or by `numbers` (one a session: a
    part of the list shown with the numbers the whole list gives them); the open one is
    marked with `*`. Each shows its first request (its title), turns answered / asked and
    the tokens used: as a table where the first request gets `MIN_TITLE_WIDTH` cells, else
    two lines a session (`SessionList`)."""
    if not sessions:
        return Text("no sessions yet", style="dim")
    return SessionList(sessions, current, numbers)


MIN_TITLE_WIDTH = 24  # narrower than this, the first request goes under its session
MIN_WORKSPACE_WIDTH = 16
COLUMN_GAP = 2
DETAIL_INDENT = 4


class SessionList:
    """The listing fitted to the width it gets: every column of a session on one row
    when the first request keeps `MIN_TITLE_WIDTH` cells; otherwise each session on two
    lines, its id, number and time, then its turns, tokens and first request indented
    under it. Ids and numbers are never cut (/resume takes them)."""

    def __init__(
        self,
        sessions: Sequence[SessionSummary],
        current: str | None,
        numbers: Sequence[int] | None = None,
    ) -> None:
        self.sessions = sessions
        self.current = current
        self.numbers = list(numbers) if numbers is not None else None
        self.several_workspaces = len({info.workspace for info in sessions}) > 1

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        numbered = self._numbered()
        if options.max_width >= self._table_width():
            yield build_sessions_table(numbered, self.current, self.several_workspaces)
        else:
            yield build_sessions_stacked(numbered, self.current, self.several_workspaces)

    def _table_width(self) -> int:
        """The cells the table needs with the first request at its smallest readable."""
        rows = [_fixed_cells(number, info, self.current) for number, info in self._numbered()]
        widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
        widths = [max(width, len(title)) for width, title in zip(widths, FIXED_TITLES, strict=True)]
        title = MIN_TITLE_WIDTH + (
            MIN_WORKSPACE_WIDTH + COLUMN_GAP if self.several_workspaces else 0
        )
        return sum(widths) + COLUMN_GAP * len(widths) + title  # a gap before the title

    def _numbered(self) -> list[tuple[int, SessionSummary]]:
        if self.numbers is not None:
            return list(zip(self.numbers, self.sessions, strict=True))
        return list(enumerate(self.sessions, start=1))


FIXED_TITLES = ("", "session", "#", "last change", "turns", "tokens")


def _fixed_cells(number: int, info: SessionSummary, current: str | None) -> tuple[str, ...]:
    """The cells of one row that are never wrapped, in `FIXED_TITLES` order."""
    return (
        "*" if info.session_id == current else "",
        clip_line(info.session_id, 80),
        str(number),
        _format_when(info.modified_at),
        _describe_turns(info),
        _describe_tokens(info),
    )


def build_sessions_table(
    sessions: Sequence[tuple[int, SessionSummary]], current: str | None, several_workspaces: bool
) -> Table:
    """One row a session; the workspace only when the list spans several (it is long,
    and often the same)."""
    table = Table(box=None, padding=(0, COLUMN_GAP // 2), pad_edge=False, show_edge=False)
    for title in FIXED_TITLES:  # ids, times and counts stay whole on one line
        table.add_column(title, no_wrap=True, justify="right" if title == "#" else "left")
    table.add_column("first request", overflow="fold", max_width=40)
    if several_workspaces:
        table.add_column("workspace", overflow="fold")
    for number, info in sessions:
        mark, session_id, shown_number, when, turns, tokens = _fixed_cells(number, info, current)
        workspace = [Text(clip_path(str(info.workspace or "?"), 100), style="dim")]
        table.add_row(
            Text(mark),
            Text(session_id),
            Text(shown_number, style="dim"),
            Text(when),
            Text(turns),
            Text(tokens),
            _describe_title(info),
            *(workspace if several_workspaces else []),
        )
    return table


def build_sessions_stacked(
    sessions: Sequence[tuple[int, SessionSummary]], current: str | None, several_workspaces: bool
) -> Group:
    """Two lines a session, for a narrow screen: `* <id>  <#>  <time>`, then indented
    `<turns> turns · <tokens> tokens · <first request>` (and its workspace)."""
    parts: list[RenderableType] = []
    for number, info in sessions:
        mark, session_id, shown_number, when, turns, tokens = _fixed_cells(number, info, current)
        parts.append(
            Text.assemble(f"{mark or ' '} ", session_id, (f"  {shown_number}", "dim"), f"  {when}")
        )
        detail = Text(f"{turns} turns · {tokens} tokens · ")
        detail.append_text(_describe_title(info))
        if several_workspaces:
            detail.append(f" · {clip_path(str(info.workspace or '?'), 100)}", style="dim")
        parts.append(Padding(detail, (0, 0, 0, DETAIL_INDENT)))
    return Group(*parts)


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
    """The last few exchanges of a resumed session: each request as it was typed, its
    tool calls by what became of them (`describe_calls`: one denied or never started is
    not said to be used) and the start of the answer."""
    if not exchanges:
        return Text("(no earlier exchange in view)", style="dim")
    parts: list[RenderableType] = [Text("── where you left off ──", style="dim")]
    for exchange in exchanges:
        # not the prompt's mark: an earlier request must not look like a live prompt
        parts.append(Text.assemble(("you: ", "bold"), clip_line(exchange.request, 300)))
        if exchange.calls:
            parts.append(Text(f"  {clip_line(describe_calls(exchange.calls), 300)}", style="dim"))
        lines = sanitize_block(exchange.answer).strip().splitlines() or ["(no answer)"]
        shown = lines[:REPLAY_ANSWER_LINES]
        if len(lines) > REPLAY_ANSWER_LINES:
            shown.append(f"… +{count_noun(len(lines) - REPLAY_ANSWER_LINES, 'line')}")
        parts.extend(Text("  " + clip_line(line, 300)) for line in shown)
    parts.append(Text("──", style="dim"))
    return Group(*parts)


# How the recap words the calls of each outcome, in this order (one entry for each of
# `session.call_outcome.OUTCOMES`; a test holds them in step).
_CALL_WORDS = {
    "ran": "used {names}",
    "stopped": "{names} stopped before finishing",
    "unknown": "{names} may have run (no result recorded)",
    "denied": "denied {names}",
    "asked": "asked {names}, not run",
    "not_run": "{names} not run",
    "refused": "{names} refused (nothing written)",
}


def describe_calls(calls: Sequence[Call]) -> str:
    """The tool calls of an exchange as the recap says them, grouped by what became of
    them: `used bash; denied write_file`, `asked write_file, not run; bash not run`,
    `write_file refused (nothing written)`. Only calls that ran are said to be used."""
    said = []
    for outcome, words in _CALL_WORDS.items():
        names = [call.name for call in calls if call.outcome == outcome]
        if names:
            said.append(words.format(names=", ".join(names)))
    return "; ".join(said)


class AgedSessions(NamedTuple):
    """What `delete --older-than` picks: the ids it deletes and how many sessions of other
    folders it leaves, though older (0 when every folder was asked for)."""

    ids: list[str]
    left_elsewhere: int


def select_sessions_older_than(
    sessions: Sequence[SessionSummary], days: int, current: str, workspace: str | None
) -> AgedSessions:
    """The listed sessions last changed more than `days` days ago, never `current`: those
    of `workspace` (a resolved folder), or of every folder when it is None."""
    from datetime import UTC, timedelta

    cutoff = datetime.now(UTC) - timedelta(days=days)
    aged = [i for i in sessions if i.session_id != current and i.modified_at < cutoff]
    picked = [i.session_id for i in aged if workspace is None or i.workspace == workspace]
    return AgedSessions(picked, len(aged) - len(picked))


def describe_left_elsewhere(count: int) -> str:
    """The line for older sessions of other folders that `--older-than` left."""
    return (
        f"left {count_noun(count, 'older session')} of other folders; "
        "add --all-folders to delete those too"
    )


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
