"""Breaking the REPL's own lines at word boundaries, for the terminal's width.

Contract: `wrap_at_words(text, width)` cuts a rich `Text` into rows of at most `width`
cells, breaking only at spaces (the spaces at a break are dropped; the first row keeps
its indentation). A word wider than `width` (a long path or pointer) stays whole on a
row of its own: the terminal folds it, and it still copies as one piece. A break can
move outside text (a path, a message) to the start of a row, so every row that would
read like the REPL's `[compact]` log is marked the way `safe_text` marks such lines.
`print_at_words(console, *texts)` prints them so on a terminal (the texts of a `Group`
one by one); on a pipe or in a log each text stays one line, as scripts and logs expect.
"""

from __future__ import annotations

from rich.cells import get_character_cell_size
from rich.console import Console, Group
from rich.text import Text

from agent_cli.repl.safe_text import FAKE_COMPACT_MARK, is_fake_compact_line


def find_row_spans(plain: str, width: int) -> list[tuple[int, int]]:
    """(start, end) of each row of `plain` (one line) wrapped at spaces to `width` cells."""
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(plain):
        end = _row_end(plain, start, max(width, 1))
        spans.append((start, end))
        start = end
        while start < len(plain) and plain[start] == " ":
            start += 1
    return spans or [(0, 0)]


def _row_end(plain: str, start: int, width: int) -> int:
    """Where the row that starts at `start` ends: at the last space that lets it fit, or
    after the first word when even that one is wider than `width`."""
    fits = _fitting_end(plain, start, width)
    if fits == len(plain) or plain[fits] == " ":
        return fits
    space = plain.rfind(" ", start, fits)
    if space > start and plain[start:space].strip():
        return space
    next_space = plain.find(" ", fits)
    return len(plain) if next_space < 0 else next_space


def _fitting_end(plain: str, start: int, width: int) -> int:
    """The end of the longest piece of `plain` from `start` that fits in `width` cells."""
    cells = 0
    for index in range(start, len(plain)):
        cells += get_character_cell_size(plain[index])
        if cells > width:
            return index
    return len(plain)


def break_at_words(plain: str, width: int) -> str:
    """`plain` (one line of the REPL's own words, such as a question a prompt asks) with
    line breaks where `find_row_spans` breaks it for `width` cells."""
    return "\n".join(plain[start:end] for start, end in find_row_spans(plain, width))


def wrap_at_words(text: Text, width: int, *, is_own_log_line: bool = False) -> list[Text]:
    """`text` as rows of at most `width` cells broken at spaces; see the module contract.
    `is_own_log_line`: `text` is the REPL's own `[compact]` line, whose first row keeps
    its tag (every later row is still checked)."""
    rows: list[Text] = []
    for line in text.split("\n"):
        for start, end in find_row_spans(line.plain, width):
            row = line[start:end]
            if end < len(line.plain):  # a break: the spaces before it go too
                row.rstrip()
            is_own_tag = is_own_log_line and not rows
            if is_fake_compact_line(row.plain) and not is_own_tag:
                row = Text.assemble(FAKE_COMPACT_MARK, row)
            rows.append(row)
    return rows


def print_at_words(console: Console, *texts: Text | Group, is_own_log_line: bool = False) -> None:
    """Print each text wrapped at words on a terminal, or as one line elsewhere
    (`is_own_log_line` as for `wrap_at_words`); a `Group` is printed part by part, its
    texts so and anything else as rich lays it out."""
    for text in texts:
        if isinstance(text, Group):
            for part in text.renderables:
                if isinstance(part, Text):
                    print_at_words(console, part, is_own_log_line=is_own_log_line)
                else:
                    console.print(part)
            continue
        if not console.is_terminal:
            console.print(text, soft_wrap=True)
            continue
        for row in wrap_at_words(text, console.width, is_own_log_line=is_own_log_line):
            console.print(row, soft_wrap=True)
