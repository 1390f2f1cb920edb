"""End to end in tmux: a paste's line breaks are sent the same whether it was made at the
prompt or while the model worked (twenty-eighth outside test: `first line\\r\\nsecond
line\\r\\nthird line` pasted as bytes was sent with one line feed per break at the
prompt, but with two during a turn: the terminal, still translating CR into LF then,
turned each CRLF into two line feeds before the prompt could fold it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from scene_support import Scene, open_scene
from test_e2e_type_ahead_paste import (
    hold_a_turn,
    last_user_text,
    prompt_after_answer,
    wait_under_spinner,
)

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-paste-line-breaks-0123456789"
LINES = ("first line", "second line", "third line")
SENT = "\n".join(LINES)


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, {}) as opened:
        yield opened


@pytest.mark.parametrize("line_break", ["\r\n", "\r", "\n"], ids=["crlf", "cr", "lf"])
def test_a_paste_made_during_a_turn_keeps_one_line_break_per_line_break(
    scene: Scene, line_break: str
) -> None:
    answered = hold_a_turn(scene)
    scene.repl.terminal.paste(line_break.join(LINES), raw=True)
    wait_under_spinner(scene, " ⏎ ".join(LINES))  # one mark per break, none doubled
    answered.set()
    prompt_after_answer(scene, LINES[0])
    scene.repl.terminal.press("Enter")
    scene.repl.terminal.wait_for_text("second answer", timeout=60)
    assert last_user_text(scene) == SENT


def test_a_crlf_paste_at_the_prompt_is_sent_with_the_same_line_breaks(scene: Scene) -> None:
    terminal = scene.repl.terminal
    terminal.paste("\r\n".join(LINES), raw=True)
    terminal.wait_for_text(LINES[2])
    terminal.press("Enter")
    terminal.wait_for(lambda _: len(scene.server.requests) == 1, "the request")
    assert last_user_text(scene) == SENT
