"""`agent-cli`: the entry point.

Contract: `main(argv)` returns the exit code and never raises for a typed error: 0 ok,
1 a failure (a `-p` turn that failed, a store that failed while in use), 2 bad usage or
configuration (a state folder that cannot be used included), 3 a `-p` request blocked by the hard limit, 4 a `-p` turn that needed a
permission nobody could give (run it with --yes), 130 cancelled with Ctrl-C, 128 + the
signal's number after SIGTERM (143), SIGHUP (129) or SIGQUIT (131, Ctrl-\\ while a command
runs or the model answers): the running command is ended and
recorded as stopped, the session closes, and whatever that waits on, the process is gone
`SHUTDOWN_DEADLINE_SECONDS` after the signal (`termination`).

Start-up speed: at import this module loads only the standard library and the argument
parser, so `--help` and `--version` answer at once; rich, prompt_toolkit, the session,
token counting and providers are imported later, only on the paths that need them
(prompt_toolkit only when stdin and stdout are terminals). At a terminal the prompt is
drawn before the session is opened: the opening (and everything it imports) runs on a
worker thread meanwhile, and the banner comes above the prompt once it is done; what
the user typed or sent in between is kept (`early_prompt`).

Tests drive `main` through its keyword parameters instead of patching: `stdin`, `stdout`,
`stderr`, `env`, `paths` (`StatePaths`; with a test backend only `config_file` and
`history_file` are read), and
`backend_factory(settings, ask_permission) -> SessionBackend` to replace real sessions.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from agent_cli.errors import AgentCliError, OutputClosed, TerminationRequested
from agent_cli.repl.args import ArgumentsExit, parse_args

if TYPE_CHECKING:
    import argparse

    from rich.console import Console, RenderableType

    from agent_cli.repl.config import Settings
    from agent_cli.repl.loop import LineReader, Repl
    from agent_cli.repl.prompt import PromptReader
    from agent_cli.repl.wiring import BackendFactory
    from agent_cli.store.paths import StatePaths
    from agent_cli.tools.permissions import PermissionAsker

INTERRUPTED_EXIT = 130
PERMISSION_NEEDED_EXIT = 4
OFFLINE_FALLBACK_NOTE = (
    "no ANTHROPIC_API_KEY: the offline demo model answers, not Claude (set the key, or pass "
    "--provider offline to choose it and leave out this line)"
)
# After SIGTERM/SIGHUP/SIGQUIT the process ends within this, whatever it waits on (`termination`).
SHUTDOWN_DEADLINE_SECONDS = 5.0


def main(
    argv: Sequence[str] | None = None,
    *,
    backend_factory: BackendFactory | None = None,
    paths: StatePaths | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    try:
        args = parse_args(argv, stdout=stdout, stderr=stderr)
    except ArgumentsExit as exit_request:
        return exit_request.code
    env = os.environ if env is None else env
    from agent_cli.repl.startup import replace_unencodable_output
    from agent_cli.repl.undecodable_input import tolerate_undecodable_stdin
    from agent_cli.termination import (
        exit_code_for_signal,
        install_termination_handlers,
        termination_received,
    )

    install_termination_handlers(exit_deadline_seconds=SHUTDOWN_DEADLINE_SECONDS)
    replace_unencodable_output()
    tolerate_undecodable_stdin(stdin or sys.stdin)
    try:
        return _run(
            args,
            backend_factory=backend_factory,
            paths=paths,
            stdin=stdin or sys.stdin,
            stdout=stdout,
            stderr=stderr,
            env=env,
        )
    except AgentCliError as exc:
        from agent_cli.repl.error_text import (
            describe_error,
            describe_startup_error,
            exit_code_for,
            startup_exit_code,
        )

        _print_fatal(stderr, describe_startup_error(exc) or describe_error(exc))
        code = startup_exit_code(exc)
        return exit_code_for(exc) if code is None else code
    except KeyboardInterrupt:
        return INTERRUPTED_EXIT
    except TerminationRequested as stop:
        return exit_code_for_signal(stop)
    except (OutputClosed, BrokenPipeError):  # a console's, or a plain write's (`-p`)
        return _say_output_closed(stdout, stderr)
    except OSError:
        # A closed terminal (SIGHUP) fails the last writes of the unwinding (the goodbye)
        # with EIO after the session closed: that is the signal's doing, not a crash.
        received = termination_received()
        if received is None:
            raise
        return 128 + received


def _say_output_closed(stdout: TextIO | None, stderr: TextIO | None) -> int:
    """Say on stderr that the output was closed (`OutputClosed`), unless it is closed
    too; the failure exit code."""
    from agent_cli.repl.error_text import FAILURE_EXIT, describe_error
    from agent_cli.repl.startup import silence_closed_stream

    silence_closed_stream(sys.stdout if stdout is None else stdout)
    with contextlib.suppress(OutputClosed, OSError):  # stderr closed as well
        _print_fatal(stderr, describe_error(OutputClosed()))
    return FAILURE_EXIT


def _print_fatal(stderr: TextIO | None, message: str) -> None:
    from agent_cli.repl.render import build_error_text
    from agent_cli.repl.startup import make_console
    from agent_cli.repl.word_wrap import print_at_words

    print_at_words(make_console(stderr, stderr=True), build_error_text(message))


def _run(
    args: argparse.Namespace,
    *,
    backend_factory: BackendFactory | None,
    paths: StatePaths | None,
    stdin: TextIO,
    stdout: TextIO | None,
    stderr: TextIO | None,
    env: Mapping[str, str],
) -> int:
    from functools import partial

    from agent_cli.repl import startup, wiring
    from agent_cli.repl.config import with_demo_thresholds

    paths = paths if paths is not None else wiring.resolve_paths(env)
    settings = startup.load_settings(args, paths.config_file)
    if wiring.choose_provider_name(settings, env) == "offline":
        settings = with_demo_thresholds(settings)
    workspace = startup.resolve_workspace(args.workspace, resuming=startup.is_resuming(args))
    factory = backend_factory or partial(
        wiring.build_backend, paths=paths, env=env, workspace=workspace
    )
    offline_fallback = wiring.is_offline_fallback(settings, env)
    if args.print_prompt is not None:
        return _run_print_mode(
            args,
            settings,
            factory,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            offline_fallback=offline_fallback,
        )
    return _run_interactive(
        args,
        settings,
        factory,
        paths=paths,
        stdin=stdin,
        stdout=stdout,
        offline_fallback=offline_fallback,
        api_key_set=bool(env.get(wiring.API_KEY_VARIABLE, "").strip()),
        started_in="" if workspace is None else str(workspace),
    )


def _run_print_mode(
    args: argparse.Namespace,
    settings: Settings,
    factory: BackendFactory,
    *,
    stdin: TextIO,
    stdout: TextIO | None,
    stderr: TextIO | None,
    offline_fallback: bool,
) -> int:
    """One turn (`-p`): its answer alone on stdout, what else it has to say on stderr;
    the offline model answering only because no API key was found is said there once the
    session is open, so a script's log shows the answer is the demo's."""
    from agent_cli.repl import startup, wiring
    from agent_cli.repl.print_mode import run_print_turn
    from agent_cli.repl.render import EventRenderer
    from agent_cli.repl.undecodable_input import describe_replaced, replace_undecodable

    prompt_text = startup.read_print_prompt(args.print_prompt, stdin)
    diagnostics = startup.make_console(stderr, stderr=True)
    prompt_text, replaced = replace_undecodable(prompt_text)
    if replaced:
        diagnostics.print(describe_replaced(replaced), style="yellow", markup=False)
    asker = wiring.build_refusing_asker(diagnostics, "-p cannot ask for permission")
    backend = factory(settings, asker)
    session, _ = startup.open_first_session(
        args, backend, diagnostics.print, list_when_resuming=False
    )
    if offline_fallback:  # (once the session is open: an error at start-up is one line)
        diagnostics.print(OFFLINE_FALLBACK_NOTE, style="yellow", markup=False, soft_wrap=True)
    try:
        code = run_print_turn(
            session,
            prompt_text,
            stdout or sys.stdout,
            EventRenderer(diagnostics, live=False, one_shot=True, session_id=session.session_id),
        )
    finally:
        session.close()
    if code == 0 and asker.refused:
        return PERMISSION_NEEDED_EXIT
    return code


def _run_interactive(
    args: argparse.Namespace,
    settings: Settings,
    factory: BackendFactory,
    *,
    paths: StatePaths,
    stdin: TextIO,
    stdout: TextIO | None,
    offline_fallback: bool,
    api_key_set: bool,
    started_in: str,
) -> int:
    """The interactive run; at a terminal, the terminal echoes nothing from here to the
    end (`terminal_modes.quiet_terminal`): the prompt draws what is typed at it, and what
    is typed while none is shown (before the first frame, after a line is sent while the
    session still opens, during a turn, after `fg` brought back a run that Ctrl-Z
    stopped) waits for the next one, unechoed. Set before the prompt's modules are
    imported, it is put back however the run ends.
    `started_in`: the folder agent-cli was started in ("" when it was deleted), which
    the permission question compares with the folder a call runs in."""
    from agent_cli.repl.startup import writes_to_terminal
    from agent_cli.repl.terminal_modes import quiet_again_when_continued, quiet_terminal

    at_terminal = _is_terminal(stdin) and writes_to_terminal(stdout)
    restore_terminal = quiet_terminal(stdin.fileno()) if at_terminal else (lambda: None)
    stop_requieting = quiet_again_when_continued(stdin.fileno()) if at_terminal else None
    try:
        return _open_and_run(
            args,
            settings,
            factory,
            paths=paths,
            stdin=stdin,
            stdout=stdout,
            at_terminal=at_terminal,
            offline_fallback=offline_fallback,
            api_key_set=api_key_set,
            started_in=started_in,
        )
    finally:
        if stop_requieting is not None:
            stop_requieting()
        restore_terminal()


def _open_and_run(
    args: argparse.Namespace,
    settings: Settings,
    factory: BackendFactory,
    *,
    paths: StatePaths,
    stdin: TextIO,
    stdout: TextIO | None,
    at_terminal: bool,
    offline_fallback: bool,
    api_key_set: bool,
    started_in: str,
) -> int:
    """`at_terminal`: the prompt is drawn first and the session opens behind it.

    Everything the first frame does not need (rich and the console, the session and its
    modules, the provider, the loop and its renderers) is built by `open_repl`, on a
    worker thread started once the prompt is on screen (`PromptReader.show_while`); with
    piped input it simply runs here. Only this thread prints: what the opening had to
    say, then the banner.
    """
    from agent_cli.repl import startup
    from agent_cli.repl.background import DeferredWork
    from agent_cli.repl.terminal_modes import keep_on_interrupt

    prompt_reader = None
    if at_terminal:
        from agent_cli.repl.prompt import PromptReader

        prompt_reader = PromptReader(paths.history_file, _command_summaries)

    def open_repl() -> tuple[Repl, list[RenderableType]]:
        from agent_cli.repl.config import uses_demo_soft_threshold
        from agent_cli.repl.loop import Repl

        console = startup.make_console(stdout)
        reader, asker = _build_input(console, stdin, prompt_reader, started_in)
        said: list[RenderableType] = []
        backend = factory(settings, asker)
        session, resumed = startup.open_first_session(
            args, backend, said.append, list_when_resuming=True
        )
        repl = Repl(
            session=session,
            backend=backend,
            reader=reader,
            console=console,
            live=console.is_terminal,
            offline_fallback=offline_fallback,
            resumed=resumed,
            demo_thresholds=uses_demo_soft_threshold(settings),
            approvals_off_by=settings.origins.get("yes", "--yes") if settings.yes else None,
            api_key_set=api_key_set,
            typing=prompt_reader,
        )
        return repl, said

    opening = DeferredWork(open_repl)
    if prompt_reader is not None:
        prompt_reader.show_while(opening)
    repl, said = opening.result()
    if prompt_reader is not None:
        prompt_reader.complete_arguments_with(repl.argument_choices)
    for renderable in said:
        repl.console.print(renderable)
    # Ctrl-C during a turn must not flush what was typed meanwhile (`terminal_modes`).
    restore_flush = keep_on_interrupt(stdin.fileno()) if prompt_reader else (lambda: None)
    try:
        exit_code: int = repl.run()
    finally:
        restore_flush()
    return exit_code


def _build_input(
    console: Console, stdin: TextIO, prompt_reader: PromptReader | None, started_in: str
) -> tuple[LineReader, PermissionAsker]:
    """The line reader and the permission asker that fit where input comes from (the
    asker names the folder a call runs in when it is not `started_in`)."""
    from agent_cli.repl import wiring

    if prompt_reader is not None:
        return prompt_reader, wiring.build_interactive_asker(
            prompt_reader.ask,
            console,
            keep_reply=prompt_reader.keep_unanswered,
            started_in=started_in,
        )

    from rich.text import Text

    from agent_cli.repl.paste import describe_paste, is_long_paste
    from agent_cli.repl.plain_input import ECHO_MARK, PlainLineReader
    from agent_cli.repl.safe_text import sanitize_text

    def echo(line: str) -> None:
        shown = describe_paste(line) if is_long_paste(line) else sanitize_text(line)
        console.print(Text(ECHO_MARK + shown, style="bold"), soft_wrap=True)

    refuse = wiring.build_refusing_asker(
        console, "stdin is not a terminal, so no one can be asked for permission"
    )
    return PlainLineReader(stdin, echo=echo), refuse


def _command_summaries() -> dict[str, str]:
    """The command table, loaded at the first completion rather than before the prompt."""
    from agent_cli.repl.commands import command_summaries

    return command_summaries()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


if __name__ == "__main__":
    raise SystemExit(main())
