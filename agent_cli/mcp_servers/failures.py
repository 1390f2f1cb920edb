"""What an MCP server's failures say: in words a person can act on, without a secret.

Contract: every function here turns what a server or the SDK said (an exception, a
JSON-RPC error, the tail of its stderr) into one short line for a state's reason or a
call's failure, with `secrets` redacted before anything is cut (a cut first could split
a secret, which then would not be recognised). `error_answer` tells an error the server
answered with (the call failed, the server is fine) from the SDK's own "Connection
closed" (`is_broken_connection`: the server is gone).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from agent_cli.mcp_servers.launcher import NOT_STARTED_MARK
from agent_cli.safe_cuts import safe_tail_start
from agent_cli.secret_forms import NO_SECRETS, SecretForms

if TYPE_CHECKING:
    from agent_cli.mcp_servers.settings import McpServerSettings

STDERR_TAIL_LINES = 3


def describe_start_failure(
    error: BaseException,
    settings: McpServerSettings,
    stderr: str,
    secrets: SecretForms = NO_SECRETS,
) -> str:
    """Why a server did not start, in words a person can act on; `stderr` (its last
    lines) already redacted of `secrets`, the error's own words redacted here."""
    leaf = innermost(error)
    if NOT_STARTED_MARK in stderr:
        why = stderr.split(NOT_STARTED_MARK, 1)[1].split(" | ")[0]
        if why.startswith("not found: "):
            return f"the command {settings.command!r} was not found (check command in config.toml)"
        if why.startswith("not executable: "):
            return (
                f"the command {settings.command!r} is not an executable file (check command in "
                "config.toml, or make the file executable)"
            )
        return f"the command {settings.command!r} cannot be started ({why})"
    tail = describe_stderr(stderr)
    if isinstance(leaf, TimeoutError):
        return (
            f"it did not finish the MCP handshake and list its tools within its "
            f"startup_timeout of {settings.startup_timeout:g} s (raise startup_timeout under "
            f"[mcp_servers.{settings.name}] in config.toml if it needs longer){tail}"
        )
    if settings.url is not None and is_connect_failure(leaf):
        url = one_line(settings.url, secrets)
        return f"could not connect to {url} ({describe_exception(leaf, secrets)}){tail}"
    return f"it stopped before it was ready ({describe_exception(leaf, secrets)}){tail}"


# What httpx raises when no connection could be made (refused, no such host, no route).
CONNECT_FAILURES = {"ConnectError", "ConnectTimeout"}


def is_connect_failure(error: BaseException) -> bool:
    """True when `error` says the server was never reached (it never started for us)."""
    return type(error).__name__ in CONNECT_FAILURES or isinstance(error, ConnectionRefusedError)


def describe_end(settings: McpServerSettings, stderr: str) -> str:
    """Why a ready server is failed now: it exited (or hung up), with its last stderr
    lines (`stderr`, already redacted). A fact, no advice: how to start it again depends
    on where it is read (the REPL's notice says `/mcp restart`, `-p` has none)."""
    what = "exited" if settings.command is not None else "closed its connection"
    return f"it {what} after it was ready{describe_stderr(stderr)}"


def describe_unanswered(seconds: float, during: str, stderr: str) -> str:
    """Why agent-cli ended a stdio server `during` a call or the handshake ("": between
    calls): the process it started for it exited and the server did not answer MCP's
    ping (`exit_probe`) in `seconds` (nor a call in flight then, in its time); `stderr`
    (its last lines) already redacted. Not "its connection broke": agent-cli ended it."""
    when = f" {during}" if during else ""
    return (
        f"the process agent-cli started for it exited and the server did not answer a ping "
        f"in {round(seconds, 1):g} s, so agent-cli ended it{when}{describe_stderr(stderr)}"
    )


def describe_stderr(stderr: str) -> str:
    """The clause a reason ends with for a server's last stderr lines (`stderr`, already
    redacted: `stderr_lines`), "" when it wrote none."""
    return f"; its last stderr lines: {stderr}" if stderr else ""


def describe_broken_message(quoted: str, during: str = "", *, too_deep: bool = False) -> str:
    """Why a stdio server was stopped: it wrote a broken JSON-RPC message (`stray_lines`)
    to its stdout, `during` a call or the handshake; `quoted` is the line's start, already
    redacted and quoted (`stray_lines.quote_line`). `too_deep`: the line was JSON, but
    nested deeper than it can be read (the server is not to blame for a bad line)."""
    when = f" {during}" if during else ""
    if too_deep:
        return (
            f"it wrote a JSON-RPC message nested too deeply to read{when}: {quoted} (its "
            "objects and arrays go hundreds of levels deep)"
        )
    return (
        f"it wrote a line to stdout that is not valid JSON-RPC{when}: {quoted} (an MCP "
        "server must write only JSON-RPC messages there, one a line)"
    )


def describe_stray_line(quoted: str) -> str:
    """What a server that left a call without an answer had written to stdout instead (a
    line the SDK skipped, `stray_lines`), to append to the reason."""
    return (
        f"; meanwhile it wrote a line to stdout that is not JSON-RPC: {quoted} (an MCP "
        "server must write its logs to stderr)"
    )


def innermost(error: BaseException) -> BaseException:
    """The first plain exception inside exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


CONNECTION_CLOSED = (-32000, "Connection closed")  # what the SDK raises when it ends


def error_answer(error: BaseException) -> tuple[int, str] | None:
    """(code, message) when `error` is a JSON-RPC error the server answered with (any
    code, as the MCP spec allows: -32602 for invalid params, its own for the rest), None
    for anything else, including the error the SDK raises itself when the connection
    ends."""
    leaf = innermost(error)
    if type(leaf).__name__ not in {"MCPError", "McpError"}:
        return None
    code, message = getattr(leaf, "code", None), getattr(leaf, "message", None)
    if not isinstance(code, int) or not isinstance(message, str):
        return None
    return None if (code, message) == CONNECTION_CLOSED else (code, message)


def is_too_deep_to_send(error: BaseException) -> bool:
    """True when the SDK could not write a call's request for its arguments' nesting
    (pydantic's serializer stops at about 250 levels): nothing was sent, the server is
    fine. Its words only: the error has no type of its own."""
    leaf = innermost(error)
    return isinstance(leaf, ValueError) and "serialization depth" in str(leaf)


def is_broken_connection(error: BaseException) -> bool:
    """True when `error` says the connection to the server is gone (the server is)."""
    leaf = innermost(error)
    name = type(leaf).__name__
    return isinstance(leaf, OSError | EOFError) or name in {
        "ClosedResourceError",
        "BrokenResourceError",
        "EndOfStream",
        "MCPError",  # only the SDK's own "Connection closed" gets here (`error_answer`)
        "McpError",
    }


def one_line(said: str, secrets: SecretForms = NO_SECRETS) -> str:
    """A server's message on one line: `secrets` redacted first, control characters and
    runs of white space made one space, at most 300 characters."""
    text = "".join(c if c.isprintable() else " " for c in secrets.redact(said).strip())
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def describe_exception(error: BaseException, secrets: SecretForms = NO_SECRETS) -> str:
    """The error's type and first line (at most 120 characters), `secrets` redacted
    before the cut."""
    said = secrets.redact(str(error)).strip()
    text = said.splitlines()[0] if said else ""
    text = text if len(text) <= 120 else text[:117] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def stderr_lines(written: str, secrets: SecretForms = NO_SECRETS) -> str:
    """The last `STDERR_TAIL_LINES` lines of what a server wrote to stderr (`written`,
    its kept tail), each at most 200 characters, `secrets` redacted first: the window
    read begins after any secret its start would split, and the lines are cut only once
    nothing is left to redact."""
    with contextlib.suppress(Exception):
        window = written[-(4_000 + secrets.longest_match) :]
        window = window[safe_tail_start(window, max(0, len(window) - 4_000), secrets) :]
        said = secrets.redact(window)
        lines = [line.strip() for line in said.splitlines() if line.strip()]
        return " | ".join(line[:200] for line in lines[-STDERR_TAIL_LINES:])
    return ""
