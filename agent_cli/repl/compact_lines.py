"""The words of the `[compact]` log: one line per layer that fired, then a total.

Contract: pure functions from compaction events to plain strings, so every format can be
tested exactly, e.g.
`[compact] L1 truncate tool results: 91,204 -> 78,530 tokens (-12,674; 3 results cut)`
`[compact] total: 91,204 -> 41,000 tokens (-50,204) in 3 layers`.
A layer that runs once more in the same compaction (at the hard limit) is worded as that
re-run and counted once. Numbers come from the events; nothing is computed here but
differences and plurals.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_cli.compaction.results import NOTHING_NEW_TO_SUMMARIZE
from agent_cli.compaction_layers import DEDUP, LAYER_CODES, PRUNE, SUMMARY, TRUNCATE
from agent_cli.events import (
    CompactionFired,
    CompactionSkipped,
    LayerLine,
    RequestBlocked,
    StreamRestarted,
)
from agent_cli.repl.safe_text import COMPACT_TAG, clip_line
from agent_cli.session.durable_room import is_room_left
from agent_cli.tools.output import count_noun

# The layers' plain names, the REPL's words for the codes of the one table of layers
# (`agent_cli.compaction_layers`).
LAYER_NAMES = {
    TRUNCATE.code: "truncate tool results",
    DEDUP.code: "drop repeated file reads",
    PRUNE.code: "prune old messages",
    SUMMARY.code: "summarize",
}


# A layer's words when it runs once more in the same compaction, which happens only to a
# view still at or over the hard limit (`compaction.hard_limit`): L1 with the tool results
# sharing the room left, L3 keeping only the step the model is in.
RERUN_NAMES = {
    TRUNCATE.code: "once more, tool results sharing the room left",
    PRUNE.code: "once more, keeping only the step the model is in",
}


def layer_name(code: str, *, again: bool = False) -> str:
    """`L1` -> `truncate tool results`; `again`: its words when it runs once more in the
    same compaction (`RERUN_NAMES`); an unknown code stands for itself."""
    name = LAYER_NAMES.get(code, code)
    return RERUN_NAMES.get(code, f"{name} once more") if again else name


def distinct_layers(codes: Sequence[str]) -> tuple[str, ...]:
    """Each layer of `codes` once, in the order each first ran: L1 run twice (the second
    time with the results sharing the room) is one layer."""
    return tuple(dict.fromkeys(codes))


def describe_layers_run(codes: Sequence[str]) -> str:
    """The layers of one compaction as `stats` lists them: `L1+L2+L3`, each once."""
    return "+".join(clip_line(code, 8) for code in distinct_layers(codes)) or "no layer"


def describe_layer_effect(line: LayerLine) -> str:
    """What the layer removed, in the words of that layer."""
    if line.layer == TRUNCATE.code:
        return count_noun(line.results_truncated, "result") + " cut"
    if line.layer == DEDUP.code:
        return count_noun(line.interactions_removed, "repeated read") + " dropped"
    if line.layer == PRUNE.code:
        if not line.interactions_removed:
            return f"{count_noun(line.messages_removed, 'message')} pruned"
        return (
            f"{count_noun(line.messages_removed, 'message')}, "
            f"{count_noun(line.interactions_removed, 'interaction')} pruned"
        )
    if line.layer == SUMMARY.code:
        return f"summarized {count_noun(line.messages_removed, 'message')}"
    counts = [
        (line.results_truncated, "result", "cut"),
        (line.interactions_removed, "interaction", "removed"),
        (line.messages_removed, "message", "removed"),
    ]
    parts = [f"{count_noun(n, word)} {verb}" for n, word, verb in counts if n]
    return ", ".join(parts) or "nothing removed"


def signed_change(before: int, after: int) -> str:
    """The change from `before` to `after` with its sign: `-441` when tokens were freed,
    `+13` when a step grew the view (a summary `/compact` asked for may be larger than
    what it replaced), `0` when nothing moved."""
    change = after - before
    return f"{change:+,}" if change else "0"


def format_layer_line(line: LayerLine, *, again: bool = False) -> str:
    """The `[compact]` line of one layer; `again` when it ran before in this compaction."""
    name = layer_name(line.layer, again=again)
    return (
        f"{COMPACT_TAG} {clip_line(line.layer, 8)} {clip_line(name, 60)}: "
        f"{line.tokens_before:,} -> {line.tokens_after:,} tokens "
        f"({signed_change(line.tokens_before, line.tokens_after)}; "
        f"{describe_layer_effect(line)})"
    )


def format_total_line(event: CompactionFired) -> str:
    requested = " (requested with /compact)" if event.forced else ""
    return (
        f"{COMPACT_TAG} total: {event.tokens_before:,} -> {event.tokens_after:,} tokens "
        f"({signed_change(event.tokens_before, event.tokens_after)}) in "
        f"{count_noun(len(distinct_layers([line.layer for line in event.layers])), 'layer')}"
        f"{requested}"
    )


def format_compaction(event: CompactionFired) -> list[str]:
    """Every line of one compaction: the layers in the order they ran, then the total;
    a focused summary says what it focused on, and a focus no summary used says so."""
    codes = [line.layer for line in event.layers]
    lines = [
        format_layer_line(line, again=line.layer in codes[:at])
        for at, line in enumerate(event.layers)
    ]
    if event.focus:
        focus = clip_line(event.focus, 120)
        if any(line.layer == SUMMARY.code for line in event.layers):
            lines.append(f"{COMPACT_TAG} summary focus: {focus}")
        else:
            lines.append(f"{COMPACT_TAG} no summary was made, so the focus went unused: {focus}")
    return [*lines, format_total_line(event)]


def describe_layer_span(layers: tuple[str, ...]) -> str:
    """`L1-L4` for a run of consecutive layers, `L1+L3` otherwise, each layer once."""
    layers = distinct_layers(layers)
    if not layers:
        return "no layer"
    if len(layers) > 1 and _is_consecutive(layers):
        return f"{layers[0]}-{layers[-1]}"
    return "+".join(clip_line(layer, 8) for layer in layers)


def _is_consecutive(layers: tuple[str, ...]) -> bool:
    if not all(layer in LAYER_CODES for layer in layers):
        return False
    start = LAYER_CODES.index(layers[0])
    return tuple(layers) == LAYER_CODES[start : start + len(layers)]


def format_blocked(event: RequestBlocked) -> list[str]:
    """The blocked line and what the user can do about it (never /compact when one
    message alone, or what the request carries besides the view, is over the limit:
    compaction cannot help then)."""
    done = (
        f"after {describe_layer_span(event.applied_layers)}"
        if event.applied_layers
        else "(no layer run)"
    )
    blocked = (
        f"{COMPACT_TAG} blocked: view is {event.tokens_after:,} tokens {done}, hard limit "
        f"{event.hard_limit:,}; nothing was sent"
    )
    if event.sized_content_counted is not None:
        return [blocked, "  " + describe_sized_content_over(event, event.sized_content_counted)]
    if event.reserved_tokens >= event.hard_limit:
        return [blocked, "  " + describe_full_reserve(event)]
    if is_crowded_by_durable_block(event):
        return [blocked, "  " + describe_crowding_block(event)]
    if event.largest_message_tokens >= event.hard_limit:
        return [
            blocked,
            f"  one message alone is {event.largest_message_tokens:,} tokens, so compacting "
            "cannot help: start a fresh session (/new, or a new run) and save large content "
            f"to a file for the agent to read, or raise --hard-limit (now {event.hard_limit:,})",
        ]
    return [
        blocked,
        "  to go on: /compact <focus> to summarize with a focus, raise --hard-limit "
        f"(now {event.hard_limit:,}), or /new to start a fresh session",
    ]


def is_crowded_by_durable_block(event: RequestBlocked) -> bool:
    """True when what every request carries leaves the conversation under its room
    (`session.durable_room`) and forgetting facts and items would give it back: then
    /forget is what helps, not /compact or /new (the facts go with a new session too)."""
    reserved, durable, hard = event.reserved_tokens, event.durable_tokens, event.hard_limit
    return (
        bool(durable)
        and not is_room_left(reserved, hard)
        and is_room_left(reserved - durable, hard)
    )


def describe_crowding_block(event: RequestBlocked) -> str:
    reserved, durable, hard = event.reserved_tokens, event.durable_tokens, event.hard_limit
    return (
        f"the durable block (your /remember facts and /todo items) is {durable:,} of the "
        f"{reserved:,} tokens every request carries besides the conversation, leaving it "
        f"{hard - reserved:,} of the hard limit; compacting cannot shrink it and a new "
        "session carries it too: /forget the facts and items no longer needed (/facts lists "
        f"them), or raise --hard-limit (now {hard:,})"
    )


def describe_sized_content_over(event: RequestBlocked, counted: tuple[int, int]) -> str:
    """Why a request is refused when the frame is under the limit by its own measure but
    the last request's count, with images or documents in its view, scales it over."""
    api, estimate = counted
    return (
        f"what every request carries besides the conversation is {event.reserved_tokens:,} "
        f"tokens, under the limit; but the API counted the last request at {api:,} tokens "
        f"against an estimate of {estimate:,}: an image or a document in the conversation "
        "is billed above its estimate, and the request is weighed at that count. /new starts "
        "a session without it, or raise --hard-limit "
        f"(now {event.hard_limit:,})"
    )


def describe_full_reserve(event: RequestBlocked) -> str:
    """What fills the reserve that is alone over the hard limit, and what makes room. The
    project instructions are named as the cause when they are at least half of it and more
    than the durable block; the durable block when forgetting facts and items would be
    enough (the rest fits under the limit), and its share is named whenever it has one."""
    reserved, durable, hard = event.reserved_tokens, event.durable_tokens, event.hard_limit
    instructions = event.instructions_tokens
    if instructions > durable and instructions * 2 >= reserved:
        source = event.instructions_source or "the project instructions file"
        return (
            f"the project instructions ({source}) are {instructions:,} of the {reserved:,} "
            "tokens every request carries besides the conversation, so neither compacting "
            f"nor /new can help: shorten {source} and run /reload, or raise --hard-limit "
            f"(now {hard:,})"
        )
    if durable and reserved - durable < hard:
        return (
            f"the durable block (your /remember facts and /todo items) is {durable:,} of the "
            f"{reserved:,} tokens every request carries besides the conversation, so neither "
            "compacting nor /new can help: /forget the facts and items no longer needed "
            f"(/facts lists them), or raise --hard-limit (now {hard:,})"
        )
    share = f", the durable block {durable:,} of them" if durable else ""
    return (
        "what every request carries besides the conversation (system prompt, project "
        "instructions, tool schemas, MCP servers' included, durable block) is "
        f"{reserved:,} tokens alone{share}, so neither compacting nor /new can help: "
        "/context shows what takes the room; turn off MCP servers in config.toml (/mcp "
        "lists them), /forget facts no longer needed (/facts lists them), or raise "
        "--hard-limit "
        f"(now {hard:,})"
    )


def format_skipped(
    event: CompactionSkipped, *, explained: bool = False, one_shot: bool = False
) -> str:
    """The `[compact]` line of a skipped or paused compaction. `explained`: a pause for
    the same reason was already explained in full on this screen, so one short line
    says what it waits for (a small soft threshold can pause after nearly every turn).
    `one_shot` (`-p`): no command can be typed after the turn, so what makes room is said
    in command-line words (`_MAKE_ROOM_ONE_SHOT`), not as /compact or /new."""
    if event.reason == "loop_guard":
        if explained:
            return _format_held_again(event)
        return _format_held(event, one_shot=one_shot)
    if event.reason == "nothing_to_compact" and event.held == NOTHING_NEW_TO_SUMMARIZE:
        return (
            f"{COMPACT_TAG} nothing new to compact since the last compaction: view is "
            f"{event.tokens:,} tokens (summarizing it again, with a focus or not, could "
            "only lose detail; no summary was asked for)"
        )
    if event.reason == "nothing_to_compact":
        return f"{COMPACT_TAG} nothing to compact: view is {event.tokens:,} tokens"
    if event.reason == "summary_not_smaller":
        return (
            f"{COMPACT_TAG} not compacted: the summary was not smaller than the messages it "
            f"would replace, so it was not used; view stays {event.tokens:,} tokens"
        )
    return f"{COMPACT_TAG} skipped ({clip_line(event.reason, 40)}): view is {event.tokens:,} tokens"


_MAKE_ROOM = "To make room now: /compact (a summary, with a focus if you give one) or /new."
# After a summary the older part is that summary alone: /compact would keep the same
# recent messages and free next to nothing (the tester's 49 tokens), so it is not offered.
_MAKE_ROOM_AFTER_SUMMARY = (
    "To make room now: /new (facts and pending items go with it); /compact would keep the "
    "same recent messages beside the summary, so it frees little until more turns pass."
)

# `-p` runs one turn: no /compact or /new can follow it, and the next run decides whether
# it goes on from this session (--continue, --resume) or starts one with room.
_MAKE_ROOM_ONE_SHOT = (
    "To make room: run agent-cli -p without --continue or --resume for a new session "
    "(with --continue, the next run goes on from this one as it is)."
)


_HELD_AGAIN = {
    "over_soft": "still over the soft threshold ({tokens:,} of {soft:,} tokens)",
    "freed_little": "that compaction freed only {freed:,} tokens",
    "short_of_aim": "that compaction left {tokens:,} tokens",
    "summary_not_worth_it": "a summary would still replace too little to be worth its request",
}


def _format_held_again(event: CompactionSkipped) -> str:
    """A pause whose reason `_format_held` already explained: the figures, in one line."""
    what = _HELD_AGAIN.get(event.held or "", "nothing could be compacted").format(
        tokens=event.tokens, soft=event.soft_threshold, freed=event.freed
    )
    return (
        f"{COMPACT_TAG} {what}; as before, compaction waits until the context passes "
        f"{event.retry_at:,} tokens"
    )


def _format_held(event: CompactionSkipped, *, one_shot: bool = False) -> str:
    """Why compaction pauses, what it waits for, and what the user can do (the loop
    guard), in the words that are true for this case (and for `-p`, `one_shot`)."""
    if event.held == "over_soft":
        what = (
            f"still over the soft threshold after compacting ({event.tokens:,} of "
            f"{event.soft_threshold:,} tokens): what is left is recent or kept on purpose."
        )
    elif event.held == "freed_little":
        what = f"that compaction freed only {event.freed:,} tokens."
    elif event.held == "short_of_aim":
        what = (
            f"that compaction left {event.tokens:,} tokens, close to the soft threshold "
            f"({event.soft_threshold:,}): what is left is recent or a long summary, so "
            f"compacting again at once would buy little and cost a summary each turn."
        )
    elif event.held == "summary_not_worth_it":
        what = (
            "the layers that cost no request found nothing to remove, and a summary would "
            "replace under a quarter of the room, too little to be worth its request (the "
            "rest is recent, or what every request carries: instructions, tools, facts), so "
            "none was asked for."
        )
    else:
        what = "nothing could be compacted: no layer found anything to remove."
    waits = (
        f"Compaction waits until the context passes {event.retry_at:,} tokens "
        f"(at the hard limit, {event.hard_limit:,}, it always runs)."
    )
    if one_shot:
        make_room = _MAKE_ROOM_ONE_SHOT
    elif event.summary_would_help:
        make_room = _MAKE_ROOM
    else:
        make_room = _MAKE_ROOM_AFTER_SUMMARY
    return f"{COMPACT_TAG} {what} {waits} {make_room}"


def format_retry(event: StreamRestarted, *, void_text_shown: bool = False) -> str:
    """The line shown when the provider retries: `retrying (overloaded) in 2.0 s…`;
    `void_text_shown` when part of the failed answer stays on the screen above it."""
    line = f"retrying ({clip_line(event.kind, 40)}) in {event.delay_seconds:.1f} s…"
    if void_text_shown:
        line = f"the answer above broke off and is void; {line}"
    return line
