"""End to end in tmux (a real bracketed paste): text that only looks like a placeholder is
sent as the user pasted or typed it (twenty-eighth outside test: a 942-character log was
sent, then `my screen showed: [pasted 942 characters] -- what does that bracket mean?`,
pasted short or typed; the prompt showed exactly that, but what was sent (992
characters) was the log again in place of the bracket).

The offline model answers; what was sent is read from the transcript.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import TerminalPool, count_prompts, last_prompt_line, start_repl
from test_e2e_prompt_input import typed_messages

pytestmark = pytest.mark.e2e

LOG = "SECRET-ISH LOG START\n" + "log line\n" * 102 + "END"  # 942 characters
SHOWN = "[pasted 942 characters]"
QUESTION = f"my screen showed: {SHOWN} -- what does that bracket mean?"


def send_and_wait(repl, answers: int) -> None:
    repl.terminal.press("Enter")
    repl.terminal.wait_for(lambda s: count_prompts(s) >= answers + 1, f"answer {answers}")


@pytest.mark.parametrize("how", ["paste", "type"])
def test_a_placeholder_pasted_or_typed_is_sent_as_it_is_and_a_recalled_paste_still_expands(
    terminals: TerminalPool, home: Path, workspace: Path, how: str
) -> None:
    repl = start_repl(terminals, home, workspace)
    repl.terminal.paste(LOG)
    repl.terminal.wait_for_text(SHOWN)
    send_and_wait(repl, 1)
    if how == "paste":
        repl.terminal.paste(QUESTION)  # short: it goes in as it is
    else:
        repl.terminal.type_text(QUESTION)
    repl.terminal.wait_for(
        lambda s: last_prompt_line(s) == f"› {QUESTION}",
        "the question",
        source=repl.terminal.visible,
    )
    send_and_wait(repl, 2)
    repl.terminal.press("Up")  # the question again: still as it was typed
    repl.terminal.wait_for(
        lambda s: last_prompt_line(s) == f"› {QUESTION}", "recalled", source=repl.terminal.visible
    )
    send_and_wait(repl, 3)
    repl.terminal.press("Up", "Up", "Up")  # the paste's own line: the log again
    repl.terminal.wait_for(
        lambda s: last_prompt_line(s) == f"› {SHOWN}", "the paste", source=repl.terminal.visible
    )
    send_and_wait(repl, 4)
    assert typed_messages(home) == [LOG, QUESTION, QUESTION, LOG]
