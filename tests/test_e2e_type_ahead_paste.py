"""A paste made while the model works waits in the next prompt whole (twenty-seventh
outside test: `line one of paste\\nline two of paste` pasted during a turn was sent as two
requests when the turn ended, `delete the build folder\\n` at once, unreviewed; words
typed around a 1,260-character paste folded into its placeholder, `[pasted 1,310
characters]`, one Backspace deleting them with it; `/new` typed ahead with Enter, then a
paste, neither ran nor showed). On a real terminal (tmux, a real bracketed paste) against
the fake API, the turn held until the test has pasted and seen it taken in."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import BANNER_END, last_prompt_line
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-type-ahead-paste-0123456789"
WAITING = "waiting for the model"
LOG = "".join(f"LOG-A line {i:03d} alpha\n" for i in range(60))  # 1,260 characters
SHOWN = "[pasted 1,260 characters]"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, {}) as opened:
        yield opened


def hold_a_turn(scene: Scene) -> threading.Event:
    """A turn whose answer (`slow answer`) waits for the returned event; then `second
    answer` for whatever is sent next."""
    answered = threading.Event()
    scene.server.enqueue(
        Reply([text_block("slow answer")], held_until=answered),
        Reply([text_block("second answer")]),
    )
    scene.repl.send("first")
    scene.repl.terminal.wait_for_text(WAITING, timeout=60)
    return answered


def wait_under_spinner(scene: Scene, tail: str) -> None:
    """Until the row under the spinner (what the next prompt will hold) ends in `tail`."""
    terminal = scene.repl.terminal
    terminal.wait_for(
        lambda s: any(row.rstrip().endswith(tail) for row in s.rpartition(WAITING)[2].splitlines()),
        f"{tail!r} taken in under the spinner",
        source=terminal.visible,
    )


def prompt_after_answer(scene: Scene, shown: str) -> str:
    """The screen once the prompt after `slow answer` shows `shown` on its first row."""
    terminal = scene.repl.terminal
    return terminal.wait_for(
        lambda s: last_prompt_line(s.partition("slow answer")[2]) == f"› {shown}",
        f"the prompt after the turn holding {shown!r}",
        source=terminal.visible,
        timeout=60,
    )


def last_user_text(scene: Scene) -> str:
    content = scene.server.requests[-1].body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if block["type"] == "text")


def test_a_paste_of_two_lines_made_during_a_turn_waits_in_the_prompt_whole(scene):
    answered = hold_a_turn(scene)
    scene.repl.terminal.paste("line one of paste\nline two of paste")
    wait_under_spinner(scene, "line one of paste ⏎ line two of paste")
    answered.set()
    screen = prompt_after_answer(scene, "line one of paste")
    assert "line two of paste" in screen.partition("› line one of paste")[2], screen
    scene.repl.terminal.type_text(" (both)")  # still at the prompt: the user adds to it
    scene.repl.terminal.press("Enter")
    scene.repl.terminal.wait_for_text("second answer", timeout=60)
    assert len(scene.server.requests) == 2
    assert last_user_text(scene) == "line one of paste\nline two of paste (both)"


def test_a_pasted_line_ending_in_a_line_break_is_not_sent_until_the_user_sends_it(scene):
    answered = hold_a_turn(scene)
    scene.repl.terminal.paste("delete the build folder\n")
    wait_under_spinner(scene, "delete the build folder ⏎")
    answered.set()
    prompt_after_answer(scene, "delete the build folder")
    scene.repl.terminal.press("BSpace")  # the pasted line break: the user reviews it
    scene.repl.terminal.type_text(" only if it is stale")
    scene.repl.terminal.press("Enter")
    scene.repl.terminal.wait_for_text("second answer", timeout=60)
    assert len(scene.server.requests) == 2
    assert last_user_text(scene) == "delete the build folder only if it is stale"


def test_words_typed_around_a_paste_during_a_turn_stay_outside_its_placeholder(scene):
    answered = hold_a_turn(scene)
    terminal = scene.repl.terminal
    terminal.type_text("why does this fail? ")
    terminal.paste(LOG)
    terminal.type_text(" it started after the upgrade!")
    wait_under_spinner(scene, f"why does this fail? {SHOWN} it started after the upgrade!")
    answered.set()
    prompt_after_answer(scene, f"why does this fail? {SHOWN} it started after the upgrade!")
    terminal.press("BSpace")  # the last typed character, not the paste
    terminal.wait_for(
        lambda s: (
            last_prompt_line(s) == f"› why does this fail? {SHOWN} it started after the upgrade"
        ),
        "only the `!` taken back",
        source=terminal.visible,
    )
    terminal.press("Enter")
    terminal.wait_for_text("second answer", timeout=60)
    assert last_user_text(scene) == f"why does this fail? {LOG} it started after the upgrade"


def test_a_command_typed_ahead_with_enter_runs_and_a_paste_after_it_waits_for_the_next_prompt(
    scene,
):
    answered = hold_a_turn(scene)
    terminal = scene.repl.terminal
    scene.repl.send("/new")
    terminal.paste(LOG)
    wait_under_spinner(scene, f"/new ⏎ {SHOWN}")
    answered.set()
    screen = terminal.wait_for(
        lambda s: (
            last_prompt_line(s.partition("slow answer")[2].partition(BANNER_END)[2]) == f"› {SHOWN}"
        ),
        "a new session's banner, then the paste in its prompt",
        source=terminal.screen,
        timeout=60,
    )
    assert "› /new" in screen.partition("slow answer")[2], screen  # it ran as typed
    terminal.press("Enter")
    terminal.wait_for_text("second answer", timeout=60)
    messages = scene.server.requests[-1].body["messages"]
    assert len(messages) == 1, messages  # the new session's first message
    assert last_user_text(scene) == LOG


def test_a_paste_made_after_a_permission_question_in_the_same_turn_still_waits_whole(scene):
    # the question's own prompt turned bracketed paste off when it ended
    answered = threading.Event()
    scene.server.enqueue(
        Reply([tool_use_block("toolu_p1", "bash", {"command": "touch RAN"})], "tool_use"),
        Reply([text_block("slow answer")], held_until=answered),
        Reply([text_block("second answer")]),
    )
    terminal = scene.repl.terminal
    scene.repl.send("first")
    terminal.wait_for(lambda s: "allow?" in s, "the question", source=terminal.visible)
    scene.repl.send("y")
    terminal.wait_for(
        lambda s: WAITING in s.partition("allow?")[2], "the turn going on", source=terminal.visible
    )
    terminal.paste("line one of paste\nline two of paste")
    wait_under_spinner(scene, "line one of paste ⏎ line two of paste")
    answered.set()
    prompt_after_answer(scene, "line one of paste")
    assert (scene.workspace / "RAN").exists()
    terminal.press("Enter")
    terminal.wait_for_text("second answer", timeout=60)
    assert len(scene.server.requests) == 3
    assert last_user_text(scene) == "line one of paste\nline two of paste"
