"""Start-up steps shared by the interactive loop and `-p`: settings, workspace, consoles,
and which session to open first.

Contract: plain functions; typed errors (`ConfigError`, `SessionNotFound`, ...) propagate
to `main`, which turns them into one line and an exit code.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from agent_cli.errors import ConfigError
from agent_cli.repl.args import flag_settings
from agent_cli.repl.config import Settings, load_config_file, resolve_settings
from agent_cli.repl.wiring import SessionBackend


def load_settings(args: argparse.Namespace, config_file: Path) -> Settings:
    """Flags over the config file over built-in defaults."""
    return resolve_settings(flag_settings(args), load_config_file(config_file), config_file)


def resolve_workspace(raw: str | None) -> Path:
    """The folder the tools work in: `--workspace`, else the current folder."""
    workspace = Path(raw).expanduser() if raw else Path(os.getcwd())
    workspace = workspace.resolve()
    if not workspace.is_dir():
        raise ConfigError("workspace", f"{workspace} is not a folder", source="--workspace")
    return workspace


def make_console(stream: TextIO | None, *, stderr: bool = False) -> Console:
    """A rich console on `stream`; with no stream, one bound to the real stdout/stderr.

    Without `file=` rich looks up `sys.stdout` each time it writes, which is what lets
    prompt_toolkit's `patch_stdout` put output above a prompt that is on screen.
    """
    if stream is None:
        return Console(stderr=stderr)
    return Console(file=stream)


def read_print_prompt(raw: str, stdin: TextIO) -> str:
    """The `-p` prompt; `-` means read it from stdin. An empty prompt is a usage error."""
    text = stdin.read() if raw == "-" else raw
    if not text.strip():
        raise ConfigError("print", "the prompt is empty", source="-p")
    return text


def open_first_session(
    args: argparse.Namespace,
    backend: SessionBackend,
    show: Callable[[Any], None],
    *,
    list_when_resuming: bool,
) -> tuple[Any, bool]:
    """Open the session the flags ask for; returns it and whether it was resumed.

    `--resume ID` resumes that session; `--continue`, or `--resume` without an id (which
    first lists this workspace's sessions), resumes the latest session in this workspace,
    or starts a new one when there is none. What it has to say on the way (the listing,
    "no earlier session") goes to `show(renderable)`: `console.print`, or a list the
    caller prints later when this runs on a worker thread.
    """
    target: str | None = args.resume or None
    if args.resume == "" or args.continue_latest:
        if args.resume == "" and list_when_resuming:
            from agent_cli.repl.views import build_sessions_view

            show(build_sessions_view(backend.list_sessions(True), None))
        target = backend.latest_session_id()
        if target is None:
            show(Text("no earlier session in this workspace; starting a new one", style="yellow"))
    return backend.open_session(target), target is not None
