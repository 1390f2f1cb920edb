"""Start-up steps shared by the interactive loop and `-p`: settings, workspace, consoles,
and which session to open first.

Contract: plain functions; typed errors (`ConfigError`, `SessionNotFound`, ...) propagate
to `main`, which turns them into one line and an exit code. rich is imported only by the
functions that build something with it: settings, the workspace and `writes_to_terminal`
come before the first prompt frame, which does not need rich.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, TextIO

from agent_cli.errors import ConfigError, OutputClosed
from agent_cli.repl.args import flag_settings
from agent_cli.repl.config import Settings, load_config_file, resolve_settings
from agent_cli.repl.wiring import SessionBackend

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from agent_cli.repl.port import SessionPort

# The variables by which rich's `Console.is_terminal` overrides what `isatty()` says.
RICH_TERMINAL_OVERRIDES = ("FORCE_COLOR", "TTY_COMPATIBLE")


def load_settings(args: argparse.Namespace, config_file: Path) -> Settings:
    """Flags over the config file over built-in defaults."""
    return resolve_settings(flag_settings(args), load_config_file(config_file), config_file)


def resolve_workspace(raw: str | None, *, resuming: bool = False) -> Path | None:
    """The folder the tools work in: `--workspace`, else the current folder.

    A current folder that was deleted (or moved away from under the shell that stands in
    it) refuses a new session (`ConfigError`), and a relative `--workspace` in it, which
    names no folder. A resumed session (`resuming`: --resume, --continue) goes on in its
    recorded folder anyway (`session.opening`), so there the current folder is only what
    it falls back to: its name as the shell gives it (`deleted_current_folder`), or None.
    """
    if raw:
        given = Path(raw).expanduser()
        workspace = given if given.is_absolute() else _current_folder(raw) / given
    else:
        try:
            workspace = Path(os.getcwd())
        except OSError:
            if resuming:
                return deleted_current_folder()
            workspace = _current_folder(None)
    try:
        workspace = workspace.resolve()
    except RuntimeError:  # a loop of symbolic links (RuntimeError on 3.11)
        reason = f"{workspace} goes through symbolic links that lead back to each other"
        raise ConfigError("workspace", reason, source="--workspace") from None
    except OSError as error:
        reason = f"{workspace} cannot be looked up ({error.strerror or type(error).__name__})"
        raise ConfigError("workspace", reason, source="--workspace") from None
    if not workspace.is_dir():
        raise ConfigError("workspace", f"{workspace} is not a folder", source="--workspace")
    return workspace


def _current_folder(relative: str | None) -> Path:
    """The current folder; a `ConfigError` when it was deleted (or moved away from under a
    shell that still stands in it): `os.getcwd()` then fails. `relative`: the relative
    `--workspace` that needs it (said: it names no folder then)."""
    try:
        return Path(os.getcwd())
    except OSError:
        if relative is None:
            reason = (
                "the current folder no longer exists (deleted or moved): cd to one that "
                "does, or give one with --workspace DIR"
            )
            raise ConfigError("workspace", reason) from None
        reason = (
            f"the current folder no longer exists (deleted or moved), so {relative} names no "
            "folder: cd to one that does, or give --workspace a full path"
        )
        raise ConfigError("workspace", reason, source="--workspace") from None


def deleted_current_folder() -> Path | None:
    """The name of the current folder once it was deleted, as the shell that started
    agent-cli gives it (`PWD`), so `--continue` finds the sessions recorded there; None
    when `PWD` cannot be that folder (not a full path, or a folder that exists: a parent
    process's own, handed down unchanged)."""
    named = os.environ.get("PWD", "")
    if not named or not os.path.isabs(named) or os.path.lexists(named):
        return None
    return Path(os.path.normpath(named))


def is_resuming(args: argparse.Namespace) -> bool:
    """True when the flags resume a session: --resume (with an id or without), --continue."""
    return args.resume is not None or bool(args.continue_latest)


def make_console(stream: TextIO | None, *, stderr: bool = False) -> Console:
    """A rich console on `stream`; with no stream, one bound to the real stdout/stderr.

    Without `file=` rich looks up `sys.stdout` each time it writes, which is what lets
    prompt_toolkit's `patch_stdout` put output above a prompt that is on screen.
    """
    console = _closable_console()
    if stream is None:
        return console(stderr=stderr, width=_clamped_columns())
    return console(file=stream, width=_clamped_columns())


@functools.cache
def _closable_console() -> type[Console]:
    """rich's Console, but a broken pipe on the output raises `OutputClosed` (rich's own
    ends the process with exit code 1 and not a word on stderr); on stderr, what it says
    from then on goes nowhere and the run goes on (`-p` still prints its answer)."""
    from rich.console import Console

    class ClosableConsole(Console):
        def on_broken_pipe(self) -> None:
            silence_closed_stream(self.file)
            if self.file is sys.stderr:
                self.quiet = True
                return
            raise OutputClosed

    return ClosableConsole


def silence_closed_stream(stream: IO[str]) -> None:
    """Point the file descriptor of `stream`, whose reader closed it, at /dev/null, so
    the writes still buffered (the interpreter flushes at exit) go nowhere instead of
    failing again."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)


MAX_COLUMNS = 1_000  # no terminal is wider; rich lays out every row to the width it is given


def _clamped_columns() -> int | None:
    """`MAX_COLUMNS` when `COLUMNS` asks for more (`stats` at COLUMNS=99999999 ran for
    over 40 s laying out its table), else None: rich reads the width itself, as the
    terminal is resized."""
    raw = os.environ.get("COLUMNS", "")
    return MAX_COLUMNS if raw.isdecimal() and int(raw[:12]) > MAX_COLUMNS else None


# Error handlers that never raise while encoding; any other (strict, and the
# surrogateescape Python picks under a C or UTF-8 locale) can.
NEVER_FAILING_HANDLERS = frozenset(
    {"replace", "backslashreplace", "xmlcharrefreplace", "namereplace", "ignore"}
)


def replace_unencodable_output() -> None:
    """Make the real stdout and stderr write `?` for what their encoding cannot carry.

    Why: with a Latin-1 locale (or PYTHONIOENCODING=latin-1) the first box-drawing glyph
    of a tool panel raised UnicodeEncodeError and ended the session; a lone surrogate
    does the same on UTF-8, and `surrogateescape` (Python's handler under LANG=C.UTF-8)
    fails on one too: a streamed answer holding `\\ud800` ended the REPL. A stream whose
    handler never fails (`NEVER_FAILING_HANDLERS`) keeps it."""
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        if errors not in NEVER_FAILING_HANDLERS and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def writes_to_terminal(stream: TextIO | None) -> bool:
    """What `make_console(stream).is_terminal` says, without importing rich if it can.

    rich answers `isatty()` of the stream (the real stdout when `stream` is None) unless
    one of `RICH_TERMINAL_OVERRIDES` is set; only then is rich itself asked.
    """
    if any(name in os.environ for name in RICH_TERMINAL_OVERRIDES):
        return make_console(stream).is_terminal
    target = sys.stdout if stream is None else stream
    try:
        return bool(target.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream: rich says no
        return False


def read_print_prompt(raw: str, stdin: TextIO) -> str:
    """The `-p` prompt; `-` means read it from stdin. Raised before any session is opened:
    `InputTooLarge` over the input cap, `PrintPromptRefused` for an empty prompt or a
    command of the interactive prompt (`/stats`, bare `exit`: -p runs no commands, and
    would have sent it to the model). As at the prompt, `//x` sends `/x`."""
    from agent_cli.errors import PrintPromptRefused
    from agent_cli.repl.commands import message_text, split_command
    from agent_cli.session.input_limit import check_input_size, read_bounded

    text = read_bounded(stdin, "-p", line=False) if raw == "-" else raw
    check_input_size(text, "-p")
    if not text.strip():
        raise PrintPromptRefused("empty")
    command = split_command(text)
    if command is not None:
        raise PrintPromptRefused("command", text.split()[0])
    return message_text(text)


def open_first_session(
    args: argparse.Namespace,
    backend: SessionBackend,
    show: Callable[[RenderableType], None],
    *,
    list_when_resuming: bool,
) -> tuple[SessionPort, bool]:
    """Open the session the flags ask for; returns it and whether it was resumed.

    `--resume ID` resumes that session (or the one `/resume ID` would take);
    `--continue`, or `--resume` without an id (which
    first lists this workspace's sessions), resumes the latest session in this workspace,
    or starts a new one when there is none. What it has to say on the way (the listing,
    "no earlier session") goes to `show(renderable)`: `console.print`, or a list the
    caller prints later when this runs on a worker thread.
    """
    from rich.text import Text

    target: str | None = args.resume or None
    if args.resume == "" or args.continue_latest:
        if args.resume == "" and list_when_resuming:
            show(_this_folders_sessions(backend))
        target = backend.latest_session_id()
        if target is None:  # said once it is open: a folder that is gone refuses it
            session = backend.open_session(None)
            show(Text("no earlier session in this workspace; started a new one", style="yellow"))
            return session, False
    elif target is not None:
        return _open_chosen(backend, target), True
    return backend.open_session(target), target is not None


def _this_folders_sessions(backend: SessionBackend) -> RenderableType:
    """The listing bare `--resume` prints: this folder's sessions, each with the number
    `/sessions` gives it (every folder's, newest first), so `--resume 3` and `/resume 3`
    take the session shown as 3 here too."""
    from agent_cli.repl.session_views import build_sessions_view

    here = {info.session_id for info in backend.list_sessions(True)}
    numbered = [
        (number, info)
        for number, info in enumerate(backend.list_sessions(False), start=1)
        if info.session_id in here
    ]
    return build_sessions_view([info for _, info in numbered], None, [n for n, _ in numbered])


def _open_chosen(backend: SessionBackend, typed: str) -> SessionPort:
    """`--resume <typed>`: the session of exactly that id, else the one `/resume <typed>`
    takes (`choose_session` over the `/sessions` list: its number there, or the only id
    that starts so; a number within the list is a number, not the start of an id)."""
    from agent_cli.errors import SessionNotFound
    from agent_cli.repl.session_choice import choose_session

    try:
        return backend.open_session(typed)
    except SessionNotFound:
        listed = backend.list_sessions(False)
        chosen = choose_session(typed, listed, asked_by="--resume")
        if chosen == typed:
            raise
    return backend.open_session(chosen)
