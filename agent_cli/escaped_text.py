r"""A stretch of text with its character escapes read back, and where each read character
came from. Pure: no I/O.

Why: a program can write any character, a letter or a digit too, as an escape:
`hexdump -e '"\x" 1/1 "%02x"'`, Perl's `sprintf "\x%02X"`, Python's `\u%04x` or
`&#x%x;` per character, `od | sed 's/ /\x/g'`, a URL encoder told to encode
everything. Listing every escape of every character as a spelling of a secret would
multiply its pattern (`agent_cli.character_escapes` leaves letters and digits out for
that); reading the escapes back once and looking for the secret in what they say costs
one scan where no escape stands, and a read of the stretches where some do.

Contract: `ESCAPE` finds one escape; `read_escapes(text, start, end, escapes,
joined=...)` reads `text[start:end]`, whose escapes `escapes` are (in order, each inside
it), into an `EscapedText`:
- each escape as what it stands for: a byte (`\xNN`, `%NN`, octal `\NNN` up to `\377`) as the
  character of that code (U+0000 to U+00FF, so UTF-8 bytes read as Latin-1: a caller
  looks for a value's UTF-8 read so too); a code point (`\uNNNN`, a surrogate pair
  of them joined, `\u{N}`, `\x{N}`, `\UNNNNNNNN`, `&#xN;`, `&#N;`) as it; a named
  HTML reference (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&sol;`) and a backslash
  before ASCII punctuation as that character. Hex digits in either case. An escape of a
  code point past U+10FFFF is no escape.
- every other character as itself; with `joined`, what stands between two escapes is
  left out where it is a separator (`JOINER`: up to `JOINER_CHARS` characters that are no
  letter, digit or line break, `\x67 \x68`, `"\x67" + "\x68"`; or a line
  break with blanks and an offset, as a dump's rows end and begin).
`view` is the text read; `span_of(start, end)` the stretch of `text` that `view[start:end]`
was read from (from the first character of the escape or character read first to the
last of the one read last). `LONGEST_ESCAPE` is the most characters one escape takes.
`escape_fragments(character)`: the escapes `ESCAPE` reads as `character`, as regex
fragments for `agent_cli.literal_trie` (what a finder looks for first, so that escapes
that stand for nothing it knows cost one scan, not a read).
"""

from __future__ import annotations

import bisect
import html
import re
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass

LONGEST_ESCAPE = len("\\uD83D\\uDE00")  # `&#x0010FFFF;` is as long
JOINER_CHARS = 8
_BLANKS = r"[^\S\r\n]{0,4}"
JOINER = re.compile(
    rf"[^0-9A-Za-z\r\n]{{1,{JOINER_CHARS}}}"
    rf"|{_BLANKS}\r?\n(?:[0-9A-Fa-f]{{1,8}}:?)?{_BLANKS}"
)
LONGEST_JOINER = 2 * 4 + len("\r\n") + len("FFFFFFFF:")
_HEX = "[0-9A-Fa-f]"
# Each kind of escape by the character it begins with: the rest of its text, and how the
# whole of it is read. A pair of UTF-16 surrogates comes before one `\u` escape, `\x{...}`
# before `\xNN`. Every branch of `ESCAPE` begins with its literal first character, so
# `re` skips at once the text where none stands (a group first would make it try every
# position: a hundred times slower on ordinary output).
_KINDS: dict[str, dict[str, tuple[str, Callable[[str], int]]]] = {
    "\\": {
        "pair": (
            rf"u[dD][89abAB]{_HEX}{{2}}\\u[dD][c-fC-F]{_HEX}{{2}}",
            lambda text: (
                0x10000 + (int(text[2:6], 16) - 0xD800) * 0x400 + int(text[8:], 16) - 0xDC00
            ),
        ),
        "braced": (rf"[xu]\{{{_HEX}{{1,6}}\}}", lambda text: int(text[3:-1], 16)),
        "unit": (rf"u{_HEX}{{4}}", lambda text: int(text[2:], 16)),
        "wide": (rf"U{_HEX}{{8}}", lambda text: int(text[2:], 16)),
        "byte": (rf"x{_HEX}{{2}}", lambda text: int(text[2:], 16)),
        "octal": (r"[0-3][0-7]{2}|[0-7]{1,2}", lambda text: int(text[1:], 8)),
        "punctuation": (r"""[!-/:-@\[-`{-~]""", lambda text: ord(text[1])),
    },
    "%": {"percent": (rf"{_HEX}{{2}}", lambda text: int(text[1:], 16))},
    "&": {
        "hex_reference": (rf"#[xX]{_HEX}{{1,8}};", lambda text: int(text[3:-1], 16)),
        "reference": (r"#[0-9]{1,8};", lambda text: int(text[2:-1])),
        "named": (r"(?:amp|lt|gt|quot|apos|sol);", lambda text: ord(html.unescape(text))),
    },
}
_READERS = {name: read for kinds in _KINDS.values() for name, (_, read) in kinds.items()}
ESCAPE = re.compile(
    "|".join(
        re.escape(lead)
        + "(?:"
        + "|".join(f"(?P<{name}>{rest})" for name, (rest, _) in kinds.items())
        + ")"
        for lead, kinds in _KINDS.items()
    )
)


_NAMED = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos", "/": "sol"}
_PUNCTUATION = frozenset(string.punctuation)


def escape_fragments(character: str) -> list[list[str]]:
    """Each escape `ESCAPE` reads as `character`, as `literal_trie` fragments (module
    contract): hex digits in either case, with the leading zeros the escape may have; one
    that begins with a backslash also with that backslash doubled (`\\\\x67`, a JSON
    string of `\\x67`, which is read twice)."""
    point = ord(character)
    backslashed: list[list[str]] = [["U", *_hex(f"{point:08x}")]]
    if point <= 0xFF:
        backslashed.append(["x", *_hex(f"{point:02x}")])
        octal = f"{point:o}"
        backslashed += [[*"0" * pad, *octal] for pad in range(4 - len(octal))]
    units = character.encode("utf-16-be", "surrogatepass").hex()
    backslashed.append(["u", *_hex(units[:4])])
    if len(units) > 4:
        backslashed[-1] += ["\\\\", "\\\\?", "u", *_hex(units[4:])]
    digits = f"{point:x}"
    braced = [f"0{{0,{6 - len(digits)}}}", *_hex(digits), "\\}"]
    backslashed += [[lead, "\\{", *braced] for lead in "xu"]
    if character in _PUNCTUATION:
        backslashed.append([re.escape(character)])
    texts = [["\\\\", "\\\\?", *rest] for rest in backslashed]
    if point <= 0xFF:
        texts.append(["%", *_hex(f"{point:02x}")])
    texts.append(["&", "#", "[xX]", f"0{{0,{8 - len(digits)}}}", *_hex(digits), ";"])
    texts.append(["&", "#", f"0{{0,{8 - len(str(point))}}}", *str(point), ";"])
    if character in _NAMED:
        texts.append(["&", *_NAMED[character], ";"])
    return texts


def _hex(digits: str) -> list[str]:
    """Hex `digits` as fragments, each letter in either case."""
    return [f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits]


def _read(escape: re.Match[str]) -> str | None:
    """The character `escape` stands for (module contract); None when it stands for none."""
    kind = escape.lastgroup
    point = _READERS[kind](escape.group()) if kind is not None else -1
    return chr(point) if 0 <= point <= 0x10FFFF else None


@dataclass(frozen=True)
class EscapedText:
    """A stretch of text read (module contract)."""

    view: str
    # For each piece of `view` (a stretch of plain characters, or one escape read), in
    # order: where it begins in `view`, and where it was read from in the text, and
    # whether it is an escape (one character of `view` for all of it).
    _view_starts: tuple[int, ...]
    _pieces: tuple[tuple[int, int, bool], ...]

    def span_of(self, start: int, end: int) -> tuple[int, int]:
        """The stretch of the text `view[start:end]` was read from (module contract)."""
        return self._text_at(start)[0], self._text_at(end - 1)[1]

    def _text_at(self, at: int) -> tuple[int, int]:
        """Where `view[at]` was read from in the text."""
        index = bisect.bisect_right(self._view_starts, at) - 1
        text_start, text_end, escaped = self._pieces[index]
        if escaped:
            return text_start, text_end
        place = text_start + at - self._view_starts[index]
        return place, place + 1


def read_escapes(
    text: str, start: int, end: int, escapes: Iterable[re.Match[str]], *, joined: bool
) -> EscapedText:
    """`text[start:end]` with its `escapes` read (module contract)."""
    parts: list[str] = []
    view_starts: list[int] = []
    pieces: list[tuple[int, int, bool]] = []
    length, at, after_escape = 0, start, False

    def add(part: str, text_start: int, text_end: int, escaped: bool) -> None:
        nonlocal length
        parts.append(part)
        view_starts.append(length)
        pieces.append((text_start, text_end, escaped))
        length += len(part)

    for escape in escapes:
        read = _read(escape)
        if read is None:
            continue
        gap = text[at : escape.start()]
        if gap and not (joined and after_escape and JOINER.fullmatch(gap)):
            add(gap, at, escape.start(), False)
        add(read, escape.start(), escape.end(), True)
        at, after_escape = escape.end(), True
    if at < end:
        add(text[at:end], at, end, False)
    return EscapedText("".join(parts), tuple(view_starts), tuple(pieces))
