"""One word of shell text, read as bash reads it: how `.envrc` assigns a value. Pure.

direnv sources `.envrc` with bash, and tools that write one quote values the shell's
way (`shlex.quote` writes `a'b` as `'a'"'"'b'`; `declare -p` and `printf %q` write a
line break as `$'\\n'`), which no dotenv parser reads as the shell does.

Contract: `read_shell_word(text, start)` is the word that starts at `start`, or None
when it does not end (a quote left open, or a word longer than `MAX_WORD_CHARS`). A
word ends at an unquoted blank or line break. It joins its pieces: `'...'` as written
(over lines too), `"..."` with `\\\\ \\" \\$ \\`` unescaped and an escaped line break
dropped, `$'...'` with its C escapes decoded, and unquoted text with each `\\x` read as
`x` and an escaped line break dropped. Expansions (`$HOME`, `$(cmd)`) are
taken as written: what they would give is not known without running them.
`split_shell_words(text)` is every such word of `text`, in order; a word that does not
end is left out up to the next blank, and the words after it read on (loosely: a quote
left open may pair with the wrong one), so no word after an overlong one is missed.
"""

from __future__ import annotations

import codecs
import re

MAX_WORD_CHARS = 32_768
_PIECE = re.compile(
    r"'(?P<single>[^']*)'"
    r"|\$'(?P<ansi>(?:\\.|[^'\\])*)'"
    r'|"(?P<double>(?:\\.|[^"\\])*)"'
    r"|\\(?P<escaped>.)"
    r"|(?P<plain>[^\s'\"\\$]+|\$)",
    re.DOTALL,
)
_BLANK = re.compile(r"\s")
_DOUBLE_ESCAPES = re.compile(r'\\([\\"$`\n])')


def read_shell_word(text: str, start: int) -> str | None:
    """The shell word at `start`, or None (module contract)."""
    found = _read_word(text, start)
    return None if found is None else found[0]


def split_shell_words(text: str) -> list[str]:
    """The words of `text` (module contract)."""
    words: list[str] = []
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            return words
        found = _read_word(text, position)
        if found is None:
            blank = _BLANK.search(text, position)
            position = len(text) if blank is None else blank.end()
        else:
            words.append(found[0])
            position = found[1]


def _read_word(text: str, start: int) -> tuple[str, int] | None:
    """The shell word at `start` and where it ends, or None (module contract)."""
    limit = min(len(text), start + MAX_WORD_CHARS)
    pieces: list[str] = []
    position = start
    while position < limit and not text[position].isspace():
        found = _PIECE.match(text, position, limit)
        if found is None:
            return None  # a quote left open
        pieces.append(_piece_text(found))
        position = found.end()
    if position == limit < len(text) and not text[position].isspace():
        return None
    return "".join(pieces), position


def _piece_text(found: re.Match[str]) -> str:
    kind = found.lastgroup
    piece = found.group(kind or 0)
    if kind == "double":
        return _DOUBLE_ESCAPES.sub(lambda escape: escape[1].replace("\n", ""), piece)
    if kind == "ansi":
        return ansi_c_decoded(piece)
    if kind == "escaped":
        return "" if piece == "\n" else piece
    return piece


def ansi_c_decoded(body: str) -> str:
    """bash's `$'...'`: the C escapes decoded (as Python's own, which they mostly are)."""
    try:
        return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except UnicodeDecodeError:
        return body
