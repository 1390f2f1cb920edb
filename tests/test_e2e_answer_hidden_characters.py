"""What the terminal receives of an answer holds no bidi control or hidden character, even
where Markdown makes one of a character reference (session 30's outside tester).

A real terminal (tmux, its raw output recorded with `pipe-pane`), the fake API playing the
model through the real SDK. The answer `Invoice: pay to account &#x202E;4321&#x202C; 9876
now` put a real right-to-left override on the terminal: the text was cleaned before
rich's Markdown turned the reference into the character, so `4321 9876` read `9876 1234`.
The transcript keeps the answer as the model wrote it; only the screen is cleaned.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import count_prompts
from fake_anthropic import Reply, text_block
from scene_support import open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-hidden-characters-0123456789"
INVOICE = "# F\n\nInvoice: pay to account &#x202E;4321&#x202C; 9876 now\n"
OTHERS = (
    "Marks: a&#x200E;b &#x2066;c&#x2069; d&#x200B;e f&#xE0041;g "
    "<https://x.example/%E2%80%AE/h> total \u061c-500\u061c raw abc\u202etxt.exe END"
)
# UTF-8 of what must not reach the terminal: bidi overrides, marks and isolates, a zero
# width, a tag; an autolink decodes %E2%80%AE into U+202E too.
HIDDEN = ("\u202e", "\u202c", "\u200e", "\u2066", "\u2069", "\u200b", "\U000e0041", "\u061c")


def test_an_answer_with_hidden_characters_reaches_the_terminal_without_them(
    tmp_path: Path, terminals
):
    with open_scene(tmp_path, terminals, API_KEY, {}) as scene:
        terminal = scene.repl.terminal
        recorded = tmp_path / "terminal-output.bin"
        terminal.record_output(recorded)
        scene.server.enqueue(Reply([text_block(INVOICE)]), Reply([text_block(OTHERS)]))
        for line, last_words in (("go1", b"9876 now"), ("go2", b"END")):
            before = count_prompts(terminal.screen())
            scene.repl.send(line)
            terminal.wait_for(
                lambda screen, b=before: count_prompts(screen) > b,
                f"the prompt after {line}",
                timeout=30,
            )
            terminal.wait_for(
                lambda _, words=last_words: recorded.exists() and words in recorded.read_bytes(),
                f"the answer to {line} in the recorded output",
            )
        sent = recorded.read_bytes()
        for character in HIDDEN:
            assert character.encode() not in sent, f"U+{ord(character):04X} reached the terminal"
        screen = terminal.screen()
        assert "Invoice: pay to account 4321 9876 now" in screen
        assert "abctxt.exe" in screen and "total -500" in screen
        (transcript,) = (tmp_path / "home" / "transcripts").glob("*.jsonl")
        assert "&#x202E;4321&#x202C;" in transcript.read_text()
