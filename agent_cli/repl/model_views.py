"""What `/model` and `/reload` show: the current model, the models to choose from, the
project instructions in use.

Contract: each `build_*` function turns values from the session into a rich renderable
and does nothing else; outside strings (model ids and names from the Models API) are
clipped and shown as `Text`, never as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agent_cli.repl.error_text import (
    describe_instructions_problem,
    describe_instructions_redaction,
    explain_models_api_problem,
)
from agent_cli.repl.safe_text import clip_line

if TYPE_CHECKING:
    from agent_cli.models import ModelInfo
    from agent_cli.session.instructions import ProjectInstructions
    from agent_cli.session.model_choice import ModelListing


def describe_model(info: ModelInfo) -> str:
    """`claude-x (Claude X) · context window 1,000,000 · $2.00 in / $10.00 out per MTok`."""
    name = clip_line(str(info.model_id), 80)
    if not info.known:
        return (
            f"{name} · not in agent-cli's model table: context window assumed "
            f"{info.context_window:,}, cost shown in tokens only"
        )
    prices = info.prices  # every model of the table has them; a row without shows none
    price = (
        f" · ${prices.input:,.2f} in / ${prices.output:,.2f} out per million tokens"
        if prices is not None
        else ""
    )
    return f"{name} ({info.display_name}) · context window {info.context_window:,}{price}"


def build_model_switched(info: ModelInfo, window_fit: str | None = None) -> RenderableType:
    """The switch, and `window_fit` (`banner.describe_window_fit`) when the new model's
    window lowers the thresholds."""
    switched = Text(f"model is now {describe_model(info)}, for the rest of this session", "green")
    return switched if window_fit is None else Group(switched, Text(window_fit, "yellow"))


def build_model_list(current: ModelInfo, listing: ModelListing) -> Group:
    """The current model, then the models to choose from, marked where it matters."""
    parts: list[RenderableType] = [
        Text.assemble(("model ", "bold"), describe_model(current)),
        Text(_describe_source(listing), style="dim"),
    ]
    table = Table.grid(padding=(0, 2))
    for _ in range(4):
        table.add_column(no_wrap=True)
    for model in listing.models:
        marker = "*" if model.model_id == current.model_id else ""
        notes = []
        if model.lifecycle and model.lifecycle != "active":
            notes.append(clip_line(str(model.lifecycle), 20))
        if not model.priced:
            notes.append("no prices in agent-cli's table")
        table.add_row(
            Text(marker),
            Text(clip_line(model.model_id, 80)),
            Text(clip_line(model.display_name, 60)),
            Text(", ".join(notes), style="yellow"),
        )
    parts.append(table)
    parts.append(Text("/model <id> switches for the rest of this session", style="dim"))
    return Group(*parts)


def _describe_source(listing: ModelListing) -> str:
    if listing.source == "api":
        return "models (from the Models API):"
    why = explain_models_api_problem(listing.problem, listing.url)
    return f"models (from agent-cli's model table; {clip_line(why, 240)}):"


def build_offline_model(model: str) -> Text:
    return Text(
        f"model {clip_line(model, 80)}: the offline demo model, the only one offline. To use "
        "Claude, set ANTHROPIC_API_KEY and start again (--model picks the model).",
        style="yellow",
    )


def build_instructions_reloaded(found: ProjectInstructions) -> Text:
    """The outcome of `/reload` in one line."""
    if found.source is None:
        return Text("no AGENTS.md or CLAUDE.md in the workspace root: requests carry none")
    if found.problem is not None:
        return Text(describe_instructions_problem(found.source, found.problem), style="yellow")
    cut = ", cut to its first part" if found.truncated else ""
    reloaded = Text(
        f"reloaded {found.source} ({found.size_bytes:,} bytes{cut}); the next request carries it",
        style="green",
    )
    if found.redacted:
        reloaded.append(
            "\n" + describe_instructions_redaction(found.source, found.redacted), style="yellow"
        )
    return reloaded
