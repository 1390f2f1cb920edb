"""Control keys typed by accident at the prompt are never sent to the model (fifth outside
attack): Ctrl-Z suspends agent-cli under a shell with job control (`fg` brings it back,
the line kept) and does nothing without one; Ctrl-space (Ctrl-@) neither inserts a NUL
nor starts a selection that swallowed every key typed after it. A real terminal (tmux) against the fake API."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from e2e_support import ReplDriver, agent_cli_argv, build_env, last_prompt_line
from fake_anthropic import Reply, start_fake_server, text_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-control-keys-FAKE-0123456789"
THINKING_SECONDS = 600.0  # the turn that Ctrl-Z stops is cancelled long before it answers


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, {}) as opened:
        yield opened


def sent_text(server: Any) -> str:
    return str(server.accepted[-1]["messages"][-1]["content"])


def test_control_keys_typed_at_the_prompt_put_nothing_into_the_message(scene):
    scene.server.enqueue(Reply([text_block("got it")]))
    terminal = scene.repl.terminal
    terminal.type_text("hel")
    terminal.press("C-z", "C-@")
    terminal.type_text("lo")
    terminal.press("Enter")
    terminal.wait_for_text("got it", timeout=60)
    sent = sent_text(scene.server)
    assert "hello" in sent, sent
    assert not any(ord(ch) < 32 and ch not in "\n\t" for ch in sent), repr(sent)


@contextmanager
def started_under_bash(tmp_path: Path, terminals: Any) -> Iterator[tuple[Any, Any]]:
    """agent-cli started from an interactive bash (job control: Ctrl-Z and `fg` work)
    against the fake API, at its first prompt: (the terminal, the fake server)."""
    folder = tmp_path / "ws"
    folder.mkdir()
    with start_fake_server(api_key=API_KEY) as server:
        env = build_env(
            tmp_path / "home",
            {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url},
        )
        terminal = terminals.open(env)
        terminal.start(["bash", "--norc", "--noprofile", "-i"], cwd=folder, height=40)
        terminal.wait_for(lambda s: "bash" in s or "$" in s, "the shell's prompt", timeout=30)
        terminal.type_text(shlex.join(agent_cli_argv()))
        terminal.press("Enter")
        ReplDriver(terminal).wait_for_prompt(timeout=60)
        yield terminal, server


def test_ctrl_z_under_a_shell_suspends_and_fg_brings_the_line_back(tmp_path: Path, terminals):
    with started_under_bash(tmp_path, terminals) as (terminal, server):
        server.enqueue(Reply([text_block("back and answered")]))
        terminal.type_text("hello")
        terminal.press("C-z")
        terminal.wait_for_text("Stopped", timeout=30)
        terminal.type_text("fg")
        terminal.press("Enter")
        terminal.wait_for(  # the prompt drawn again below the shell's `fg`, the line in it
            lambda s: "› hello" in s.rpartition("fg\n")[2], "the prompt back with the line"
        )
        terminal.press("Enter")
        terminal.wait_for_text("back and answered", timeout=60)
        assert sent_text(server).count("hello") == 1
        assert "\x1a" not in sent_text(server)


def test_after_ctrl_z_and_fg_during_a_turn_the_terminal_still_echoes_nothing(
    tmp_path: Path, terminals
):
    """bash's `fg` puts its own cooked mode back: the rest of the turn echoed what was
    typed into the spinner's rows, until the turn ended (session 26, found with fix26k)."""
    with started_under_bash(tmp_path, terminals) as (terminal, server):
        # thinks far longer than any wait below: the turn is still on when fg is done
        server.enqueue(Reply([text_block("never shown")], first_token_delay=THINKING_SECONDS))
        terminal.type_text("think long")
        terminal.press("Enter")
        terminal.wait_for_text("waiting for the model", timeout=60)
        terminal.press("C-z")
        terminal.wait_for_text("Stopped", timeout=30)
        terminal.type_text("fg")
        terminal.press("Enter")
        terminal.wait_for(
            lambda modes: "-echo" in modes.split() and "-icanon" in modes.split(),
            "echo and line editing off again after fg, the turn still on",
            source=terminal.terminal_modes,
        )
        typed = "typed after fg"
        terminal.type_text(typed)
        terminal.wait_for(lambda s: f"› {typed}" in s, "the text under the spinner")
        terminal.press("C-c")  # the turn cancelled: the text waits in the prompt
        screen = terminal.wait_for(
            lambda s: last_prompt_line(s) == f"› {typed}", "the text in the next prompt"
        )
        assert screen.count(typed) == 1, screen
