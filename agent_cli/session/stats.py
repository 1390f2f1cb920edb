"""Where every token goes: the figures behind `stats`, the toolbar gauge and `/context`.

Pure over the session's values, read through its `TurnRunner` and the parts it holds:
counts come from the session's counter, usage and
compactions from the transcript totals.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from agent_cli.compaction.markers import is_digest_message, is_summary_message
from agent_cli.durable.verification import source_statuses
from agent_cli.events import ContextPreview, Gauge, SessionStats
from agent_cli.image_notes import find_view_images, left_out_deltas
from agent_cli.models import lookup_model
from agent_cli.protocol import validate_tool_protocol

if TYPE_CHECKING:
    from agent_cli.session.turn import TurnRunner

# the five resolution statuses, and `changed` (available, but not what its item was made from)
STATUSES = ("available", "changed", "missing", "denied", "corrupt", "unsupported")
MAX_TIMELINE = 2_000  # entries of the timeline `stats` hands on (the newest)
CATEGORIES = (
    "system_prompt",
    "project_instructions",
    "durable_context",
    "tool_schemas",
    "user_text",
    "assistant_text",
    "tool_calls",
    "tool_results",
    "compaction_summary",
    "compaction_digest",
)
_BLOCK_CATEGORIES = {"tool_use": "tool_calls", "tool_result": "tool_results"}


def count_view_by_category(counter: Any, view: list[dict[str, Any]]) -> dict[str, int]:
    """Tokens of the view by category: user and assistant text, tool calls and results,
    and what compaction wrote (the summary, the running digest: user messages, but not
    the user's words). Each message's whole count, its framing included, goes to its
    categories, so they add up to the view's count (`count_view`) exactly; an image the
    request leaves out weighs, in its block's category, the note sent in its place."""
    totals = dict.fromkeys(CATEGORIES[4:], 0)
    for message in view:
        parts = _message_parts(counter, message)
        framing = counter.count_message(message) - sum(tokens for _, tokens in parts)
        totals[parts[0][0] if parts else _text_category(message)] += framing
        for category, tokens in parts:
            totals[category] += tokens
    images = [image for message in view for image in find_view_images(message)]
    where = [category for message in view for category in _image_category(message)]
    for at, delta in left_out_deltas(images, counter.count_text).items():
        totals[where[at]] += delta
    return totals


def _image_category(message: dict[str, Any]) -> list[str]:
    """The category of each image of `message`, in `find_view_images` order."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    found: list[str] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") in ("image", "tool_result"):
            in_block = len(find_view_images({"content": [block]}))
            found += [_block_category(block, _text_category(message))] * in_block
    return found


def _message_parts(counter: Any, message: dict[str, Any]) -> list[tuple[str, int]]:
    """(category, tokens) of each block of `message`; one part for a message that is all
    one category (plain text, the summary, the digest)."""
    content = message.get("content")
    whole = _compaction_category(message)
    if whole is not None or not isinstance(content, list):
        return [(whole or _text_category(message), counter.count_content(content))]
    text = _text_category(message)
    return [(_block_category(block, text), counter.count_block(block)) for block in content]


def _block_category(block: Any, text_category: str) -> str:
    kind = block.get("type") if isinstance(block, dict) else None
    return _BLOCK_CATEGORIES.get(str(kind), text_category)


def _compaction_category(message: dict[str, Any]) -> str | None:
    if is_digest_message(message):
        return "compaction_digest"
    if is_summary_message(message):
        return "compaction_summary"
    return None


def _text_category(message: dict[str, Any]) -> str:
    return "user_text" if message.get("role") == "user" else "assistant_text"


def next_request_tokens(runner: TurnRunner, durable_text: str) -> int:
    """THE "how full is the context" figure, shown alike by the toolbar, `stats` and
    `/context`: what the next request would carry (system prompt, durable block, tool
    schemas and the view, counted by the estimator) in API tokens (times the calibration
    measured on the last request; offline, the estimate as is)."""
    compactor = runner.compactor
    return compactor.to_request_tokens(
        runner.reserved_tokens(durable_text) + compactor.view_tokens()
    )


def durable_block_tokens(runner: TurnRunner) -> int:
    """The durable block as last rendered, in API tokens: what every request carries for
    the facts and pending items (no source I/O: the block is kept current by each change)."""
    return runner.compactor.to_request_tokens(runner.counter.count_text(runner.durable.text))


def count_schemas_by_source(counter: Any, schemas: Any) -> dict[str, int]:
    """The tokens of the tool schemas each request carries: "built-in", then one entry per
    MCP server (`mcp_servers.offered_tools` names), only when there is any."""
    from agent_cli.mcp_servers.offered_tools import split_offered_name

    by_source: dict[str, int] = {}
    for schema in schemas:
        offered = split_offered_name(str(schema.get("name", "")))
        source = "built-in" if offered is None else f"MCP {offered[0]}"
        by_source[source] = by_source.get(source, 0) + counter.count_json(schema)
    return by_source if len(by_source) > 1 else {}


def build_stats(runner: TurnRunner) -> SessionStats:
    durable_text = runner.durable.render()
    counter, view, log = runner.counter, runner.conversation.view, runner.conversation.log
    by_category = {
        "system_prompt": counter.count_text(runner.system_prompt),
        "project_instructions": counter.count_text(runner.project_instructions.text),
        "durable_context": counter.count_text(durable_text),
        "tool_schemas": counter.count_json(runner.toolbox.schemas()),
        **count_view_by_category(counter, view),
    }
    totals = log.totals
    total_tokens = sum(by_category.values())
    provider, policy = runner.provider, runner.compactor.policy
    window = provider.context_window
    context_tokens = next_request_tokens(runner, durable_text)  # the gauge's figure too
    resolutions = {r.pointer: r for r in runner.durable.resolutions}
    statuses = Counter(source_statuses(runner.durable.state, resolutions).values())
    return SessionStats(
        provider=provider.name,
        model=provider.model,
        context_window=window,
        soft_threshold=policy.soft_threshold,
        hard_limit=policy.hard_limit,
        tokens_by_category=by_category,
        total_tokens=total_tokens,
        messages_in_view=len(view),
        messages_in_transcript=totals.messages,
        interactions_in_view=len(validate_tool_protocol(view)),
        interactions_in_transcript=totals.interactions,
        estimator=counter.estimator,
        calibration=runner.compactor.calibration,
        last_usage=totals.last_usage,
        total_usage=totals.usage,
        requests=totals.requests,
        compactions=tuple(totals.compactions),
        timeline=tuple(totals.timeline[-MAX_TIMELINE:]),
        timeline_requests_before=count_requests(totals.timeline[:-MAX_TIMELINE]),
        summary_requests=totals.summary_requests,
        tool_schemas_by_source=count_schemas_by_source(counter, runner.toolbox.schemas()),
        source_statuses={name: statuses.get(name, 0) for name in STATUSES},
        session_id=log.session_id,
        transcript_path=log.path,
        extra={"workspace": str(runner.durable.workspace)},
        context_tokens=context_tokens,
        project_instructions=describe_project_instructions(runner.project_instructions),
        **cost_fields(totals.cost),
        model_in_table=lookup_model(provider.model).known,
        thresholds_as_set=_thresholds_as_set(runner),
        context_free=max(0, window - context_tokens),
    )


def count_requests(timeline: list[Any]) -> int:
    """The requests (not the compactions) among `timeline` entries: what the window
    `stats` hands on leaves out, so `/timeline` numbers requests as the session did."""
    return sum(1 for entry in timeline if isinstance(entry, int))


def cost_fields(cost: Any) -> dict[str, Any]:
    """The session's cost as `SessionStats` fields (see there)."""
    priced = cost.priced
    by_category = {
        "input": priced.input_usd,
        "output": priced.output_usd,
        "cache_write": priced.cache_write_usd,
        "cache_read": priced.cache_read_usd,
    }
    return {
        "cost_by_category": by_category if cost.priced_requests else {},
        "unpriced_requests": cost.unpriced_requests,
        "unpriced_models": cost.unpriced_models,
    }


def session_cost_usd(runner: TurnRunner) -> float | None:
    """The toolbar's dollar figure: None on the offline model or before anything is priced."""
    cost = runner.conversation.log.totals.cost
    if runner.provider.name == "offline" or not cost.priced_requests:
        return None
    return cost.priced.total_usd


def describe_project_instructions(found: Any) -> str:
    """Which file the requests carry as project instructions, its size, and any cut."""
    if found.source is None:
        return "none (no AGENTS.md or CLAUDE.md in the workspace root)"
    if found.problem is not None:
        return f"{found.source}: not used ({found.problem})"
    cut = " (cut to its first part)" if found.truncated else ""
    return f"{found.source}, {found.size_bytes:,} bytes{cut}"


def build_gauge(runner: TurnRunner) -> Gauge:
    policy = runner.compactor.policy
    return Gauge(
        # the durable block as last rendered (kept current by every durable change):
        # no source I/O per redraw
        tokens=next_request_tokens(runner, runner.durable.text),
        soft_threshold=policy.soft_threshold,
        hard_limit=policy.hard_limit,
        estimator=runner.counter.estimator,
        context_window=runner.provider.context_window,
        cost_usd=session_cost_usd(runner),
        cost_is_partial=not runner.conversation.log.totals.cost.is_complete,
    )


def build_preview(runner: TurnRunner) -> ContextPreview:
    counter = runner.counter
    view = runner.conversation.view
    lines = tuple(describe_message(i, m, counter) for i, m in enumerate(view))
    durable_text = runner.durable.render()
    return ContextPreview(
        runner.system_prompt,
        durable_text,
        lines,
        project_instructions=runner.project_instructions.text,
        project_source=describe_project_instructions(runner.project_instructions),
        context_window=runner.provider.context_window,
        request_tokens=build_gauge(runner).tokens,
    )


def describe_message(index: int, message: dict[str, Any], counter: Any) -> str:
    """One line for a message: index, role, tokens, and what it holds."""
    content = message.get("content")
    if isinstance(content, str):
        parts = [_clip(content)]
    else:
        parts = [_describe_block(b) for b in content or [] if isinstance(b, dict)]
    tokens = counter.count_message(message)
    return f"#{index} {message.get('role')} ({tokens:,} tok): " + " | ".join(parts)


def _describe_block(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return _clip(str(block.get("text", "")))
    if kind == "tool_use":
        return f"tool_use {block.get('name')}({_clip(str(block.get('input')), 40)})"
    if kind == "tool_result":
        flag = " error" if block.get("is_error") else ""
        return f"tool_result{flag} for {block.get('tool_use_id')}"
    return str(kind)


def _clip(text: str, limit: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _thresholds_as_set(runner: TurnRunner) -> tuple[int, int] | None:
    """The thresholds as set, when the model's window lowered them (`Compactor.policy`)."""
    as_set, in_force = runner.compactor.policy_as_set, runner.compactor.policy
    if in_force.hard_limit >= as_set.hard_limit:
        return None
    return as_set.soft_threshold, as_set.hard_limit
