"""Making text from the model, tools and files safe to put on the user's terminal.

Contract: everything the REPL shows that it did not write itself passes through here
first. `sanitize_text` removes what could move the cursor, recolour, retitle or clear the
screen (ANSI/VT escape sequences, C0/C1 control characters) and keeps only `\\n` and `\\t`,
and what would reorder text or draw as nothing (bidi controls and marks, the zero-width
space, tags: `hidden_characters`; the joiners, selectors and soft hyphen real text is
written with stay); a carriage return (or
U+2028/U+2029, which many readers take for one) becomes a line break, so "ok\\rFAKE"
cannot hide "ok"; a lone surrogate (text UTF-8 cannot carry: a broken endpoint's answer, a
name that is not UTF-8) becomes U+FFFD, so no terminal writer fails on it.
`sanitize_segment_text` is that for one piece of a rendered line (what rich's Markdown
drew), on one line. `defuse_fake_compact_lines` marks lines that pose as the
REPL's own `[compact]` log, so a model cannot fake a compaction report: a line whose
first drawn characters are the tag, after blanks, combining marks or characters that
draw as nothing (a terminal drops a combining mark at column 0). Where the user
approves what is there (`approval_view`), nothing is removed:
`written_out.reveal_controls` writes out every character a terminal would obey, hide or
draw as a blank (`^M`, `<U+202E>`, `<U+FE0F>`, decided by Unicode category, see
`is_revealed_character`), and `show_path` names a file so that no two paths read alike.
`clip_path` names a path as approvals do and shortens it in its middle, keeping the file
name.
Rich markup is never interpreted
because the REPL renders outside text only through `rich.text.Text` objects, never as
markup strings; `escape_markup` exists for the rare place that builds markup.
"""

from __future__ import annotations

import re
import unicodedata

from agent_cli.hidden_characters import (
    is_hidden_character,
    unfinished_flag_start,
    without_hidden_characters,
)
from agent_cli.safe_cuts import safe_head_end
from agent_cli.terminal_escapes import without_escapes
from agent_cli.written_out import revealed_pieces

COMPACT_TAG = "[compact]"
FAKE_COMPACT_MARK = "› "  # visible, and no longer a line that starts with the tag
ELLIPSIS = "…"
TAB_SIZE = 8  # the columns a tab expands to: rich's own default, so every view agrees

# C0 controls except \t and \n, DEL, C1 controls.
_CONTROL_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A carriage return and the Unicode line and paragraph separators: each starts a line.
_LINE_BREAKS = str.maketrans({"\r": "\n", "\u2028": "\n", "\u2029": "\n"})
# What UTF-8 cannot encode: writing it to a UTF-8 terminal raised UnicodeEncodeError.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_MARKUP_OPEN = re.compile(r"(\\*)(\[[a-zA-Z@/#])")


def sanitize_text(text: str) -> str:
    """`text` with escape sequences, control characters and hidden characters removed
    (`\\n`, `\\t` kept) and every lone surrogate shown as U+FFFD."""
    text = text.replace("\r\n", "\n").translate(_LINE_BREAKS)
    text = without_hidden_characters(without_escapes(text))
    return _LONE_SURROGATE.sub("\ufffd", _CONTROL_CHARACTER.sub("", text))


def sanitize_segment_text(text: str) -> str:
    """One piece of a rendered line made safe as `sanitize_text` makes text, kept on its
    line: a line break a renderer drew from a character reference becomes a space."""
    return sanitize_text(text).replace("\n", " ")


# Categories of what draws nothing or a blank before a line's first drawn character:
# combining marks (a terminal drops one at column 0), format characters, separators and
# controls.
_UNSEEN_CATEGORIES = frozenset({"Mn", "Mc", "Me", "Cf", "Cc", "Zs", "Zl", "Zp"})
_BLANK_SYMBOLS = frozenset({"\u2800"})  # braille pattern blank


def is_unseen_lead(character: str) -> bool:
    """True when `character` at a line's start would leave the tag after it looking like
    the start of the line: a blank, a combining mark, a character that draws nothing."""
    return (
        character.isspace()
        or unicodedata.category(character) in _UNSEEN_CATEGORIES
        or character in _BLANK_SYMBOLS
        or is_hidden_character(character)
    )


def is_fake_compact_line(line: str) -> bool:
    """True when a line of outside text would read like the REPL's `[compact]` log: its
    first drawn characters, after any unseen lead (`is_unseen_lead`), are the tag."""
    start = 0
    while start < len(line) and is_unseen_lead(line[start]):
        start += 1
    return line.startswith(COMPACT_TAG, start)


def defuse_fake_compact_lines(text: str) -> str:
    """Prefix every line that poses as a `[compact]` line with a visible mark."""
    lines = text.split("\n")
    return "\n".join(
        FAKE_COMPACT_MARK + line if is_fake_compact_line(line) else line for line in lines
    )


def sanitize_block(text: str) -> str:
    """Multi-line outside text, ready to show: sanitized and with fake log lines defused."""
    return defuse_fake_compact_lines(sanitize_text(text))


def clip_line(text: str, limit: int = 120) -> str:
    """One safe line of at most `limit` characters: line breaks and tabs become spaces.
    A cut falls between words when a space is near the end (in its last quarter), so
    a clipped message does not end in half a word; it never ends in half a pointer
    (`safe_cuts`: the pointer is kept whole, so `/sources`, `/last` and the tool lines
    show pointers that can be copied and used)."""
    flat = " ".join(sanitize_text(text).split())
    if len(flat) <= limit:
        return flat
    end = safe_head_end(flat, max(limit - 1, 0))
    if end == len(flat):
        return flat
    cut = flat[:end]
    space = cut.rfind(" ")
    if end == limit - 1 and space >= len(cut) - len(cut) // 4 and space > 0:
        cut = cut[:space]
    return cut + ELLIPSIS


def clip_path(path: str, limit: int = 120) -> str:
    """A path on one line as approvals and the file tools name it (every control written
    out: `reveal_all`), cut in the middle past `limit` characters, never inside a
    written-out code, keeping its end (the file name)."""
    return clip_middle(revealed_pieces(path), limit)


def clip_middle(pieces: list[str], limit: int) -> str:
    """The pieces (characters, or written-out codes) joined; when longer than `limit`
    characters, a third of that from the start and the rest from the end with an
    ellipsis between, no piece cut."""
    if sum(map(len, pieces)) <= limit:
        return "".join(pieces)
    head_room = max(limit - 1, 0) // 3
    tail_room = max(limit - 1 - head_room, 0)
    head = _take_pieces(pieces, head_room)
    tail = _take_pieces(pieces[len(head) :][::-1], tail_room)[::-1]
    return "".join(head) + ELLIPSIS + "".join(tail)


def _take_pieces(pieces: list[str], room: int) -> list[str]:
    taken: list[str] = []
    used = 0
    for piece in pieces:
        used += len(piece)
        if used > room:
            break
        taken.append(piece)
    return taken


def clip_output_line(text: str, limit: int = 120) -> str:
    """One line of outside output as it is: sanitized, tabs expanded to `TAB_SIZE`
    columns, leading indentation and inner runs of spaces kept (so code stays indented
    and the columns of `ls -la` stay aligned), trailing spaces dropped. A longer line is
    cut to `limit` characters ending in an ellipsis, never inside a pointer. Callers pass
    one line; a line break in it becomes a space."""
    line = sanitize_text(text).replace("\n", " ").expandtabs(TAB_SIZE).rstrip()
    if len(line) <= limit:
        return line
    end = safe_head_end(line, max(limit - 1, 0))
    return line if end == len(line) else line[:end] + ELLIPSIS


def escape_markup(text: str) -> str:
    """Escape rich markup in `text` (only for places that must build a markup string)."""
    return _MARKUP_OPEN.sub(lambda m: m.group(1) * 2 + "\\" + m.group(2), text)


class StreamSanitizer:
    """Sanitizes streamed text piece by piece, as the pieces arrive.

    A piece may end in the middle of a line, so a line start that could still turn into
    `[compact]` (unseen lead, then part of the tag) is held back until it is decided, a
    trailing `\\r` is held until the next piece shows whether `\\n` follows, and a
    trailing subdivision flag (at most six characters, `unfinished_flag_start`) until it
    shows whether its tags finish it, which alone would be removed. Each character is
    looked at a bounded number of times, so any stream shows in time linear in its
    length. `feed` returns what can be shown now; `finish` returns whatever was held back.
    """

    def __init__(self) -> None:
        self._held: list[str] = []  # undecided start of the current line
        self._tag_seen = 0  # how much of the tag the held start ends in
        self._at_line_start = True
        self._carried = ""  # raw text the next piece may change: a `\\r`, a flag's start

    def feed(self, piece: str) -> str:
        piece, self._carried = self._carried + piece, ""
        if piece.endswith("\r"):
            piece, self._carried = piece[:-1], "\r"
        else:
            start = unfinished_flag_start(piece)
            piece, self._carried = piece[:start], piece[start:]
        return self._show(sanitize_text(piece))

    def finish(self) -> str:
        shown = self._show(sanitize_text(self._carried))
        rest = shown + "".join(self._held)
        self._held, self._tag_seen, self._at_line_start, self._carried = [], 0, True, ""
        return rest

    def _show(self, text: str) -> str:
        shown: list[str] = []
        for index, fragment in enumerate(text.split("\n")):
            if index > 0:
                shown.append(self._end_line())
            shown.append(self._take_fragment(fragment))
        return "".join(shown)

    def _end_line(self) -> str:
        line_rest = "".join(self._held)
        self._held, self._tag_seen, self._at_line_start = [], 0, True
        return line_rest + "\n"

    def _take_fragment(self, fragment: str) -> str:
        if not self._at_line_start:
            return fragment
        for character in fragment:
            if self._tag_seen == 0 and is_unseen_lead(character):
                continue
            if character != COMPACT_TAG[self._tag_seen]:
                return self._decide(fragment, fake=False)
            self._tag_seen += 1
            if self._tag_seen == len(COMPACT_TAG):
                return self._decide(fragment, fake=True)
        self._held.append(fragment)  # still undecided (possibly empty)
        return ""

    def _decide(self, fragment: str, *, fake: bool) -> str:
        line_start = "".join(self._held) + fragment
        self._held, self._tag_seen, self._at_line_start = [], 0, False
        return FAKE_COMPACT_MARK + line_start if fake else line_start


def show_path(path: str, limit: int | None = None, written: frozenset[int] = frozenset()) -> str:
    """A path as an approval names it: every control written out (`^J` for a line
    feed), and in double quotes (`\\` and `\"` inside) when it holds a space, a quote or
    a backslash, so `notes.txt `, `my  notes.txt` and `notes.txt` never read alike; the
    characters at `written` written out too (`<U+0301>`).
    Past `limit` characters it is cut in the middle, never inside a written-out code,
    keeping its end: the file name."""
    quoted = any(character in path for character in ' "\\')
    pieces = revealed_pieces(path)
    for at in written:
        if pieces[at] == path[at]:
            pieces[at] = f"<U+{ord(path[at]):04X}>"
    if quoted:
        pieces = [piece.replace("\\", "\\\\").replace('"', '\\"') for piece in pieces]
    room = None if limit is None else max(limit - (2 if quoted else 0), 2)
    shown = "".join(pieces) if room is None else clip_middle(pieces, room)
    return f'"{shown}"' if quoted else shown
