"""In a real terminal (tmux), on the real SDK against the strict fake Messages API:
AGENTS.md is carried, `/model` lists and switches (and `--continue` keeps the choice),
and money shows in `stats` and in the toolbar."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import (
    ReplDriver,
    TerminalPool,
    agent_cli_argv,
    build_env,
    require_tmux,
    write_demo_workspace,
)
from fake_anthropic import RawAnswer, start_fake_server

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-MODELS-0123456789"
RULE = "House rule 4Z: end every answer with a haiku."
DOLLARS = re.compile(r"\$\d+\.\d{4}")


def test_agents_md_model_switch_and_dollars_on_screen(tmp_path: Path) -> None:
    workspace = write_demo_workspace(tmp_path / "ws")
    (workspace / "AGENTS.md").write_text(f"# Rules\n\n{RULE}\n")
    with start_fake_server(api_key=API_KEY) as server:
        pool = TerminalPool(require_tmux(), tmp_path)
        env = build_env(
            tmp_path / "home", {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        )
        terminal = pool.open(env)
        try:
            terminal.start([*agent_cli_argv()], cwd=workspace)
            repl = ReplDriver(terminal)
            assert "project instructions from AGENTS.md" in repl.wait_for_prompt()
            repl.submit("hello")
            toolbar = terminal.wait_for(
                lambda rows: DOLLARS.search(rows.strip().splitlines()[-1]) is not None,
                "a dollar figure in the toolbar",
                source=terminal.visible,
            )
            assert "ctx " in toolbar.strip().splitlines()[-1]

            listed = repl.submit("/model")
            assert "from the Models API" in listed and "claude-opus-5-5" in listed
            switched = repl.submit("/model claude-opus-5-5")
            assert "model is now claude-opus-5-5" in switched
            repl.submit("again")

            panel = " ".join(repl.submit("stats").split())
            assert re.search(r"cost \$\d+\.\d{4} · input \$\d+\.\d{4} · output", panel), panel
            assert "project instructions" in panel and "AGENTS.md" in panel
            assert re.search(r"free [\d,]+ of the 1,000,000-token window", panel), panel
            terminal.press("C-d")
            assert terminal.wait_for_exit() == 0

            again = pool.open(env)
            again.start([*agent_cli_argv(), "--continue"], cwd=workspace)
            resumed = ReplDriver(again)
            assert "chosen with /model in this session" in resumed.wait_for_prompt()
            resumed.submit("after the restart")
        finally:
            pool.kill_all()
    bodies = server.accepted
    assert [body["model"] for body in bodies] == [
        "claude-sonnet-5-5",
        "claude-opus-5-5",
        "claude-opus-5-5",
    ]
    assert all(RULE in body["system"][1]["text"] for body in bodies)
    assert all(request.rejection is None for request in server.requests)


def test_a_models_api_answer_that_is_no_list_is_one_line_and_the_repl_goes_on(
    tmp_path: Path,
) -> None:
    """It used to end the REPL with a traceback and exit status 1."""
    workspace = write_demo_workspace(tmp_path / "ws")
    with start_fake_server(api_key=API_KEY) as server:
        server.models_answer = RawAnswer(b'{"data": "abc"}')
        pool = TerminalPool(require_tmux(), tmp_path)
        env = build_env(
            tmp_path / "home", {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        )
        terminal = pool.open(env)
        try:
            terminal.start([*agent_cli_argv()], cwd=workspace)
            repl = ReplDriver(terminal)
            repl.wait_for_prompt()
            listed = " ".join(repl.submit("/model").split())
            assert (
                "models (from agent-cli's model table; the Models API's answer was not a list "
                "of models):" in listed
            ), listed
            assert "claude-opus-5-5" in listed and "Traceback" not in listed
            assert "hello" in repl.submit("hello")  # the fake echoes: the REPL goes on
            terminal.press("C-d")
            assert terminal.wait_for_exit() == 0
        finally:
            pool.kill_all()
