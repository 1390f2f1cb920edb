"""The durable-state commands: /remember, /todo, /done, /block, /forget, /facts,
/sources and /expand.

Contract: like every handler in `commands`, each only calls the session's durable-state
methods and prints a line or what `views` builds; bad arguments raise `CommandUsageError`,
and the session's errors (e.g. `DurableStateError`) propagate for the REPL to show.
"""

from __future__ import annotations

from agent_cli.durable.verification import source_statuses
from agent_cli.errors import CommandUsageError, DurableBlockTooLarge, PointerHandleUnknown
from agent_cli.repl import views
from agent_cli.repl.command_context import (
    CommandContext,
    require_no_args,
    require_one_id,
    require_text,
    say,
)
from agent_cli.repl.error_text import describe_brought, describe_earlier_items, describe_error
from agent_cli.repl.facts_view import build_facts_view
from agent_cli.repl.pager import show_long
from agent_cli.repl.pointer_forms import show_pointer
from agent_cli.repl.pointer_handles import handle_label, parse_handle
from agent_cli.repl.render import build_error_text
from agent_cli.repl.safe_text import clip_line
from agent_cli.repl.word_wrap import print_at_words


def normalize_item_id(raw: str) -> str:
    """`3` means `T3`: the number alone is what people type after seeing "T3"; `t3`
    means `T3` and `f2` means `F2` (ids are upper case)."""
    if raw.isdigit():
        return f"T{raw}"
    if len(raw) > 1 and raw[0] in "tf" and raw[1:].isdigit():
        return raw.upper()
    return raw


def describe_source(context: CommandContext, pointer: str) -> str:
    """`source transcript:…:9 (/expand 4)`: the pointer with its number, like every
    pointer on screen, so `/expand 4` shows it."""
    label = handle_label(context.pointer_handles.number_for(pointer))
    return f"source {clip_line(show_pointer(pointer), 120)} {label}"


# The durable block's share of the soft threshold past which /remember and /todo warn:
# every request carries the whole block, and no compaction layer can shrink it.
DURABLE_SHARE_WARNED = 4  # a quarter
# A refused text is shown back whole: an item takes at most 2,000 characters.
REFUSED_TEXT_SHOWN = 4_000


def remember_command(context: CommandContext, args: str) -> None:
    text = require_text("/remember", args)
    try:
        fact = context.session.remember(text)
    except DurableBlockTooLarge as refused:
        _show_refused(context, refused, "/remember", text)
        return
    say(
        context,
        f"remembered {clip_line(fact.fact_id, 40)}: {clip_line(fact.content, 160)} · "
        f"{describe_source(context, fact.source_pointer)}",
    )
    warn_if_durable_block_large(context)


def todo_command(context: CommandContext, args: str) -> None:
    text = require_text("/todo", args)
    try:
        item = context.session.add_pending(text)
    except DurableBlockTooLarge as refused:
        _show_refused(context, refused, "/todo", text)
        return
    say(
        context,
        f"added {clip_line(item.item_id, 40)}: {clip_line(item.description, 160)} · "
        f"{describe_source(context, item.source_pointer)}",
    )
    warn_if_durable_block_large(context)


def _show_refused(
    context: CommandContext,
    refused: DurableBlockTooLarge,
    command: str,
    text: str,
    outcome: str = "not added",
) -> None:
    """The refusal, then the user's words whole, to retype once there is room: nothing
    typed is lost (the prompt's history holds the line too)."""
    print_at_words(context.console, build_error_text(describe_error(refused)))
    shown = clip_line(text, REFUSED_TEXT_SHOWN)
    say(context, f"{outcome}, to retype: {command} {shown}", "yellow")


def warn_if_durable_block_large(context: CommandContext) -> None:
    """One line when the durable block passes a quarter of the soft threshold: it is in
    every request and compaction cannot shrink it, so it should not creep up unseen."""
    tokens = context.session.durable_block_tokens()
    soft = context.session.policy.soft_threshold
    if tokens * DURABLE_SHARE_WARNED <= soft:
        return
    say(
        context,
        f"the durable block is now {tokens:,} tokens, over a quarter of the soft threshold "
        f"({soft:,}), in every request and beyond compaction: /forget what is no longer "
        "needed (/facts lists it)",
        "yellow",
    )


def done_command(context: CommandContext, args: str) -> None:
    item_id = normalize_item_id(require_one_id("/done", args))
    context.session.mark_done(item_id)
    say(context, f"{clip_line(item_id, 40)} is done")


def forget_command(context: CommandContext, args: str) -> None:
    raw = require_one_id("/forget", args)
    item_id = raw if raw.isdigit() else normalize_item_id(raw)  # a bare 3: fact or todo?
    context.session.forget(item_id)
    say(context, f"forgot {clip_line(item_id, 40)}: it is no longer in the durable state")


def block_command(context: CommandContext, args: str) -> None:
    parts = args.split(None, 1)
    if not parts:
        raise CommandUsageError("/block", "missing_argument")
    if len(parts) < 2:
        raise CommandUsageError("/block", "missing_reason")
    item_id, reason = normalize_item_id(parts[0]), parts[1].strip()
    try:
        context.session.mark_blocked(item_id, reason)
    except DurableBlockTooLarge as refused:
        _show_refused(context, refused, f"/block {item_id}", reason, "not blocked")
        return
    say(context, f"{clip_line(item_id, 40)} is blocked: {clip_line(reason, 160)}", "yellow")


def facts_command(context: CommandContext, args: str) -> None:
    """`/facts`: the durable state, then a line for each folder that keeps items of this
    session not held here (`session.durable_folder`); `/facts bring` copies those here."""
    if args.split() == ["bring"]:
        _bring_earlier(context)
        return
    if args:
        raise CommandUsageError("/facts", "unknown_argument")
    session = context.session
    context.console.print(
        build_facts_view(session.durable_state, session.resolve_sources(), context.pointer_handles)
    )
    for found in session.earlier_durable():
        say(context, describe_earlier_items(found), "yellow")


def _bring_earlier(context: CommandContext) -> None:
    """`/facts bring`: per folder, what was copied here by id or what kept it apart; or
    that there was nothing to bring."""
    outcomes = [
        found
        for found in context.session.bring_earlier_durable()
        if found.clashes or not found.waiting.is_empty
    ]
    if not outcomes:
        say(context, "nothing to bring: this session's facts and pending items are all here")
    for found in outcomes:
        say(context, describe_brought(found), "yellow" if found.clashes else "green")


def sources_command(context: CommandContext, args: str) -> None:
    """`/sources`: every source pointer with its status. The dotenv files are checked
    first, as before a request and as the other views of recorded text are, so what the
    next request will hide is hidden and said here too."""
    require_no_args("/sources", args)
    context.render_events(context.session.learn_dotenv_changes())
    resolutions = context.session.resolve_sources()
    found = {resolution.pointer: resolution for resolution in resolutions}
    shown = source_statuses(context.session.durable_state, found)  # `changed` as /facts says
    context.console.print(views.build_sources_view(resolutions, context.pointer_handles, shown))


def expand_command(context: CommandContext, args: str) -> None:
    """`/expand <pointer>`, or `/expand 3`: the pointer shown with `(/expand 3)`; through
    the pager when it is taller than the screen, like `/last` (`pager.show_long`). The
    dotenv files are checked first, as before a request, so the excerpt (redacted of the
    secrets known) hides a value written to one since."""
    typed = require_one_id("/expand", args)
    number = parse_handle(typed)
    pointer = typed if number is None else _numbered_pointer(context, number)
    context.render_events(context.session.learn_dotenv_changes())
    show_long(context.console, views.build_expansion_view(context.session.expand(pointer)))


def _numbered_pointer(context: CommandContext, number: int) -> str:
    handles = context.pointer_handles
    pointer = handles.pointer_for(number)
    if pointer is None:
        raise PointerHandleUnknown(number, tuple(handles.recent()))
    return pointer
