"""A file read_file shows as text is text on the real CLI too: the stale-write guard and
the question (`tools/text_source.text_codec`, the one rule).

A real terminal (tmux), the fake API playing the model through the real SDK (the tester's
case, session 26): the model reads a UTF-16 file (byte-order mark, as PowerShell writes
it), the user edits it, and the model writes it twice from its copy under `--yes`; the
guard once called the file binary, counted its refusal as a read, and let the second
write replace the user's edit. And the question over such a file: its lines, decoded,
and that the write makes it UTF-8. The toolbox cases: `test_tools_shown_as_text.py`.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from e2e_support import count_prompts
from fake_anthropic import Reply, text_block, tool_result_texts, tool_use_block
from scene_support import Scene, open_scene

from agent_cli.repl.approval_view import HEADER_CONTINUED_MARK

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-shown-as-text-0123456789"
QUESTION = "allow? [y] once"


def end_of_turn(scene: Scene, done: str, before: int) -> str:
    return scene.repl.terminal.wait_for(
        lambda screen: count_prompts(screen) > before and done in screen,
        "the end of the turn",
        timeout=30,
    )


UTF16_LINES = "line one\r\nline two\r\n"
UTF16_USERS = "line one\r\nUSER EDIT: keep this line\r\nline two\r\n"
UTF16_NEW = "line one\nline two\nline three from the model\n"


def utf16(text: str) -> bytes:
    return codecs.BOM_UTF16_LE + text.encode("utf-16-le")


def test_a_stale_write_over_a_utf16_file_is_refused_again_and_keeps_the_users_line(
    tmp_path: Path, terminals
):
    """The tester's case (session 26): read_file showed the UTF-16 file as text, but the
    guard called it binary, so its refusal counted as a read and the model's second,
    identical write replaced the user's edit under --yes."""
    with open_scene(tmp_path, terminals, API_KEY, {}, flags=("--yes",)) as scene:
        target = scene.workspace / "notes.txt"
        target.write_bytes(utf16(UTF16_LINES))
        read = tool_use_block("toolu_read", "read_file", {"path": "notes.txt"})
        scene.server.enqueue(Reply([read], stop_reason="tool_use"), Reply([text_block("Read.")]))
        before = count_prompts(scene.repl.terminal.screen())
        scene.repl.send("read notes.txt")
        end_of_turn(scene, "Read.", before)
        target.write_bytes(utf16(UTF16_USERS))  # the user's editor, between turns
        writes = [
            tool_use_block(
                f"toolu_write{n}", "write_file", {"path": "notes.txt", "content": UTF16_NEW}
            )
            for n in (1, 2)
        ]
        scene.server.enqueue(Reply(writes, stop_reason="tool_use"), Reply([text_block("Done.")]))
        before = count_prompts(scene.repl.terminal.screen())
        scene.repl.send("add a third line")
        screen = end_of_turn(scene, "Done.", before)
        assert target.read_bytes() == utf16(UTF16_USERS)
        told = tool_result_texts(scene.server.accepted[-1])[-2:]
        for text in told:
            assert "notes.txt changed since it was last read" in text, told
            assert "Read it again with read_file" in text and "binary" not in text
        assert "binary" not in screen


def test_the_question_over_a_utf16_file_shows_its_lines_and_the_change_to_utf8(
    tmp_path: Path, terminals
):
    with open_scene(tmp_path, terminals, API_KEY, {}) as scene:
        target = scene.workspace / "notes.txt"
        target.write_bytes(utf16(UTF16_USERS))
        write = tool_use_block(
            "toolu_write", "write_file", {"path": "notes.txt", "content": UTF16_NEW}
        )
        scene.server.enqueue(Reply([write], stop_reason="tool_use"), Reply([text_block("Done.")]))
        before = count_prompts(scene.repl.terminal.screen())
        scene.repl.send("add a third line")
        scene.repl.terminal.wait_for(
            lambda shown: QUESTION in shown.rstrip().splitlines()[-1],
            "the permission question",
            source=scene.repl.terminal.visible,
        )
        # the header's rows joined again, as the view wraps it
        screen = scene.repl.terminal.screen().replace(f"\n{HEADER_CONTINUED_MARK}", " ")
        flat = " ".join(screen.split())
        assert "the file is UTF-16LE text with a byte-order mark; the write makes it UTF-8" in flat
        assert "-USER EDIT: keep this line^M" in flat and "+line three from the model" in flat
        assert "binary" not in flat and "<byte" not in flat
        scene.repl.send("n")
        end_of_turn(scene, "Done.", before)
        assert target.read_bytes() == utf16(UTF16_USERS)
