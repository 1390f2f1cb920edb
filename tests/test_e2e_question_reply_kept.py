"""A reply to a permission question that is no answer is never lost, and never approves
(twenty-second outside test: `y` pressed without Enter, then the next request typed, was
read as the answer `ywrite notes.txt: …`, refused, and gone). On a real terminal (tmux)
against the fake API: the reply waits in the prompt after the turn, unsent, to edit or
send; the question is asked again and only a real answer runs the tool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-reply-kept-0123456789"
REQUEST = "write notes.txt: the colour is blue"
KEPT_LINE = "is not an answer, so nothing was allowed"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, {}, width=80, height=24) as opened:
        yield opened


def ask_to_run(scene: Scene) -> None:
    """The model asks to run `touch RAN`, then answers; then answers the next request."""
    scene.server.enqueue(
        Reply(
            [text_block("running"), tool_use_block("toolu_k1", "bash", {"command": "touch RAN"})],
            "tool_use",
        ),
        Reply([text_block("after the tool")]),
        Reply([text_block("answer to the kept request")]),
    )
    scene.repl.send("run something")
    terminal = scene.repl.terminal
    terminal.wait_for(lambda s: "allow?" in s, "the question", source=terminal.visible)


def wait_for_question_after(scene: Scene, line: str, times: int = 1) -> None:
    """Wait until the question is asked again below the `times`-th `line` on screen. The
    line is printed before the question: a reply typed once it shows but before the
    question would be kept as typed before the question, not read as a reply."""
    terminal = scene.repl.terminal

    def asked_after(screen: str) -> bool:
        parts = screen.split(line)
        return len(parts) == times + 1 and "allow?" in parts[-1]

    terminal.wait_for(asked_after, f"the question again below {line!r} ({times})", timeout=60)


def sent_user_texts(scene: Scene) -> list[str]:
    """Every text block of a user message in any request sent so far."""
    texts = []
    for request in scene.server.requests:
        for message in request.body["messages"]:
            content = message["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            if message["role"] == "user":
                texts += [block["text"] for block in blocks if block["type"] == "text"]
    return texts


def test_y_without_enter_then_a_request_allows_nothing_and_the_text_waits_in_the_next_prompt(
    scene,
):
    ask_to_run(scene)
    terminal = scene.repl.terminal
    terminal.type_text("y")  # meant as the answer, but Enter was not pressed
    scene.repl.send(REQUEST)  # read by the question as "ywrite notes.txt: …"
    terminal.wait_for(
        lambda s: "allow?" in s.partition(KEPT_LINE)[2],
        "the question again",
        source=terminal.visible,
    )
    assert not (scene.workspace / "RAN").exists()  # text starting with y is no yes
    scene.repl.send("y")
    screen = terminal.wait_for(
        lambda s: f"› y{REQUEST}" in s.partition("after the tool")[2],
        "the reply in the prompt after the turn",
        source=terminal.visible,
        timeout=60,
    )
    assert (scene.workspace / "RAN").exists()
    assert "answer to the kept request" not in screen  # unsent: waiting to be edited
    assert not any(REQUEST in text for text in sent_user_texts(scene))
    terminal.press("Home", "Delete", "Enter")  # the user takes the stray y off and sends it
    terminal.wait_for_text("answer to the kept request", timeout=60)
    assert REQUEST in sent_user_texts(scene)


def test_a_mistaken_answer_letter_is_not_kept_and_a_reply_is_kept_after_an_earlier_one(scene):
    ask_to_run(scene)
    terminal = scene.repl.terminal
    scene.repl.send("p")  # no prefix is offered for this command: a wrong letter, not text
    wait_for_question_after(scene, "Enter alone is no answer")
    scene.repl.send("no wait")
    wait_for_question_after(scene, KEPT_LINE)
    scene.repl.send("yes please")  # never a yes: kept too, after the first
    wait_for_question_after(scene, KEPT_LINE, times=2)
    scene.repl.send("n")
    terminal.wait_for(
        lambda s: "› no wait" in s.partition("after the tool")[2],
        "both replies in the prompt after the turn",
        source=terminal.visible,
        timeout=60,
    )
    assert not (scene.workspace / "RAN").exists()
    screen = terminal.visible()
    prompt_and_after = screen.partition("› no wait")[2]
    assert "yes please" in prompt_and_after and "› p" not in screen.partition("after the tool")[2]


UNFINISHED = "no - first explain why the file is needed and what else you plan to change"


def test_text_typed_at_the_question_then_ctrl_c_waits_unsent_in_the_next_prompt(scene):
    # twenty-third outside test: the turn was cancelled and the text was gone with it
    ask_to_run(scene)
    terminal = scene.repl.terminal
    terminal.type_text(UNFINISHED)  # no Enter: the user stops the turn instead
    terminal.wait_for(
        lambda s: "change" in s.partition("allow?")[2], "the text at the question", timeout=30
    )
    terminal.press("C-c")
    terminal.wait_for(
        lambda s: f"› {UNFINISHED}" in s.partition("cancelled at the permission question")[2],
        "the text in the next prompt",
        source=terminal.visible,
        timeout=60,
    )
    assert not (scene.workspace / "RAN").exists()
    assert len(scene.server.requests) == 1  # unsent: waiting to be edited
    terminal.type_text(", please")
    terminal.press("Enter")
    terminal.wait_for_text("after the tool", timeout=60)
    assert UNFINISHED + ", please" in sent_user_texts(scene)
