"""The lines between a tool panel's top and bottom: the first lines of what the tool
returned, then how many more the output has and how to see them all.

Contract: `build_tool_preview_lines(event, limit, width, hint)` shows up to `limit`
lines of the result, then "+N lines" and `hint` (`/last`; "" where there is none, as in
`-p`); for a command Ctrl-C stopped, its last lines instead (those the running view
showed stay on screen) after how many came before. N counts the output's lines, not the
preview's: a stored output's preview stands for its omitted middle with one marker line,
which counts as the lines it left out. Lines are shown as they are (indentation and
inner spaces kept, tabs expanded: `clip_output_line`), clipped to fit the frame.
"""

from __future__ import annotations

import re

from rich.text import Text

from agent_cli.events import ToolFinished
from agent_cli.repl.safe_text import clip_output_line, sanitize_text
from agent_cli.repl.tool_activity import LIVE_TAIL_LINES
from agent_cli.repl.tool_lines import SIDE, fit_row
from agent_cli.tools.output import count_noun

PREVIEW_LINES = 4
PREVIEW_WIDTH = 160
SHOW_ALL_HINT = "/last shows all"
# Lines the tool layer adds for the model, not output the user needs to see twice (the
# workspace folder gone during the call: the user's own words follow the panel, `render`).
_BOOKKEEPING_PREFIXES = ("[Output was ", "[Full output: ", "[After this call: ")
# The omitted middle of a head/tail preview (`tools.output.render_preview`): one line of
# the preview that stands for this many lines of the output.
_OMITTED_MIDDLE = re.compile(r"^\[\.\.\. [\d,]+ bytes \(([\d,]+) lines?\) omitted; ")


def select_preview_lines(event: ToolFinished) -> list[str]:
    """The lines of the result worth showing: without its first line (a result's header,
    such as the exit code or file name, or a failure's message: the closing line says
    it) and without the notes the tool layer writes for the model about artifacts."""
    lines = sanitize_text(event.output).strip("\n").split("\n") if event.output else []
    lines = lines[1:]  # the header, or a failure's first line: the closing line says it
    return [line for line in lines if not line.startswith(_BOOKKEEPING_PREFIXES)]


def build_tool_preview_lines(
    event: ToolFinished,
    limit: int | None = None,
    width: int | None = None,
    hint: str = SHOW_ALL_HINT,
) -> list[Text]:
    """Up to `limit` lines of the result (`PREVIEW_LINES` unless given), then "+N lines"
    (the output's lines, not the preview's: a stored output's omitted middle counts
    whole) and `hint`, how to see them all ("" where there is no /last, as in `-p`); for
    an interrupted command, how many lines came first, then its last `limit` lines
    (`LIVE_TAIL_LINES` unless given: the ones its running view showed). With `width`,
    each line is clipped to fit inside the frame."""
    lines = select_preview_lines(event)
    if event.interrupted:
        rows = _tail_rows(lines, LIVE_TAIL_LINES if limit is None else limit, hint)
    else:
        rows = _head_rows(lines, PREVIEW_LINES if limit is None else limit, hint)
    line_width = PREVIEW_WIDTH if width is None else min(PREVIEW_WIDTH, width - len(SIDE))
    return [
        fit_row(
            Text.assemble((SIDE, "dim"), clip_output_line(row, max(line_width, 10)))
            if isinstance(row, str)
            else Text.assemble((SIDE, "dim"), row),
            width,
        )
        for row in rows
    ]


def count_output_lines(lines: list[str]) -> int:
    """How many lines of the tool's output `lines` (preview lines) stand for: a head/tail
    preview's omitted-middle marker counts as the lines it left out, not as one."""
    total = 0
    for line in lines:
        omitted = _OMITTED_MIDDLE.match(line)
        total += int(omitted.group(1).replace(",", "")) if omitted else 1
    return total


def _hint(hint: str) -> str:
    return f" ({hint})" if hint else ""


def _head_rows(lines: list[str], limit: int, hint: str) -> list[str | Text]:
    """The first `limit` lines, then how many more lines the output has."""
    rows: list[str | Text] = [*lines[:limit]]
    hidden = count_output_lines(lines[limit:])
    if hidden > 0:
        rows.append(Text(f"… +{count_noun(hidden, 'line')}{_hint(hint)}", "dim italic"))
    return rows


def _tail_rows(lines: list[str], limit: int, hint: str) -> list[str | Text]:
    """How many lines of output came before, then the last `limit` lines."""
    cut = len(lines) - limit
    if cut <= 0:
        return [*lines]
    hidden = count_output_lines(lines[:cut])
    earlier = Text(f"… {count_noun(hidden, 'earlier line')}{_hint(hint)}", "dim italic")
    return [earlier, *lines[cut:]]
