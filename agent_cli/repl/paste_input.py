"""The prompts' terminal input, its pastes told apart by bursts (`paste_marks`).

Why: prompt_toolkit's own parser ends a paste at the first `ESC[201~` and reads what
follows as typed keys, so a paste whose text held that mark and then `a` and a line break
answered a permission question "always", and at an idle prompt sent its lines unreviewed;
and a start mark whose end never came swallowed every key after it (Enter, Ctrl-C), and
the cursor report the prompt asked for, until some later paste's end.

Contract: `guard_pastes(terminal_input)` makes every prompt reading `terminal_input` (the
line prompt, the early one, a permission question: they share it) take pastes by
`PasteMarks(bursts=True)`: each read of the terminal is one burst, a paste ends only at an
end mark that nothing follows, in that read or waiting to be read, and comes to the
prompt as one `Keys.BracketedPaste` key of its text (no marks, controls or escape
sequences): never an Enter, never an answer by itself. A paste still open when the
terminal has been quiet for the input's flush timeout (prompt_toolkit's `ttimeoutlen`, half
a second) is handed over as far as it came, and keys work again (keys typed right after
a paste, in the same read, are keys then: `PasteMarks.close`). An input that is no VT100
terminal input is left as it is.
"""

from __future__ import annotations

import select
from collections.abc import Callable

from prompt_toolkit.input import Input
from prompt_toolkit.input.vt100 import Vt100Input
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from agent_cli.repl.paste_marks import Parts, PasteMarks


class BurstPasteParser(Vt100Parser):
    """A `Vt100Parser` whose pastes are `PasteMarks(bursts=True)`'s (module contract);
    `more_waiting()` says whether the terminal holds more input already."""

    def __init__(
        self, feed_key_callback: Callable[[KeyPress], None], more_waiting: Callable[[], bool]
    ) -> None:
        super().__init__(feed_key_callback)
        self._marks = PasteMarks(bursts=True)
        self._more_waiting = more_waiting

    def feed(self, data: str) -> None:
        self._give(self._marks.split(data, more_waiting=self._more_waiting()))

    def flush(self) -> None:
        self._give(self._marks.close())
        super().flush()

    def _give(self, parts: Parts) -> None:
        for is_paste, text in parts:
            if is_paste:
                super().flush()  # a key begun before the paste comes before it
                self.feed_key_callback(KeyPress(Keys.BracketedPaste, text))
            else:
                super().feed(text)  # never holds a mark: its own paste mode never starts


def guard_pastes(terminal_input: Input) -> None:
    """See the module contract; guarding an input twice changes nothing."""
    if not isinstance(terminal_input, Vt100Input):
        return
    if isinstance(terminal_input.vt100_parser, BurstPasteParser):
        return
    fd = terminal_input.fileno()

    def more_waiting() -> bool:
        try:
            return bool(select.select([fd], [], [], 0)[0])
        except (OSError, ValueError):  # closed: nothing more will come
            return False

    terminal_input.vt100_parser = BurstPasteParser(
        terminal_input.vt100_parser.feed_key_callback, more_waiting
    )
