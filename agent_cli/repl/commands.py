"""The command table: `/name args` -> handler(context, args), with one-line help each.

Contract: `split_command(line)` tells a command from a message (`/name ...`, or `stats`,
`exit` or `quit` typed bare; a line starting with `//` is a message that starts with `/`);
`message_text(line)` is the message it sends, exactly as typed or pasted.
`check_command_whole(line, placeholder)` refuses a command the user may not have seen
whole (`CommandNotWhole`): one with a long paste in it, shown only as its placeholder, or
one of several lines, which only the free-text commands (`MULTI_LINE_COMMANDS`) take.
`run_command(context, name, args)` runs it and raises `UnknownCommand` or
`CommandUsageError` for the REPL to show as one red line with the usage; errors from
the session (e.g. `DurableStateError`) propagate the same way. Handlers only call the
session and print what `views`/`stats_panel` build; they hold no logic of their own.

The handlers of the durable state are `repl.durable_commands`; what a handler may use
(`CommandContext`) and the argument checks are `repl.command_context`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import RenderableType

from agent_cli.errors import (
    AgentCliError,
    CommandNotWhole,
    CommandUsageError,
    UnknownCommand,
    WorkspaceGone,
    WorkspaceMissing,
)
from agent_cli.events import ToolFinished
from agent_cli.repl import durable_commands, model_views, views
from agent_cli.repl.banner import describe_window_fit
from agent_cli.repl.command_context import (
    CommandContext,
    require_no_args,
    require_one_id,
    say,
)
from agent_cli.repl.context_map import build_context_map
from agent_cli.repl.error_text import (
    describe_error,
    describe_new_session_refused,
    describe_reload_workspace_gone,
    describe_unused_instructions,
)
from agent_cli.repl.help_view import build_help_view
from agent_cli.repl.mcp_view import build_mcp_view, describe_restart_outcome
from agent_cli.repl.pager import show_long
from agent_cli.repl.permissions_view import (
    build_permissions_view,
    describe_approvals_in_force,
    describe_revoked,
    describe_scope,
)
from agent_cli.repl.port import SessionPort
from agent_cli.repl.render import ERROR_STYLE
from agent_cli.repl.session_choice import choose_session
from agent_cli.repl.session_commands import run_sessions_command
from agent_cli.repl.stats_panel import build_stats_panel, render_stats_json
from agent_cli.repl.timeline import build_timeline
from agent_cli.repl.word_wrap import print_at_words

__all__ = [
    "ALIASES",
    "BARE_COMMAND_LINES",
    "COMMANDS",
    "MULTI_LINE_COMMANDS",
    "Command",
    "check_command_whole",
    "command_summaries",
    "message_text",
    "run_command",
    "split_command",
    "suggest_command",
    "usage_of",
]

# Lines that are commands typed without their slash: `stats` (the seed's), and `exit` and
# `quit`, which a terminal user types by habit: sent to the model, they would cost a request.
# Matched in any case (`Exit`, `QUIT`): typed alone, no case of them is a request.
BARE_COMMAND_LINES = {
    "stats": ("/stats", ""),
    "stats --json": ("/stats", "--json"),
    "exit": ("/quit", ""),
    "quit": ("/quit", ""),
}
ALIASES = {"/exit": "/quit", "/?": "/help"}
# Names other agents give a command agent-cli has under another name (Claude Code's
# `/cost`): typed here, they are suggested the command that does that, not run by it.
OTHER_AGENTS_NAMES = {"/cost": "/stats", "/usage": "/stats", "/tokens": "/stats"}


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    summary: str
    run: Callable[[CommandContext, str], None]


def split_command(line: str) -> tuple[str, str] | None:
    """(name, args) when `line` is a command, else None (it is a message)."""
    stripped = line.strip()
    if stripped.lower() in BARE_COMMAND_LINES:
        return BARE_COMMAND_LINES[stripped.lower()]
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, *rest = stripped.split(None, 1)
    return name.lower(), (rest[0].strip() if rest else "")


def message_text(line: str) -> str:
    """The message to send for a non-command line: the line exactly as typed or pasted
    (indentation, blank lines and line breaks included: a pasted snippet must reach the
    model as it was), except that `//x` sends `/x`."""
    unindented = line.lstrip()
    return unindented[1:] if unindented.startswith("//") else line


# The commands whose argument is free text (a focus, a fact, an item, a reason): typed
# over several lines, all on screen, they take them all. Every other command is one line.
MULTI_LINE_COMMANDS = frozenset({"/compact", "/remember", "/todo", "/block"})


def check_command_whole(line: str, placeholder: str | None = None) -> None:
    """Raise `CommandNotWhole` when `line` is a command that must not run as it is.

    `placeholder` is the first long paste in the input as the prompt showed it (None when
    every character was on screen). Why: a paste whose first line is `/sessions delete
    <id>` showed as `[pasted 460 characters]` and deleted a session on Enter, its other
    lines taken as more ids. A command runs only when the user could read all of it, and
    a command of several lines only when it takes free text; else nothing runs and the
    prompt gives the input back (a message that starts with `/` is sent with `//`)."""
    command = split_command(line)
    if command is None:
        return
    name = ALIASES.get(command[0], command[0])
    lines = line.strip().count("\n") + 1
    if placeholder is not None or (lines > 1 and name not in MULTI_LINE_COMMANDS):
        raise CommandNotWhole(name, lines=lines, placeholder=placeholder)


HELP_FLAGS = frozenset({"--help", "-h"})


def run_command(context: CommandContext, name: str, args: str) -> None:
    """Run the command `name` with `args`; `--help` or `-h` alone shows its usage
    instead, for every command (a command that takes free text, like `/compact`'s focus,
    would otherwise act on the flag)."""
    command = COMMANDS.get(ALIASES.get(name, name))
    if command is None:
        raise UnknownCommand(name, suggest_command(name))
    if args in HELP_FLAGS:
        say(context, f"usage: {command.usage}  ({command.summary})", "")
        return
    command.run(context, args)


def suggest_command(name: str) -> str | None:
    """The known command nearest to a mistyped `name` (`/stat` -> `/stats`), or the one
    that does what another agent's command of that name, or near it, does (`/cost`,
    `/costs` -> `/stats`), if any."""
    import difflib

    known = [*COMMANDS, *ALIASES]
    typed = name if name.startswith("/") else "/" + name
    if typed in OTHER_AGENTS_NAMES:
        return OTHER_AGENTS_NAMES[typed]
    prefixed = [candidate for candidate in COMMANDS if candidate.startswith(typed)]
    if len(prefixed) == 1:
        return prefixed[0]
    close = difflib.get_close_matches(typed, known, n=1, cutoff=0.75)
    if close:
        return ALIASES.get(close[0], close[0])
    # a plural or a letter off only (`/costs`, `/token`): these names are short
    other = difflib.get_close_matches(typed, OTHER_AGENTS_NAMES, n=1, cutoff=0.85)
    return OTHER_AGENTS_NAMES[other[0]] if other else None


def usage_of(name: str) -> str | None:
    command = COMMANDS.get(ALIASES.get(name, name))
    return command.usage if command else None


# --- handlers ---------------------------------------------------------------------------


def _help(context: CommandContext, args: str) -> None:
    require_no_args("/help", args)
    context.console.print(
        build_help_view(
            ((command.usage, command.summary) for command in COMMANDS.values()),
            model_requests=_offline_request_forms(context.session),
        )
    )


def _offline_request_forms(session: SessionPort) -> list[str]:
    """On the offline demo model, the requests it understands with this session's tools
    (it knows only a few)."""
    if session.provider.name != "offline":
        return []
    from agent_cli.provider.offline import describe_request_forms

    return describe_request_forms(set(session.tool_names))


def _stats(context: CommandContext, args: str) -> None:
    if args not in ("", "--json"):
        raise CommandUsageError("/stats", "bad_option")
    stats = context.session.stats()
    scopes = context.session.always_allowed()
    approvals = describe_approvals_in_force(context.approvals_off_by, scopes)
    stats = dataclasses.replace(stats, extra={**stats.extra, "approvals": approvals})
    if args == "--json":
        always = [{"kind": s.kind.value, "covers": describe_scope(s)} for s in scopes]
        stats = dataclasses.replace(stats, extra={**stats.extra, "always_allowed": always})
        context.write_plain(render_stats_json(stats) + "\n")  # codes stay for scripts
        return
    unused = _unused_instructions_words(context)
    if unused is not None:
        stats = dataclasses.replace(stats, project_instructions=unused)
    context.console.print(build_stats_panel(stats))


def _unused_instructions_words(context: CommandContext) -> str | None:
    """Plain words for an instructions file that is there but not used; None otherwise."""
    found = context.session.project_instructions
    if found.source is None or found.problem is None:
        return None
    return describe_unused_instructions(found.source, found.problem)


def _compact(context: CommandContext, args: str) -> None:
    context.render_events(context.session.compact_now(args or None))


def _summary(context: CommandContext, args: str) -> None:
    """The summary every request carries, after the dotenv check a request runs first."""
    require_no_args("/summary", args)
    context.render_events(context.session.learn_dotenv_changes())
    text = context.session.last_summary()
    if text is None:
        say(context, "No summary yet: the conversation has not been summarized.", "dim")
        return
    context.console.print(views.build_summary_view(text))


def _context(context: CommandContext, args: str) -> None:
    """The next request as it would go: the dotenv files are checked first, as before a
    request, so a value written to one since is hidden here too and said."""
    require_no_args("/context", args)
    context.render_events(context.session.learn_dotenv_changes())
    preview = context.session.context_preview()
    unused = _unused_instructions_words(context)
    if unused is not None:
        preview = dataclasses.replace(preview, project_source=unused)
    summary = context.session.last_summary()
    stats = context.session.stats()
    context.console.print(build_context_map(stats, context.console.width))
    context.console.print(views.build_context_view(preview, summary))


def _mcp(context: CommandContext, args: str) -> None:
    words = args.split()
    if words and words[0] == "restart":
        _restart_mcp(context, require_one_id("/mcp", " ".join(words[1:])))
    elif words:
        raise CommandUsageError("/mcp", "unexpected_argument")
    context.console.print(build_mcp_view(context.session.mcp_servers()))


def _restart_mcp(context: CommandContext, name: str) -> None:
    """Say it is restarting, restart it (this waits for the outcome), then say how it
    went: ready, failed and why, or still starting."""
    servers = context.session.mcp_servers()
    if any(s.name == name and s.status == "disabled" for s in servers):
        say(
            context,
            f"MCP server {name} is turned off in config.toml (enabled = false); set "
            "enabled = true there and start agent-cli again to use it.",
            "yellow",
        )
        return
    if not any(s.name == name for s in servers):
        say(context, f"No MCP server is named {name!r}; /mcp lists them.", "yellow")
        return
    say(context, f"Restarting MCP server {name}…", "dim")
    if not context.session.restart_mcp(name):
        say(context, f"No MCP server is named {name!r}; /mcp lists them.", "yellow")
        return
    after = next((s for s in context.session.mcp_servers() if s.name == name), None)
    words, style = describe_restart_outcome(name, after)
    say(context, words, style)


def _permissions(context: CommandContext, args: str) -> None:
    """`/permissions`: the "always" answers in force; `revoke <number>` takes one back,
    `reset` all of them."""
    words = args.split()
    scopes = context.session.always_allowed()
    if not words:
        off = context.approvals_off_by is not None
        print_at_words(context.console, build_permissions_view(scopes, off))
        return
    if words == ["reset"]:
        context.session.revoke_always(None)
        print_at_words(context.console, describe_revoked(scopes))
        return
    if words == ["revoke"]:
        raise CommandUsageError("/permissions", "missing_argument")
    if words[0] != "revoke" or len(words) != 2:
        raise CommandUsageError("/permissions", "unknown_argument")
    number = words[1]
    is_number = number.isascii() and number.isdigit() and len(number) <= 6
    if not (is_number and 1 <= int(number) <= len(scopes)):
        raise CommandUsageError("/permissions", "no_such_answer")
    scope = scopes[int(number) - 1]
    context.session.revoke_always(scope)
    print_at_words(context.console, describe_revoked([scope]))


def _timeline(context: CommandContext, args: str) -> None:
    require_no_args("/timeline", args)
    context.console.print(build_timeline(context.session.stats(), context.console.width))


def _last(context: CommandContext, args: str) -> None:
    """The last result whole: its artifact read back when it was stored as one, through
    the pager when it is taller than the screen (`pager.show_long`). The dotenv files are
    checked first, as before a request, and what was kept of the result is shown with
    every secret known then redacted: a value written to `.env` since the call ran is
    hidden here as it is from the next request."""
    require_no_args("/last", args)
    context.render_events(context.session.learn_dotenv_changes())
    show_long(context.console, _build_last_view(context, _last_result(context)))


def _last_result(context: CommandContext) -> ToolFinished | None:
    """The last result as the REPL kept it, redacted of the secrets known now."""
    result = context.last_tool_result()
    if result is None:
        return None
    redact = context.session.redact_known_secrets
    return dataclasses.replace(result, summary=redact(result.summary), output=redact(result.output))


def _build_last_view(context: CommandContext, result: ToolFinished | None) -> RenderableType:
    if result is None or result.artifact_pointer is None:
        return views.build_last_result_view(result)
    pointer = result.artifact_pointer
    handle = context.pointer_handles.number_for(pointer)
    try:
        whole = context.session.read_tool_output(pointer)
    except AgentCliError as problem:  # the preview is still there to show
        return views.build_last_result_view(
            result, read_problem=describe_error(problem), handle=handle
        )
    return views.build_last_result_view(result, whole, handle=handle)


def _resume(context: CommandContext, args: str) -> None:
    """`/resume <id>`, a unique start of an id, or a session's number in `/sessions`."""
    typed = require_one_id("/resume", args)
    current = context.session.session_id
    session_id = choose_session(typed, context.list_sessions(), current)
    if session_id == current:
        raise CommandUsageError("/resume", "already_current")
    context.switch_session(session_id)


def _new(context: CommandContext, args: str) -> None:
    """A fresh session in the folder agent-cli was started in; refused, with what to do,
    when that folder is gone (this session stays open)."""
    require_no_args("/new", args)
    try:
        context.switch_session(None)
    except WorkspaceMissing as missing:
        refused = describe_new_session_refused(missing, context.session.session_id)
        say(context, refused, style=ERROR_STYLE)


def _model(context: CommandContext, args: str) -> None:
    session = context.session
    if args:
        switched = session.switch_model(args)
        window_fit = describe_window_fit(session, switched.context_window)
        context.console.print(model_views.build_model_switched(switched, window_fit))
    elif session.provider.name == "offline":
        context.console.print(model_views.build_offline_model(session.provider.model))
    else:
        from agent_cli.models import lookup_model

        current = lookup_model(session.provider.model)
        context.console.print(model_views.build_model_list(current, session.list_models()))


def _reload(context: CommandContext, args: str) -> None:
    """AGENTS.md read again; when the workspace folder is gone, that is said, and requests
    keep what they carried (`Session.reload_project_instructions`)."""
    require_no_args("/reload", args)
    try:
        found = context.session.reload_project_instructions()
    except WorkspaceGone as gone:
        kept = context.session.project_instructions.source
        say(context, describe_reload_workspace_gone(gone, kept), style=ERROR_STYLE)
        return
    print_at_words(context.console, model_views.build_instructions_reloaded(found))


def _quit(context: CommandContext, args: str) -> None:
    require_no_args("/quit", args)
    context.request_quit()


COMMANDS: dict[str, Command] = {
    command.name: command
    for command in (
        Command("/help", "/help", "list the commands and keys", _help),
        Command(
            "/stats",
            "/stats [--json]",
            "token usage, limits, compactions (--json for scripts)",
            _stats,
        ),
        Command(
            "/compact",
            "/compact [focus]",
            "compact the context now; the focus steers the summary",
            _compact,
        ),
        Command("/summary", "/summary", "the last compaction summary, in full", _summary),
        Command(
            "/context",
            "/context",
            "the context map (the window by kind of content), then the next request, one line a message",
            _context,
        ),
        Command(
            "/mcp",
            "/mcp [restart <server>]",
            "the MCP servers: state, tools, what their schemas cost; restart one",
            _mcp,
        ),
        Command(
            "/permissions",
            "/permissions [revoke <number> | reset]",
            'the "always" answers in force; take one back, or all of them',
            _permissions,
        ),
        Command(
            "/timeline",
            "/timeline",
            "the context size at each request, the thresholds, and where compaction fired",
            _timeline,
        ),
        Command(
            "/remember",
            "/remember <fact>",
            "keep a fact in the durable state",
            durable_commands.remember_command,
        ),
        Command(
            "/todo",
            "/todo <text>",
            "add a pending item to the durable state",
            durable_commands.todo_command,
        ),
        Command("/done", "/done <id>", "mark a pending item done", durable_commands.done_command),
        Command(
            "/block",
            "/block <id> <reason>",
            "mark a pending item blocked, with why",
            durable_commands.block_command,
        ),
        Command(
            "/forget",
            "/forget <id>",
            "drop a fact (F1) or pending item (T1) for good",
            durable_commands.forget_command,
        ),
        Command(
            "/facts",
            "/facts [bring]",
            "the durable state, with each source's status now; bring: this session's "
            "items kept for another folder",
            durable_commands.facts_command,
        ),
        Command(
            "/sources",
            "/sources",
            "resolve every source pointer now, with reasons",
            durable_commands.sources_command,
        ),
        Command(
            "/expand",
            "/expand <number | pointer>",
            "show the record or artifact behind a pointer (the number shown after it)",
            durable_commands.expand_command,
        ),
        Command("/last", "/last", "the last tool call's whole output", _last),
        Command(
            "/model",
            "/model [id]",
            "show the model and the ones to choose from; with an id, switch to it",
            _model,
        ),
        Command(
            "/reload",
            "/reload",
            "read AGENTS.md (or CLAUDE.md) again for the next requests",
            _reload,
        ),
        Command(
            "/sessions",
            "/sessions [delete <id>... | delete --older-than <days> [--all-folders]]",
            "list saved sessions (first request, turns, tokens), or delete some",
            run_sessions_command,
        ),
        Command(
            "/resume",
            "/resume <id | start of an id | number>",
            "switch to a saved session (its number in /sessions will do)",
            _resume,
        ),
        Command("/new", "/new", "start a fresh session (this one stays on disk)", _new),
        Command("/quit", "/quit", "leave (Ctrl-D, or exit typed bare, does the same)", _quit),
    )
}


def command_summaries() -> dict[str, str]:
    """Name -> one-line help, for completion."""
    return {name: command.summary for name, command in COMMANDS.items()}
