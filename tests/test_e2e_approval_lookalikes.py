"""A quote look-alike in a command is marked on a real terminal, and the header says so.

The twenty-first outside tester's first finding, end to end (tmux, the real SDK against
the fake Messages API): the model asks to run `echo ʺremoving nothing; touch RAN_1; echo
doneʺ`, U+02BA drawn like `"`. The approval drew it unmarked, the tester read one quoted
string and approved, and bash ran `touch RAN_1`. Now both quotes are drawn in reverse
video and the header names look-alikes; the answer here is no, and nothing runs.
"""

from __future__ import annotations

import pytest
from e2e_support import count_prompts, reversed_on_screen
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-approval-lookalikes-0123456789"
QUESTION = "allow?"
DONE = "All done here."
COMMAND = "echo \u02baremoving nothing; touch RAN_1; echo done\u02ba"


def test_a_quote_lookalike_in_a_command_is_marked_and_the_header_says_so(tmp_path, terminals):
    with open_scene(tmp_path, terminals, API_KEY, {"notes.txt": "hi\n"}, width=100) as scene:
        scene.server.enqueue(
            Reply(
                [tool_use_block("toolu_q1", "bash", {"command": COMMAND})], stop_reason="tool_use"
            ),
            Reply([text_block(DONE)]),
        )
        scene.repl.send("clean up please")
        terminal = scene.repl.terminal
        screen = terminal.wait_for(
            lambda screen: QUESTION in screen and screen.rstrip().endswith(":"),
            "the whole permission question",
            source=terminal.visible,
        )
        header = " ".join(
            row.removeprefix("  ↳ ")
            for row in screen.splitlines()
            if row.startswith(("permission needed", "  ↳ "))
        )
        assert "a word holds look-alikes of ASCII letters or signs, shown marked" in header
        assert f"1 │ {COMMAND}" in screen
        body_row = next(row for row in terminal.visible_with_colours().splitlines() if "1 │" in row)
        assert reversed_on_screen(body_row) == "\u02ba\u02ba", body_row
        before = count_prompts(terminal.screen())
        scene.repl.send("n")
        terminal.wait_for(
            lambda screen: count_prompts(screen) > before and DONE in screen, "the end of the turn"
        )
        assert not (scene.workspace / "RAN_1").exists()
