"""Typing while the model thinks leaves the screen whole (twenty-second outside test: the
terminal echoed the keys onto the spinner's row, `… · Ctrl-C cancelstyped ahead line`
stayed in the scroll-back, and at 40 columns a wrapped spinner left a stale row above
the answer). On a real terminal (tmux) against the fake API, at 80 and 40 columns: what
is typed shows on a row of its own under the spinner, the spinner goes whole, and the
line typed ahead is still sent when the turn ends."""

from __future__ import annotations

import threading

import pytest
from fake_anthropic import Reply, text_block
from scene_support import open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-type-ahead-spinner-0123456789"
WAITING = "waiting for the model"
TYPED = "typed ahead line"


@pytest.mark.parametrize("width", [80, 40])
def test_text_typed_while_waiting_shows_on_its_own_row_and_the_spinner_leaves_nothing(
    tmp_path, terminals, width
):
    with open_scene(tmp_path, terminals, API_KEY, {}, width=width, height=24) as scene:
        thought = threading.Event()  # the model thinks until the test has typed and looked
        scene.server.enqueue(
            Reply([text_block("first answer")], held_until=thought),
            Reply([text_block("second answer")]),
        )
        terminal = scene.repl.terminal
        scene.repl.send("first request")
        terminal.wait_for_text(WAITING, timeout=60)
        terminal.type_text("typed aheaX")
        terminal.press("BSpace")  # taken back while waiting, as at a prompt
        terminal.type_text("d line")
        shown = terminal.wait_for(
            lambda s: any(row.startswith(f"› {TYPED}") for row in s.splitlines()),
            "the typed text on a row of its own",
            source=terminal.visible,
        )
        assert WAITING in shown  # the spinner is still turning above it
        terminal.press("Enter")
        terminal.wait_for(
            lambda s: any(row.startswith(f"› {TYPED} ⏎") for row in s.splitlines()),
            "the Enter typed ahead taken in",
            source=terminal.visible,
        )
        thought.set()
        screen = terminal.wait_for_text("second answer", timeout=60)
        rows = screen.splitlines()
        assert not [row for row in rows if WAITING in row], screen  # cleared whole
        typed_rows = [row for row in rows if TYPED in row]
        assert typed_rows == [f"› {TYPED}"], screen  # only as sent from the prompt
        assert "first answer" in screen
