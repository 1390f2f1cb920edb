"""The credentials of the workspace's dotenv files, and what the session says about them.

Contract: `load_dotenv_secrets(workspace, environment)` reads the workspace's dotenv
files (`tools.workspace_secrets`) through the `DotenvWatch` it starts (its first check is
the read at start; the session keeps it to see the files change, `tools.dotenv_watch`)
and returns their secret values, longest first, the start-up notices and the watch. The
notices are warnings: `credentials_not_hidden`, the credentials of the environment and of
the files left visible (too short, one ordinary word, or a dotenv value too long), each
group of names under its reason's field (the toolbox reads the environment's secrets
itself); and `dotenv_not_read`, the dotenv files not read or read only in part, and the
folders not looked in, with the bounds that left them out. Fields hold names, reason
codes and sizes; the REPL words them. `environment` None is this process's.

`dotenv_change_notices(change, hidden)` is what the session says when a check finds
files changed mid-session: `dotenv_learned` (info) naming the files that hold the values
`hidden` (those now redacted that were not before) and their variables' names, never a
value; then the same two warnings for those files, with `during` "session".
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from agent_cli.events import Notice
from agent_cli.tools.dotenv_syntax import Assignment
from agent_cli.tools.dotenv_watch import DotenvChange, DotenvWatch
from agent_cli.tools.redaction import SECRET_NAMES_VARIABLE, FoundSecrets, find_secrets
from agent_cli.tools.workspace_secrets import (
    CUT,
    DOTENV_FOLDERS_READ,
    LONG,
    MANY,
    MAX_DOTENV_BYTES,
    MAX_FILE_SECRET_CHARS,
    MAX_HIDDEN_CHARS,
    WorkspaceDotenv,
)


def load_dotenv_secrets(
    workspace: Path, environment: Mapping[str, str] | None
) -> tuple[tuple[str, ...], tuple[Notice, ...], DotenvWatch]:
    """The dotenv files' secret values, the notices about them and the watch that read
    them (module contract)."""
    environment = os.environ if environment is None else environment
    watch = DotenvWatch(workspace, environment.get(SECRET_NAMES_VARIABLE, ""))
    change = watch.check()
    dotenv = WorkspaceDotenv(()) if change is None else change.dotenv
    found = FoundSecrets((), ()) if change is None else change.found
    unhidden = [*find_secrets(environment).unhidden, *found.unhidden]
    return found.values, _warnings(unhidden, dotenv, {}), watch


def dotenv_change_notices(change: DotenvChange, hidden: Sequence[str]) -> tuple[Notice, ...]:
    """What to say of dotenv files that changed mid-session (module contract)."""
    notices = []
    if hidden:
        newly = set(hidden)
        holding = [f for f in change.dotenv.files if _holds(f.assignments, newly)]
        names = {a.name for f in holding for a in f.assignments if _holds((a,), newly)}
        fields = {
            "files": ", ".join(f.path for f in holding),
            "names": ", ".join(sorted(names)),
            "count": len(newly),
        }
        notices.append(Notice("info", "dotenv_learned", fields))
    found = change.found.unhidden
    return (*notices, *_warnings(found, change.dotenv, {"during": "session"}))


def _holds(assignments: Iterable[Assignment], values: set[str]) -> bool:
    """Whether a reading of `assignments` holds one of `values` (a whole value, or the
    password inside a URL)."""
    readings = [reading for a in assignments for reading in a.readings]
    return any(value in reading for value in values for reading in readings)


def _warnings(
    unhidden: Sequence[tuple[str, str]], dotenv: WorkspaceDotenv, extra: dict[str, object]
) -> tuple[Notice, ...]:
    """`credentials_not_hidden` for `unhidden`, `dotenv_not_read` for `dotenv`, each
    with `extra` fields, when there is something to say."""
    notices = []
    if unhidden:
        fields = _grouped(unhidden)
        if LONG in fields:
            fields["hidden_chars"] = MAX_HIDDEN_CHARS
        if MANY in fields:
            fields["file_chars"] = MAX_FILE_SECRET_CHARS
        notices.append(Notice("warning", "credentials_not_hidden", {**fields, **extra}))
    unread = _not_read(dotenv)
    if unread:
        notices.append(Notice("warning", "dotenv_not_read", {**unread, **extra}))
    return tuple(notices)


def _not_read(dotenv: WorkspaceDotenv) -> dict[str, object]:
    """The fields naming the dotenv files, parts of them and folders not read (empty:
    none)."""
    fields = _grouped([(file.path, file.unread) for file in dotenv.files if file.unread])
    if CUT in fields:
        fields["read_bytes"] = MAX_DOTENV_BYTES
    if dotenv.folders_not_read:
        fields["folders_not_read"] = dotenv.folders_not_read
        fields["folders_read"] = DOTENV_FOLDERS_READ
    return fields


def _grouped(named: Sequence[tuple[str, str]]) -> dict[str, object]:
    """`(name, reason)` pairs as one field per reason: its names, comma-separated."""
    return {why: ", ".join(name for name, kind in named if kind == why) for _, why in named}
