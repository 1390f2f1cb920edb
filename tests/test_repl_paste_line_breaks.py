"""A paste's line breaks are the same at the prompt and while no prompt is shown
(twenty-eighth outside test: `first line\\r\\nsecond line\\r\\nthird line` pasted during a
turn was sent with its breaks doubled: the terminal still turned CR into LF then).

The terminal's modes on a real pseudo-terminal, then the keys typed ahead."""

from __future__ import annotations

import os
import termios

from agent_cli.repl.paste import fold_line_breaks
from agent_cli.repl.terminal_modes import quiet_terminal, take_pending
from agent_cli.repl.type_ahead import TypeAhead

TRANSLATIONS = termios.ICRNL | termios.INLCR | termios.IGNCR


def test_the_quiet_terminal_passes_cr_as_it_came_and_puts_the_translation_back():
    leader, follower = os.openpty()
    try:
        attributes = termios.tcgetattr(follower)
        attributes[0] |= termios.ICRNL  # as a shell leaves it
        termios.tcsetattr(follower, termios.TCSANOW, attributes)
        undo = quiet_terminal(follower)
        assert termios.tcgetattr(follower)[0] & TRANSLATIONS == 0
        os.write(leader, b"\x1b[200~one\r\ntwo\rthree\x1b[201~")
        assert take_pending(follower, settle=0.2, first_wait=2.0) == (
            b"\x1b[200~one\r\ntwo\rthree\x1b[201~"
        )
        undo()
        assert termios.tcgetattr(follower)[0] & termios.ICRNL
    finally:
        os.close(leader)
        os.close(follower)


def test_a_paste_typed_ahead_folds_its_line_breaks_as_the_prompt_does():
    for line_break in ("\r\n", "\r", "\n"):
        kept = TypeAhead()
        kept.add(f"\x1b[200~first{line_break}second{line_break}third\x1b[201~".encode())
        assert kept.preview() == "first\nsecond\nthird", repr(line_break)
    assert fold_line_breaks("a\r\n\r\nb\rc\n") == "a\n\nb\nc\n"
