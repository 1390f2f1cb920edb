"""Text typed while the model thinks (type-ahead), on a real terminal (tmux), against the
fake API: it is never the answer to a permission question shown later, it is kept for the
prompt after the turn, and Ctrl-C cancelling the turn does not flush it (fifth outside
attack). A bare Enter does not answer a permission question: it is asked again. A line
typed before a permission question waits in the prompt after the turn, unsent, under a
dim line that says why (twenty-fifth outside test: a `y` queued for the question answered
the model's next question, "delete the backups folder? (y/n)", as soon as the turn ended)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import last_prompt_line
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

from agent_cli.repl.prompt import BEFORE_QUESTION_NOTE

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-type-ahead-0123456789"
WAITING = "waiting for the model"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, {}) as opened:
        yield opened


def ask_after_thinking(scene: Scene) -> threading.Event:
    """The model thinks until the returned event is set, then asks to run `touch RAN`;
    then two text answers."""
    thought = threading.Event()
    scene.server.enqueue(
        Reply(
            [text_block("running"), tool_use_block("toolu_t1", "bash", {"command": "touch RAN"})],
            "tool_use",
            held_until=thought,
        ),
        Reply([text_block("after the tool")]),
        Reply([text_block("answer to the typed-ahead request")]),
    )
    scene.repl.send("run something")
    scene.repl.terminal.wait_for_text(WAITING, timeout=60)
    return thought


def wait_for_typed_ahead(scene: Scene, line: str) -> None:
    """Wait until the spinner shows `line`, sent while the model thinks, as taken in."""
    terminal = scene.repl.terminal
    terminal.wait_for(
        lambda s: f"› {line} ⏎" in s.partition(WAITING)[2],
        f"{line!r} typed ahead under the spinner",
        source=terminal.visible,
    )


def wait_for_question(scene: Scene) -> str:
    terminal = scene.repl.terminal
    return terminal.wait_for(lambda s: "allow?" in s, "the question", source=terminal.visible)


def user_texts(scene: Scene) -> list[str]:
    """The text blocks of the user messages of the last request sent."""
    texts = []
    for message in scene.server.requests[-1].body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "user":
            texts += [block["text"] for block in blocks if block["type"] == "text"]
    return texts


def test_a_request_typed_while_the_model_thinks_is_not_taken_as_an_answer_and_waits_after_it(
    scene,
):
    thought = ask_after_thinking(scene)
    scene.repl.send("my next request")
    wait_for_typed_ahead(scene, "my next request")
    thought.set()
    screen = wait_for_question(scene)
    assert "answer y" not in screen, screen  # nothing was taken as an answer
    assert not (scene.workspace / "RAN").exists()
    scene.repl.send("y")
    terminal = scene.repl.terminal
    screen = terminal.wait_for(
        lambda s: f"{BEFORE_QUESTION_NOTE}\n› my next request" in s.partition("after the tool")[2],
        "the request in the prompt after the turn, under the note",
        source=terminal.visible,
        timeout=60,
    )
    assert (scene.workspace / "RAN").exists()
    assert last_prompt_line(screen) == "› my next request", screen
    terminal.press("Enter")  # the user sends it
    terminal.wait_for_text("answer to the typed-ahead request", timeout=60)
    assert "my next request" in user_texts(scene)


def test_a_y_typed_for_a_question_is_not_sent_as_the_reply_to_the_models_next_question(scene):
    thought = threading.Event()
    scene.server.enqueue(
        Reply(
            [
                text_block("I will clean up."),
                tool_use_block("toolu_t2", "bash", {"command": "touch RAN"}),
            ],
            "tool_use",
            held_until=thought,
        ),
        Reply([text_block("Step 1 done. Shall I also delete the backups folder? (y/n)")]),
        Reply([text_block("the answer to what the user sent")]),
    )
    scene.repl.send("tidy the repo")
    terminal = scene.repl.terminal
    terminal.wait_for_text(WAITING, timeout=60)
    scene.repl.send("y")  # typed ahead: the user expects a permission question
    wait_for_typed_ahead(scene, "y")
    thought.set()
    wait_for_question(scene)
    scene.repl.send("y")  # the answer to the question
    # The note is printed before the prompt is drawn: wait for both, never for the note alone.
    screen = terminal.wait_for(
        lambda s: f"{BEFORE_QUESTION_NOTE}\n› y" in s.partition("(y/n)")[2],
        "the held line in the prompt after the turn, under the note",
        source=terminal.visible,
        timeout=60,
    )
    assert (scene.workspace / "RAN").exists()
    assert last_prompt_line(screen) == "› y", screen  # waiting in the prompt, editable
    scene.repl.send(" to the first step only")  # the user edits it, then sends it
    terminal.wait_for_text("the answer to what the user sent", timeout=60)
    assert len(scene.server.requests) == 3
    assert user_texts(scene)[-1] == "y to the first step only"


def test_a_bare_enter_is_no_answer_the_question_is_asked_again(scene):
    thought = ask_after_thinking(scene)
    scene.repl.terminal.press("Enter")  # typed ahead: kept for the prompt, an empty line
    thought.set()  # (the spinner shows no empty line: taken in now or at the question, the same)
    wait_for_question(scene)
    scene.repl.terminal.press("Enter")  # at the question: no answer
    terminal = scene.repl.terminal
    terminal.wait_for(
        lambda s: "allow?" in s.partition("Enter alone is no answer")[2],
        "the question again",
        source=terminal.visible,
    )
    scene.repl.send("n")
    scene.repl.terminal.wait_for_text("after the tool", timeout=60)
    assert not (scene.workspace / "RAN").exists()


def test_text_typed_during_a_turn_is_still_at_the_prompt_after_ctrl_c_cancels_it(scene):
    scene.server.enqueue(Reply([text_block("too slow")], first_token_delay=60))
    scene.repl.send("run something")
    terminal = scene.repl.terminal
    terminal.wait_for_text(WAITING, timeout=60)
    terminal.type_text("half a thought")
    terminal.press("C-c")
    screen = terminal.wait_for(
        lambda s: "› half a thought" in s.partition("turn cancelled")[2],
        "the typed text at the prompt after the cancel",
        source=terminal.visible,
        timeout=60,
    )
    assert "too slow" not in screen
