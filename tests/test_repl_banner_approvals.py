"""The banner and `stats` say when approvals are off, and where that came from; the
banner on a chosen offline model does not ask for a key that is already set."""

from __future__ import annotations

from repl_fakes import FakeSession
from test_repl_commands import FakeContext, run

from agent_cli.repl.banner import build_banner


def banner_text(**options: object) -> str:
    lines = build_banner(
        FakeSession(),  # type: ignore[arg-type]
        offline_fallback=False,
        resumed=False,
        **options,  # type: ignore[arg-type]
    )
    return "\n".join(line.plain for line in lines)


def test_the_banner_says_approvals_are_off_with_yes_from_the_flag() -> None:
    text = banner_text(approvals_off_by="--yes")
    assert "Approvals are OFF (--yes)" in text
    assert "writes, commands and MCP calls run without asking" in text


def test_the_banner_names_the_config_file_that_turned_approvals_off() -> None:
    text = banner_text(approvals_off_by="/home/u/.config/agent-cli/config.toml")
    assert "Approvals are OFF (yes = true in /home/u/.config/agent-cli/config.toml)" in text


def test_the_banner_says_nothing_of_approvals_while_they_are_asked() -> None:
    assert "Approvals" not in banner_text()


def test_stats_shows_whether_approvals_are_asked_or_off() -> None:
    asked = FakeContext()
    run(asked, "/stats")
    assert "approvals" in asked.shown and "are asked for" in asked.shown
    off = FakeContext(approvals_off_by="--yes")
    run(off, "/stats")
    assert "Approvals are OFF (--yes)" in " ".join(off.shown.split())


def test_a_chosen_offline_model_with_a_key_set_says_how_to_switch_not_to_set_the_key() -> None:
    text = banner_text(api_key_set=True)
    assert "set ANTHROPIC_API_KEY" not in text
    assert "ANTHROPIC_API_KEY is set" in text and "--provider anthropic" in text
    assert "set ANTHROPIC_API_KEY" in banner_text(api_key_set=False)


def test_the_banner_writes_out_a_line_break_in_the_workspace_path() -> None:
    """An outside tester's workspace `ws<LF>nl` read `workspace /tmp/ws nl`, the same as a
    folder named with a space."""
    from pathlib import Path

    session = FakeSession()
    session.workspace = Path("/tmp/c21-work/ws\nnl")
    lines = build_banner(session, offline_fallback=False, resumed=False)  # type: ignore[arg-type]
    assert "workspace /tmp/c21-work/ws^Jnl" in "\n".join(line.plain for line in lines)
