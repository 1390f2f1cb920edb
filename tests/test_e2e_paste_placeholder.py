"""End to end in tmux (a real bracketed paste): a long paste's placeholder is edited as
one unit, and Enter does not send a line that broke one (session 26, T2: one Backspace
after a 1,200-character log left `[pasted 1,200 characters`, which was sent as the
message, the log gone; typing inside it sent `[pasted 1,200 characx ...ters]`).

The offline model answers; what was sent is read from the transcript.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import TerminalPool, count_prompts, last_prompt_line, start_repl
from test_e2e_prompt_input import typed_messages

pytestmark = pytest.mark.e2e

LOG = "".join(f"2026-12-06 ERROR worker-{i}: connection reset by peer\n" for i in range(24))[:1200]
SHOWN = "[pasted 1,200 characters]"


def test_backspace_takes_out_the_whole_paste_undo_brings_it_back_and_typing_stays_outside(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start_repl(terminals, home, workspace)
    repl.terminal.paste(LOG)
    repl.terminal.wait_for_text(SHOWN)
    repl.terminal.press("BSpace")
    repl.terminal.wait_for(
        lambda s: last_prompt_line(s) == "›",
        "the whole placeholder gone",
        source=repl.terminal.visible,
    )
    repl.terminal.press("C-_")  # undo: the paste is back
    repl.terminal.wait_for(
        lambda s: last_prompt_line(s) == f"› {SHOWN}",
        "the paste back",
        source=repl.terminal.visible,
    )
    repl.terminal.press(*["Left"] * 5)  # over the placeholder at once: x goes before it
    repl.terminal.type_text("x")
    repl.terminal.press("End")
    repl.terminal.type_text(" what does this log mean?")
    repl.terminal.wait_for(
        lambda s: last_prompt_line(s) == f"› x{SHOWN} what does this log mean?",
        "the question typed",
        source=repl.terminal.visible,
    )
    repl.terminal.press("Enter")
    repl.terminal.wait_for(lambda s: count_prompts(s) >= 2, "the answer")
    assert typed_messages(home) == ["x" + LOG + " what does this log mean?"]


def test_enter_on_a_broken_placeholder_sends_nothing_says_so_and_keeps_the_input(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start_repl(terminals, home, workspace)
    repl.terminal.paste(LOG)
    repl.terminal.wait_for_text(SHOWN)
    repl.terminal.press("Left", "M-u")  # upper-case its first word: no placeholder now
    repl.terminal.wait_for_text("[PASTED 1,200 characters]")
    repl.terminal.press("Enter")
    screen = repl.terminal.wait_for(
        lambda s: f"not sent: {SHOWN} is broken" in s, "the refusal", source=repl.terminal.visible
    )
    assert f"not sent: {SHOWN} is broken; Ctrl-_ (undo) gets the paste back" in screen
    assert last_prompt_line(screen) == "› [PASTED 1,200 characters]", screen
    assert typed_messages(home) == []
    repl.terminal.press("C-_", "End", "Enter")
    repl.terminal.wait_for(lambda s: count_prompts(s) >= 2, "the answer")
    assert typed_messages(home) == [LOG]
