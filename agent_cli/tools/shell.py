"""bash: run one command in the workspace, in its own process group, bounded in time and size.

Contract: the command runs as `bash -c` in a new session (so it has its own process group
and no controlling terminal), with stdin closed and stdout+stderr combined. The group's
leader is a small supervisor (`command_supervisor`) that starts the command and, should
agent-cli die while it runs (even by SIGKILL), kills the whole group. It is stopped,
together with every process in its group (SIGTERM, then SIGKILL after a short grace), when
the timeout passes, when its output reaches the cap, or when a KeyboardInterrupt arrives.
Ctrl-C keeps what the command printed: once the group is ended, the tool raises
`ToolInterrupted` (a KeyboardInterrupt) carrying the output read so far. A termination
signal (SIGTERM, a closed terminal's SIGHUP, SIGQUIT) keeps it the same way, raising
`ToolTerminated` (a TerminationRequested: agent-cli still ends). Background
processes that keep the output pipe open after the command itself exits are not waited for.
Anthropic credentials are removed from the command's environment, so a command cannot
print them into the conversation. A command no shell can be given (a NUL, a lone
surrogate) is refused before permission is asked (`refuse_unpassable_command`).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_cli.errors import TerminationRequested, ToolError
from agent_cli.safe_cuts import safe_head_end
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.terminal_escapes import unsplit_secrets
from agent_cli.termination import interrupt_held, signal_name, termination_held
from agent_cli.tools.approval import build_command_approval
from agent_cli.tools.approval_scope import command_target
from agent_cli.tools.context import PreparedCall, ToolContext
from agent_cli.tools.output import ToolInterrupted, ToolResult, ToolTerminated, format_size
from agent_cli.tools.redaction import ALWAYS_SECRET_NAMES

# The secrets a child never inherits are the ones redaction always treats as secret.
HIDDEN_ENVIRONMENT_NAMES = frozenset(ALWAYS_SECRET_NAMES)
# The first line of the result of a command Ctrl-C stopped (`session.call_outcome`).
INTERRUPTED_HEADER = (
    "Interrupted by the user (Ctrl-C) while it ran; the command and its whole process "
    "group were ended. Output so far follows."
)
# The first line of the result of a command a termination signal to agent-cli stopped.
TERMINATED_HEADER = (
    "Stopped: agent-cli was ended by {signal} while this tool ran; the command and its "
    "whole process group were ended. Output so far follows."
)
# The first lines of the results of a command stopped by its timeout or its output cap
# (`session.call_outcome` reads them back: it did not finish).
TIMED_OUT_HEADER = (
    "Timed out after {seconds} s; the command and its whole process group were ended. "
    "Output so far follows."
)
OUTPUT_CAP_HEADER = (
    "Output reached the {cap} cap; the command and its whole process group were ended. "
    "Output up to the cap follows."
)
_READ_CHUNK_BYTES = 65_536
# How often the exit of the command is checked; after it exits, a pipe silent this long
# means "done" even if a background child still holds it open.
_QUIET_SECONDS = 0.2
_TERMINATE_GRACE_SECONDS = 1.0
_KILL_WAIT_SECONDS = 5.0
SUPERVISOR_SCRIPT = Path(__file__).with_name("command_supervisor.py")


@dataclass(frozen=True)
class CommandRun:
    output: bytes
    exit_code: int | None  # None when we ended the command
    # "exited", "timeout", "output_cap", "interrupted" (Ctrl-C) or "terminated" (a
    # termination signal to agent-cli, `signal_number`)
    stop_reason: str
    signal_number: int | None = None


def prepare_bash(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    command = arguments["command"]
    if not command.strip():
        raise ToolError("command is empty; give a shell command line to run.")
    refuse_unpassable_command(command)
    limits = context.limits
    timeout = min(
        arguments.get("timeout_seconds", limits.bash_timeout_seconds),
        limits.max_bash_timeout_seconds,
    )

    def execute() -> ToolResult:
        run = run_command(
            command,
            context.workspace.root,
            timeout,
            limits.max_output_bytes,
            on_output=context.watch_output,
        )
        result = render_command_run(run, timeout, limits.max_output_bytes, context.secrets)
        result = replace(result, stopped_short=run.stop_reason != "exited")
        if run.stop_reason == "interrupted":
            raise ToolInterrupted(result)
        if run.signal_number is not None:
            raise ToolTerminated(run.signal_number, result)
        return result

    target = command_target(
        command, context.workspace.root, context.workspace.state_folders.folders
    )
    return PreparedCall(command, execute, build_command_approval(command), target)


def refuse_unpassable_command(command: str) -> None:
    """Refuse, before anyone is asked, a command no shell can be given: one holding a NUL
    (a program's arguments end at it) or a character that has no bytes in the file
    system's encoding (a lone surrogate). Asked about and approved, it failed as
    "ValueError: embedded null byte"."""
    if "\x00" in command:
        raise ToolError(
            "The command contains a NUL character, which no shell command can hold; "
            "nothing was run. Write it without one (printf '\\0' writes a NUL byte)."
        )
    try:
        os.fsencode(command)
    except UnicodeEncodeError as error:
        code = ord(command[error.start])
        raise ToolError(
            f"The command contains U+{code:04X}, which cannot be passed to a shell; "
            "nothing was run. Write it without that character."
        ) from None


def run_command(
    command: str,
    cwd: Path,
    timeout_seconds: float,
    max_output_bytes: int,
    environment: Mapping[str, str] | None = None,
    on_output: Callable[[bytes], None] | None = None,
) -> CommandRun:
    """Run `command`; see the module contract for how and when it is stopped. A
    KeyboardInterrupt while it runs ends the group and returns the output read until then
    as a run stopped "interrupted", a TerminationRequested as one stopped "terminated"
    (the caller raises it on); any other BaseException ends the group and goes on."""
    shell = shutil.which("bash") or "/bin/sh"
    child_environment = build_command_environment(
        os.environ if environment is None else environment
    )
    output = bytearray()  # outlives an interrupt: what was read is kept
    with (
        termination_held() as release,
        interrupt_held() as release_interrupt,
        _start(shell, command, cwd, child_environment) as process,
    ):
        try:
            release()  # a SIGTERM/SIGHUP that came while it started is raised here
            release_interrupt()  # and a Ctrl-C, where what was read is kept
            stop_reason = _collect_output(
                process, output, timeout_seconds, max_output_bytes, on_output
            )
        except KeyboardInterrupt:
            end_process_group(process)
            _read_what_is_left(process, output, max_output_bytes)
            return CommandRun(bytes(output), None, "interrupted")
        except TerminationRequested as stop:
            end_process_group(process)
            _read_what_is_left(process, output, max_output_bytes)
            return CommandRun(bytes(output), None, "terminated", stop.signal_number)
        except BaseException:
            end_process_group(process)
            raise
        if stop_reason != "exited":
            end_process_group(process)
            return CommandRun(bytes(output), None, stop_reason)
        return CommandRun(bytes(output), process.wait(), stop_reason)


@contextlib.contextmanager
def _start(
    shell: str, command: str, cwd: Path, environment: Mapping[str, str]
) -> Iterator[subprocess.Popen[bytes]]:
    """Start the command under its supervisor (`command_supervisor`), which leads the new
    session and group; the lifeline's write end stays open here until the block ends."""
    lifeline, lifeline_end = os.pipe()  # neither end is inherited unless passed
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-I",  # no user site, no PYTHON* variables: the supervisor is stdlib only
                "-S",
                str(SUPERVISOR_SCRIPT),
                str(lifeline),
                shell,
                command,
                "1" if "LC_CTYPE" in environment else "0",
            ],
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(lifeline,),
        )
    except OSError as error:
        os.close(lifeline_end)
        raise ToolError(f"The command could not be started: {error.strerror or error}.") from error
    finally:
        os.close(lifeline)
    try:
        with process:
            yield process
    finally:
        os.close(lifeline_end)  # the command has ended: the supervisor is gone by now


def build_command_environment(environment: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in environment.items() if k not in HIDDEN_ENVIRONMENT_NAMES}


def _collect_output(
    process: subprocess.Popen[bytes],
    output: bytearray,
    timeout_seconds: float,
    max_output_bytes: int,
    on_output: Callable[[bytes], None] | None = None,
) -> str:
    """Read the pipe into `output` until EOF, timeout, output cap, or the command exits and
    goes quiet, and say which it was; each chunk read is also handed to `on_output` (the
    REPL's live view). `output` is the caller's, so what was read survives an interrupt."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    deadline = time.monotonic() + timeout_seconds
    with selectors.DefaultSelector() as selector:
        selector.register(descriptor, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            has_exited = process.poll() is not None
            if not selector.select(min(remaining, _QUIET_SECONDS)):
                if has_exited:
                    return "exited"
                continue
            chunk = os.read(descriptor, _READ_CHUNK_BYTES)
            if not chunk:
                return _wait_for_exit(process, deadline)
            output += chunk
            if on_output is not None:
                on_output(chunk)
            if len(output) >= max_output_bytes:
                del output[max_output_bytes:]
                return "output_cap"


def _read_what_is_left(
    process: subprocess.Popen[bytes], output: bytearray, max_output_bytes: int
) -> None:
    """Add to `output` what the ended command wrote that was not read yet (it was printed
    before Ctrl-C or the signal), without waiting for more, up to the cap."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    with selectors.DefaultSelector() as selector:
        selector.register(descriptor, selectors.EVENT_READ)
        while len(output) < max_output_bytes and selector.select(0):
            chunk = os.read(descriptor, _READ_CHUNK_BYTES)
            if not chunk:
                return
            output += chunk
    del output[max_output_bytes:]


def _wait_for_exit(process: subprocess.Popen[bytes], deadline: float) -> str:
    """After EOF the command may still run (it can close its output); bound that wait."""
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return "timeout"
    return "exited"


def end_process_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the command's whole group, then SIGKILL whatever is left after a grace.

    Returns once no member runs any more (SIGKILL takes effect asynchronously, so it waits
    for that too, bounded), so callers can rely on the group being gone.
    """
    group = process.pid  # start_new_session makes the child its group's leader
    _signal_group(group, signal.SIGTERM)
    try:
        _wait_for_group_to_end(process, group, _TERMINATE_GRACE_SECONDS)
    finally:
        _signal_group(group, signal.SIGKILL)
        process.wait()
        _wait_for_group_to_end(process, group, _KILL_WAIT_SECONDS)


def _wait_for_group_to_end(process: subprocess.Popen[bytes], group: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        process.poll()
        if not is_group_alive(group):
            return
        time.sleep(0.02)


def is_group_alive(group: int) -> bool:
    """True while some process of `group` still runs (zombies count as ended).

    Zombies matter because an orphan's zombie lingers when PID 1 does not reap, and
    kill(-group, 0) would call such a group alive forever.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in proc.iterdir():
        if entry.name.isdigit() and _is_running_member(entry / "stat", group):
            return True
    return False


def _is_running_member(stat_path: Path, group: int) -> bool:
    try:
        fields = stat_path.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    state, process_group = fields[0], int(fields[2])
    return process_group == group and state not in ("Z", "X")


def _signal_group(group: int, signal_number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal_number)


def describe_held_back(count: int) -> str:
    """The note after output whose last `count` characters were held back."""
    what, pronoun = ("1 character", "it") if count == 1 else (f"{count:,} characters", "they")
    return (
        f"[{what} printed last, where the command was stopped, held back: {pronoun} could "
        "begin a secret whose rest never came]"
    )


def render_command_run(
    run: CommandRun,
    timeout_seconds: float,
    max_output_bytes: int,
    secrets: SecretForms = NO_SECRETS,
) -> ToolResult:
    """Header with the exit status (or why it was stopped), then the combined output.

    Output cut short by Ctrl-C, the cap or the timeout ends where the command was stopped,
    and what came next is unknown: an ending that could be the start of a secret (the
    command chooses where the cap falls; `safe_cuts.stopped_secret_start`) is held back,
    since redaction cannot recognise half a key, and a line after the output says how many
    characters were (`describe_held_back`): never dropped unsaid. When terminal escape
    sequences split a secret (`grep --color=always`), the output is given without them
    (`terminal_escapes.unsplit_secrets`), before it is cut.
    """
    text = unsplit_secrets(run.output.decode("utf-8", errors="replace"), secrets)
    held = 0
    if run.stop_reason != "exited":
        kept = safe_head_end(text, len(text), secrets, stream_stopped=True)
        text, held = text[:kept], len(text) - kept
    body = text if text or held else "(no output)"
    if held:
        body += ("" if not body or body.endswith("\n") else "\n") + describe_held_back(held)
    size = format_size(len(run.output))
    if run.stop_reason == "timeout":
        header = TIMED_OUT_HEADER.format(seconds=f"{timeout_seconds:g}")
        body += (
            "\n[Pass a larger timeout_seconds (at most 600) or split the work into "
            "shorter commands.]"
        )
        return ToolResult(header, body, is_error=True, summary=f"timed out, {size}")
    if run.stop_reason == "interrupted":
        return ToolResult(INTERRUPTED_HEADER, body, is_error=True, summary=f"interrupted, {size}")
    if run.stop_reason == "terminated":
        name = signal_name(run.signal_number or 0)
        header = TERMINATED_HEADER.format(signal=name)
        return ToolResult(header, body, is_error=True, summary=f"stopped by {name}, {size}")
    if run.stop_reason == "output_cap":
        header = OUTPUT_CAP_HEADER.format(cap=format_size(max_output_bytes))
        body += "\n[Redirect big output to a file, or filter it with grep/head/tail.]"
        return ToolResult(header, body, is_error=True, summary=f"output cap hit, {size}")
    code = run.exit_code if run.exit_code is not None else -1
    if code < 0:
        header = f"Killed by signal {-code}."
        return ToolResult(header, body, summary=f"signal {-code}, {size}")
    return ToolResult(f"Exit code: {code}", body, summary=f"exit {code}, {size}")
