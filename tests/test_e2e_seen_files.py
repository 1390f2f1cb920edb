"""A write from the model's stale copy never replaces the user's edit, asked or not.

A real terminal (tmux), the fake API playing the model through the real SDK (the tester's
case): turn 1 the model creates `notes.md` (the user answers `a`, always for that file, or
runs with `--yes`); between turns the user adds a line in an editor; turn 2 the model
writes `notes.md` again from its copy. The write is refused, the screen and the model's
tool result say why, and the user's line stays.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import count_prompts
from fake_anthropic import Reply, text_block, tool_result_texts, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-seen-files-0123456789"
QUESTION = "allow? [y] once"
FIRST = "# Notes\n- item one\n"
USERS = FIRST + "- USER'S OWN LINE typed in the editor\n"
REFUSED = "notes.md changed since it was last read or written in this session"


def turn_with_write(scene: Scene, call_id: str, content: str, done: str) -> None:
    scene.server.enqueue(
        Reply(
            [tool_use_block(call_id, "write_file", {"path": "notes.md", "content": content})],
            stop_reason="tool_use",
        ),
        Reply([text_block(done)]),
    )
    scene.repl.send(f"please do {call_id}")


def end_of_turn(scene: Scene, done: str, before: int) -> str:
    return scene.repl.terminal.wait_for(
        lambda screen: count_prompts(screen) > before and done in screen,
        "the end of the turn",
        timeout=30,
    )


def second_write_is_refused(scene: Scene) -> None:
    target = scene.workspace / "notes.md"
    assert target.read_text() == FIRST
    target.write_text(USERS)  # the user's editor, between turns
    before = count_prompts(scene.repl.terminal.screen())
    turn_with_write(scene, "toolu_second", FIRST + "- item two\n", "Second done.")
    screen = end_of_turn(scene, "Second done.", before)
    assert REFUSED in " ".join(screen.split())
    assert target.read_text() == USERS
    told = tool_result_texts(scene.server.accepted[-1])[-1]
    assert REFUSED in told and "Read it again with read_file" in told


@pytest.mark.parametrize("flags", [(), ("--yes",)], ids=["always", "yes"])
def test_a_write_from_a_stale_copy_keeps_the_line_the_user_added(
    tmp_path: Path, terminals, flags: tuple[str, ...]
):
    with open_scene(tmp_path, terminals, API_KEY, {}, flags=flags) as scene:
        before = count_prompts(scene.repl.terminal.screen())
        turn_with_write(scene, "toolu_first", FIRST, "First done.")
        if not flags:
            scene.repl.terminal.wait_for(
                lambda screen: QUESTION in screen.rstrip().splitlines()[-1],
                "the permission question",
                source=scene.repl.terminal.visible,
            )
            scene.repl.send("a")
        end_of_turn(scene, "First done.", before)
        second_write_is_refused(scene)
        assert scene.repl.terminal.screen().count(QUESTION) == (0 if flags else 1)
