"""A paste is one paste at any prompt, whatever its text holds, and a start mark whose end
never comes does not take the prompt's keys (twenty-eighth outside test: at a permission
question one paste of `see the notes below ESC[201~ LF a LF` (tmux's `paste-buffer -p`
passes ESC through; some terminals do) was refused as no answer, then its `a` line answered
"always" and `touch RAN_WITHOUT_ANSWER` ran; at an idle prompt the same paste sent two
requests nobody reviewed; both left `[201~` in the next prompt; `ESC[200~half a paste` with no
end kept the prompt empty through typing, Enter and Ctrl-C, and a later paste's Enter sent
`half a paste ESC[6;1R then typed words LF ^C next question …`). On a real terminal (tmux,
a real bracketed paste) against the fake API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import last_prompt_line
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-paste-end-mark-0123456789"
END_MARK = "\x1b[201~"
KEPT_LINE = "is not an answer, so nothing was allowed"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, {}) as opened:
        yield opened


def user_texts(scene: Scene) -> list[str]:
    """The text of each request's last user message that holds text."""
    texts = []
    for request in scene.server.requests:
        content = request.body["messages"][-1]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts.append("".join(block.get("text", "") for block in blocks if block["type"] == "text"))
    return texts


def test_a_paste_holding_an_end_mark_then_an_answer_line_answers_no_question(scene):
    scene.server.enqueue(
        Reply([tool_use_block("toolu_e1", "bash", {"command": "touch RAN"})], "tool_use"),
        Reply([text_block("done with the tool")]),
    )
    terminal = scene.repl.terminal
    scene.repl.send("run it")
    terminal.wait_for(lambda s: "allow?" in s, "the question", source=terminal.visible)
    terminal.paste(f"see the notes below{END_MARK}\na\n")  # the user types nothing
    terminal.wait_for(
        lambda s: "see the notes below" in s.partition("allow?")[2],
        "the paste in the question's answer",
        source=terminal.visible,
    )
    terminal.press("Enter")  # the user sends it: it is no answer
    terminal.wait_for(
        lambda s: "allow?" in s.partition(KEPT_LINE)[2],
        "the question again",
        source=terminal.visible,
    )
    scene.repl.send("n")
    screen = terminal.wait_for_text("done with the tool", timeout=60)
    assert not (scene.workspace / "RAN").exists()
    assert "allowed without asking" not in screen
    assert "[201~" not in screen
    results = scene.server.requests[-1].body["messages"][-1]["content"]
    assert results[0]["type"] == "tool_result"
    assert "RAN" not in str(results[0].get("content"))
    terminal.wait_for(
        lambda s: last_prompt_line(s.partition("done with the tool")[2]) == "› see the notes below",
        "the pasted reply waiting in the next prompt, unsent",
        source=terminal.visible,
    )


def test_a_paste_holding_an_end_mark_at_an_idle_prompt_sends_nothing_by_itself(scene):
    scene.server.enqueue(Reply([text_block("one answer")]))
    terminal = scene.repl.terminal
    terminal.paste(f"first pasted line{END_MARK}\nsecond line that should wait\n")
    screen = terminal.wait_for(
        lambda s: "second line that should wait" in s,
        "the paste's second line in the prompt",
        source=terminal.visible,
    )
    assert last_prompt_line(screen) == "› first pasted line"
    assert "[201~" not in screen
    assert scene.server.requests == []
    terminal.press("Enter")
    terminal.wait_for_text("one answer", timeout=60)
    assert user_texts(scene) == ["first pasted line\nsecond line that should wait\n"]


def test_a_paste_start_whose_end_never_comes_is_handed_over_and_keys_work_again(scene):
    scene.server.enqueue(Reply([text_block("one answer")]), Reply([text_block("two answers")]))
    terminal = scene.repl.terminal
    terminal.type_text("\x1b[200~half a paste")  # a start mark, and no end ever
    terminal.wait_for(
        lambda s: last_prompt_line(s) == "› half a paste",
        "the unended paste handed to the prompt",
        source=terminal.visible,
    )
    terminal.type_text(" then typed words")
    terminal.press("Enter")
    terminal.wait_for_text("one answer", timeout=60)
    terminal.type_text("dropped")
    terminal.press("C-c")  # Ctrl-C clears the line, as ever
    terminal.wait_for(
        lambda s: last_prompt_line(s.partition("dropped")[2]) == "›",
        "a fresh prompt after Ctrl-C",
        source=terminal.visible,
    )
    terminal.paste("a real paste")
    terminal.wait_for(
        lambda s: last_prompt_line(s) == "› a real paste", "the paste", source=terminal.visible
    )
    terminal.press("Enter")
    terminal.wait_for_text("two answers", timeout=60)
    assert user_texts(scene) == ["half a paste then typed words", "a real paste"]
