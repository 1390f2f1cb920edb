"""End to end in tmux, against the fake API, approvals off (`--yes`): lines typed (each
with Enter) while a command runs are not sent once Ctrl-C cancels the turn; they wait in
the next prompt, together, to edit or send (sixteenth outside attack: both were sent as
turns right after `turn cancelled`). A turn that ends by itself still sends a line typed
ahead (`test_e2e_type_ahead.py`)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import ReplDriver, agent_cli_argv, build_env, last_prompt_line
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-type-ahead-cancel-0123456789"
FIRST, SECOND = "first queued line", "second queued line"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[tuple[ReplDriver, object]]:
    folder = tmp_path / "ws"
    folder.mkdir()
    with start_fake_server(api_key=API_KEY) as fake:
        env = build_env(
            tmp_path / "home", {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        )
        terminal = terminals.open(env)
        terminal.start([*agent_cli_argv(), "--yes"], cwd=folder)
        repl = ReplDriver(terminal)
        repl.wait_for_prompt(timeout=60)
        yield repl, fake


def last_user_text(body: dict) -> str:
    content = body["messages"][-1]["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return "".join(block["text"] for block in blocks if block["type"] == "text")


def test_lines_typed_during_a_command_are_not_sent_after_ctrl_c_but_wait_in_the_prompt(scene):
    repl, server = scene
    server.enqueue(
        Reply([tool_use_block("toolu_s1", "bash", {"command": "sleep 30"})], "tool_use"),
        Reply([text_block("got the held lines")]),
    )
    repl.send("start the job")
    terminal = repl.terminal
    terminal.wait_for_text("running bash", timeout=60)
    repl.send(FIRST)  # typed while `sleep 30` runs: the terminal holds them
    repl.send(SECOND)
    time.sleep(0.5)
    terminal.press("C-c")
    terminal.wait_for_text("turn cancelled", timeout=60)
    screen = terminal.wait_for(
        lambda s: f"› {FIRST}\n{SECOND}" in s.partition("turn cancelled")[2],
        "both lines in the prompt",
        source=terminal.visible,
    )
    time.sleep(2)  # a line sent by itself would be on its way by now
    assert len(server.accepted) == 1, [last_user_text(b) for b in server.accepted]
    assert "got the held lines" not in terminal.screen(), screen
    assert last_prompt_line(terminal.visible()) == f"› {FIRST}"  # the prompt, still open
    terminal.press("Enter")  # the user sends them: one message of two lines
    terminal.wait_for_text("got the held lines", timeout=60)
    assert len(server.accepted) == 2
    assert last_user_text(server.accepted[-1]) == f"{FIRST}\n{SECOND}"


def test_several_lines_typed_during_a_turn_that_ends_by_itself_wait_in_the_prompt(scene):
    # a paste between prompts reaches the terminal as plain lines: each was sent as a turn
    repl, server = scene
    server.enqueue(
        Reply([tool_use_block("toolu_s2", "bash", {"command": "sleep 4"})], "tool_use"),
        Reply([text_block("the job is done")]),
        Reply([text_block("got the held lines")]),
    )
    repl.send("start the job")
    terminal = repl.terminal
    terminal.wait_for_text("running bash", timeout=60)
    repl.send(FIRST)
    repl.send(SECOND)
    terminal.wait_for_text("the job is done", timeout=60)
    terminal.wait_for(
        lambda s: f"› {FIRST}\n{SECOND}" in s.partition("the job is done")[2],
        "both lines in the prompt",
        source=terminal.visible,
    )
    time.sleep(2)  # a line sent by itself would be on its way by now
    assert len(server.accepted) == 2, [last_user_text(b) for b in server.accepted]
    terminal.press("Enter")
    terminal.wait_for_text("got the held lines", timeout=60)
    assert last_user_text(server.accepted[-1]) == f"{FIRST}\n{SECOND}"
