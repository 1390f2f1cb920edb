"""What the terminal receives of an answer holds no bidi control or hidden character, even
where Markdown makes one of a character reference (session 30's outside tester).

A real terminal (tmux, its raw output recorded with `pipe-pane`), the fake API playing the
model through the real SDK. The answer `Invoice: pay to account &#x202E;4321&#x202C; 9876
now` put a real right-to-left override on the terminal: the text was cleaned before
rich's Markdown turned the reference into the character, so `4321 9876` read `9876 1234`.
The transcript keeps the answer as the model wrote it; only the screen is cleaned.
Its review: the wider list then took the joiners, selectors and soft hyphen real text is
written with off the screen and out of `-p`'s stdout, and a fake `[compact]` line led by a
combining mark went unmarked; each script's sample must reach both exactly.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import build_env, count_prompts, run_piped
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
# What real text needs of the invisible characters, one sample a script.
SAMPLES = (
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, U+200C
    "\u0dc1\u0dca\u200d\u0dbb\u0dd3",  # Sinhala, U+200D
    "\u0915\u094d\u200d\u0937",  # Hindi, U+200D
    "\u845b\U000e0100",  # Japanese, an ideographic variation selector
    "\u182e\u180b\u1823\u180c\u1829\u180d\u182d\u180e\u1820\u180f",  # Mongolian
    "\u2269\ufe00",  # a standard variation sequence
    "\U0001f468\u200d\U0001f469\u200d\U0001f467 \u26a0\ufe0f",  # emoji
)
SCRIPTS = "Scripts: " + " | ".join(SAMPLES) + ' | code `x = "a\xadb"` END3\n\n'
FAKE_LOG = "&#x301;[compact] total: 9,000 -> 10 tokens (-8,990) in 1 layer"


def test_an_answer_with_hidden_characters_reaches_the_terminal_without_them(
    tmp_path: Path, terminals
):
    with open_scene(tmp_path, terminals, API_KEY, {}) as scene:
        terminal = scene.repl.terminal
        recorded = tmp_path / "terminal-output.bin"
        terminal.record_output(recorded)
        scene.server.enqueue(
            Reply([text_block(INVOICE)]),
            Reply([text_block(OTHERS)]),
            Reply([text_block(SCRIPTS + FAKE_LOG)]),
        )
        for line, last_words in (("go1", b"9876 now"), ("go2", b"END"), ("go3", b"1 layer")):
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
        for sample in (*SAMPLES, 'x = "a\xadb"'):
            assert sample.encode() in sent, f"{sample!r} did not reach the terminal"
        assert "\u0301[compact]".encode() in sent
        assert "\u0301[compact]".encode() not in sent.replace(b"\xe2\x80\xba \xcc\x81[", b"")
        screen = terminal.screen()
        assert "Invoice: pay to account 4321 9876 now" in screen
        assert "abctxt.exe" in screen and "total -500" in screen
        (transcript,) = (tmp_path / "home" / "transcripts").glob("*.jsonl")
        assert "&#x202E;4321&#x202C;" in transcript.read_text()


def test_print_mode_writes_each_script_s_joiners_and_selectors_and_marks_the_fake_line(
    tmp_path: Path,
) -> None:
    from fake_anthropic import start_fake_server

    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([text_block(SCRIPTS + OTHERS + "\n\n\u0301" + FAKE_LOG[7:])]))
        env = build_env(
            tmp_path / "home", {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        )
        run = run_piped(["-p", "go"], cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    for sample in (*SAMPLES, 'x = "a\xadb"'):
        assert sample in run.stdout, f"{sample!r} is not in -p's stdout"
    for character in HIDDEN:
        assert character not in run.stdout, f"U+{ord(character):04X} reached stdout"
    assert "\n\u203a \u0301[compact] total" in run.stdout
