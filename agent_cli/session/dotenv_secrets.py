"""The credentials of the workspace's dotenv files, and what the start says about them.

Contract: `load_dotenv_secrets(workspace, environment)` reads the workspace's dotenv
files (`tools.workspace_secrets`) and returns their secret values, longest first, and
the start-up notices, warnings each: `credentials_not_hidden`, the credentials of the
environment and of the files left visible (too short, one ordinary word, or a dotenv
value too long), each group of names under its reason's field (the toolbox reads the
environment's secrets itself); and `dotenv_not_read`, the dotenv files not read or read
only in part, and the folders not looked in, with the bounds that left them out. Fields
hold names, reason codes and sizes; the REPL words them. `environment` None is this
process's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from agent_cli.events import Notice
from agent_cli.tools.redaction import SECRET_NAMES_VARIABLE, find_secrets
from agent_cli.tools.workspace_secrets import (
    CUT,
    DOTENV_FOLDERS_READ,
    LONG,
    MANY,
    MAX_DOTENV_BYTES,
    MAX_FILE_SECRET_CHARS,
    MAX_HIDDEN_CHARS,
    WorkspaceDotenv,
    find_dotenv_secrets,
    read_workspace_dotenv,
)


def load_dotenv_secrets(
    workspace: Path, environment: Mapping[str, str] | None
) -> tuple[tuple[str, ...], tuple[Notice, ...]]:
    """The dotenv files' secret values and the notices about them (module contract)."""
    environment = os.environ if environment is None else environment
    dotenv = read_workspace_dotenv(workspace)
    found = find_dotenv_secrets(dotenv, environment.get(SECRET_NAMES_VARIABLE, ""))
    unhidden = [*find_secrets(environment).unhidden, *found.unhidden]
    notices = []
    if unhidden:
        fields = _grouped(unhidden)
        if LONG in fields:
            fields["hidden_chars"] = MAX_HIDDEN_CHARS
        if MANY in fields:
            fields["file_chars"] = MAX_FILE_SECRET_CHARS
        notices.append(Notice("warning", "credentials_not_hidden", fields))
    unread = _not_read(dotenv)
    if unread is not None:
        notices.append(unread)
    return found.values, tuple(notices)


def _not_read(dotenv: WorkspaceDotenv) -> Notice | None:
    """The notice naming the dotenv files, parts of them and folders not read, or None."""
    fields = _grouped([(file.path, file.unread) for file in dotenv.files if file.unread])
    if CUT in fields:
        fields["read_bytes"] = MAX_DOTENV_BYTES
    if dotenv.folders_not_read:
        fields["folders_not_read"] = dotenv.folders_not_read
        fields["folders_read"] = DOTENV_FOLDERS_READ
    return Notice("warning", "dotenv_not_read", fields) if fields else None


def _grouped(named: Sequence[tuple[str, str]]) -> dict[str, object]:
    """`(name, reason)` pairs as one field per reason: its names, comma-separated."""
    return {why: ", ".join(name for name, kind in named if kind == why) for _, why in named}
