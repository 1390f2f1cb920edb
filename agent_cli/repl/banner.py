"""The greeting: which model answers, where the session lives, and how to get help.

Contract: `build_banner(session, offline_fallback=..., resumed=...)` returns the lines
shown when a session opens (the caller prints them wrapped at words). On the offline model it says plainly that this is the
offline demo model, how to switch to Claude, and when compaction fires (the small demo
thresholds, unless the user set others); when the offline model was chosen although
ANTHROPIC_API_KEY is set (`api_key_set`), how to switch without asking for the key again.
With approvals off (`approvals_off_by`: "--yes" or the config file's path) it says so
first, and where that came from: writes, commands and MCP calls then run unasked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from agent_cli import __version__
from agent_cli.repl.port import SessionPort
from agent_cli.repl.safe_text import clip_line, clip_path

if TYPE_CHECKING:
    from agent_cli.compaction import CompactionPolicy

CLAUDE_HOW_TO = (
    "To use Claude: set ANTHROPIC_API_KEY (optionally ANTHROPIC_BASE_URL, and "
    "--model to pick a model) and start agent-cli again."
)
CLAUDE_HOW_TO_WITH_KEY = (
    "ANTHROPIC_API_KEY is set: to use Claude, start agent-cli with --provider anthropic "
    "(a flag beats config.toml)."
)


def describe_approvals_off(origin: str) -> str:
    """The warning shown while approvals are off; `origin` is "--yes" or the config
    file's path (`Settings.origins["yes"]`)."""
    where = "--yes" if origin.startswith("--") else f"yes = true in {clip_line(origin, 200)}"
    return f"Approvals are OFF ({where}): writes, commands and MCP calls run without asking."


def describe_approvals(approvals_off_by: str | None) -> str:
    """The `stats` line for approvals: asked, or off and where that came from."""
    if approvals_off_by is None:
        return "on: writes, commands and MCP calls are asked for"
    return describe_approvals_off(approvals_off_by)


def describe_offline(offline_fallback: bool) -> str:
    if offline_fallback:
        return (
            "This is the offline demo model (no API key found): local, deterministic, "
            "made to show tools and compaction at work."
        )
    return "This is the offline demo model (chosen with --provider or the config file)."


def describe_thresholds(policy: CompactionPolicy, *, demo: bool, lifted: bool = False) -> str:
    """When compaction fires; on the demo thresholds, why they are small and how to change
    them, and (`lifted`: the workspace adds MCP servers, instructions or facts to every
    request) that they are measured above what those add."""
    text = (
        f"Compaction starts at {policy.soft_threshold:,} tokens (hard limit {policy.hard_limit:,})"
    )
    if demo:
        text += (
            ": demo thresholds, so that reading a few files shows every layer fire "
            "(--soft-threshold, --hard-limit or config.toml set others)"
        )
    if demo and lifted:
        text += (
            ". They are measured above what this workspace adds to every request (MCP tool "
            "schemas, AGENTS.md, facts and pending items), so they rise as servers start or "
            "facts are added (the toolbar shows them)"
        )
    return text + "."


def describe_window_fit(session: SessionPort, window: int | None = None) -> str | None:
    """One line when the thresholds as set pass the model's window (`window`, when the
    caller knows it) and are lowered to fit it beside the answer, so that no request the
    API would refuse is sent; None when they fit."""
    in_force, as_set = session.policy, session.policy_as_set
    if in_force.hard_limit >= as_set.hard_limit:
        return None
    of_model = f"{clip_line(str(session.provider.model), 60)}'s"
    size = f" {window:,}-token" if window else ""
    return (
        f"Compaction thresholds lowered to soft {in_force.soft_threshold:,} / hard "
        f"{in_force.hard_limit:,} to fit {of_model}{size} window beside its answer (set: "
        f"{as_set.soft_threshold:,} / {as_set.hard_limit:,}; --soft-threshold and "
        "--hard-limit change them)."
    )


def _adds_to_every_request(session: SessionPort) -> bool:
    """True when the workspace adds to every request what the demo thresholds leave aside:
    MCP servers, project instructions, facts or pending items."""
    state = session.durable_state
    has_items = bool(state.facts or state.pending_items)
    return bool(session.mcp_servers() or session.project_instructions.text or has_items)


def build_banner(
    session: SessionPort,
    *,
    offline_fallback: bool,
    resumed: bool,
    demo_thresholds: bool = False,
    approvals_off_by: str | None = None,
    api_key_set: bool = False,
) -> list[Text]:
    provider = session.provider
    lines = [
        Text.assemble(
            (f"agent-cli {__version__}", "bold"),
            " · provider ",
            (clip_line(str(provider.name), 40), "bold cyan"),
            " · model ",
            (clip_line(str(provider.model), 80), "bold cyan"),
        )
    ]
    if approvals_off_by is not None:
        lines.append(Text(describe_approvals_off(approvals_off_by), style="bold red"))
    if provider.name == "offline":
        lines.append(Text(describe_offline(offline_fallback), style="yellow"))
        how_to = CLAUDE_HOW_TO_WITH_KEY if api_key_set else CLAUDE_HOW_TO
        lines.append(Text(how_to, style="yellow"))
        lifted = demo_thresholds and _adds_to_every_request(session)  # measured above it
        thresholds = describe_thresholds(session.policy, demo=demo_thresholds, lifted=lifted)
        lines.append(Text(thresholds, style="cyan"))
    fitted = describe_window_fit(session)
    if fitted is not None:
        lines.append(Text(fitted, style="yellow"))
    lines.append(Text(f"workspace {clip_path(str(session.workspace), 300)}"))
    found = session.project_instructions
    if found.text:
        lines.append(Text(f"project instructions from {clip_line(str(found.source), 40)}"))
    lines.append(
        Text(
            f"session {clip_line(str(session.session_id), 80)} ({'resumed' if resumed else 'new'})"
            f" · transcript {clip_path(str(session.transcript_path), 300)}",
            style="dim",
        )
    )
    lines.append(Text("/help for commands · stats for token usage · Ctrl-D to exit", style="dim"))
    return lines


def build_goodbye(session: SessionPort) -> list[Text]:
    """Where the transcript is and how to come back to it."""
    session_id = clip_line(str(session.session_id), 80)
    return [
        Text(f"transcript: {clip_path(str(session.transcript_path), 300)}"),
        Text(f"resume with: agent-cli --resume {session_id}", style="dim"),
    ]
