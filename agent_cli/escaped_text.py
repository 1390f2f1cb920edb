r"""A stretch of text with its character escapes read back, and where each read character
came from. Pure: no I/O.

Why: a program can write any character, a letter or a digit too, as an escape:
`hexdump -e '"\x" 1/1 "%02x"'`, Perl's `sprintf "\x%02X"`, Python's `\u%04x` or
`&#x%x;` per character, `od | sed 's/ /\x/g'`, a URL encoder told to encode
everything; and what it wrote may be escaped again (a JSON string of it, `jq -Rs` twice,
a URL of a URL). Listing every escape of every character as a spelling of a secret would
multiply its pattern (`agent_cli.character_escapes` leaves letters and digits out for
that); reading the escapes back once and looking for the secret in what they say costs
one scan where no escape stands, and a read of the stretches where some do.

Contract: `ESCAPE` finds one escape (`ANY_ESCAPE`: its pattern without groups). A
`Reading` says how a stretch is read: `deep` or not, `joined` or not, `spaced` or not,
read `again` or not (below). `read_views(text, start, end, least)` gives each reading of `text[start:end]`
that may read it differently and what it reads as, and `read_escapes(text, start, end,
reading)` one reading as an `EscapedText` (an `EscapedTwice`, read `again`) that also
maps it back (`read_views` is the cheap one: `re.sub`, no map):
- each escape as what it stands for: a byte (`\xNN`, `%NN`, octal `\NNN` up to `\377`) as the
  character of that code (U+0000 to U+00FF, so UTF-8 bytes read as Latin-1: a caller
  looks for a value's UTF-8 read so too); a code point (`\uNNNN`, a surrogate pair
  of them joined, `\u{N}`, `\x{N}`, `\UNNNNNNNN`, `&#xN;`, `&#N;`) as it; a named
  HTML reference (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&sol;`) and a backslash
  before ASCII punctuation as that character. Hex digits in either case. A numeric HTML
  reference as a browser and Python's `html.unescape` read it: any number of leading
  zeros (`&#x0000000067;`, `&#0000000103;`), its `;` left out where no digit follows
  (`&#103&#104`). An escape of a code point past U+10FFFF is no escape.
- with `deep`, an escape's first character escaped in turn, as a JSON string, a URL or
  an HTML page of escaped text writes it, is read with it: a backslash as up to `DEPTH`
  backslashes (`\\\\x67`: JSON of JSON), the last maybe written `\u005c` or `\x5c`
  (`\u005cx67`); a `%` followed by up to four `25`s (`%252567`); an `&` written `&` or
  `\u0026` (Go's JSON) followed by up to four `amp;`s (`&amp;#x67;`). A run of
  backslashes is read from its first one only (a long run costs one try, not one per
  backslash). Without `deep`, each backslash, `%` and `&` begins an escape of its own
  (`\\\\` is two backslashes: a value that holds some is read so).
- with `again`, an escape whose own characters are all escaped (`\x5c\x78\x36\x37`,
  `\u005c\u0078...`, `&#x5c;&#x78;...`: `\x67`; `&#x26;&#x23;...`: `&#x67;`;
  `\x25\x36\x37`: `%67`): the stretch is read shallow, and what that reads as is read
  again as `again` says (one level: escapes written with escapes written with escapes
  are not read). `ESCAPED_LEAD` finds where a stretch may need it: the code of a
  backslash, `&` or `%` written as an escape right before another escape.
- every other character as itself; with `joined`, what stands between two escapes is
  left out where it is a separator (`JOINER`: up to `JOINER_CHARS` characters that are no
  letter, digit or line break, `\x67 \x68`, `"\x67" + "\x68"`; or a line break, real
  (`\n`, `\r\n`) or escaped as a JSON string writes it, its backslashes doubled up to
  `DEPTH` times (`\n`, `\r\n`, `\\n`), with up to `JOINER_CHARS` such characters on
  either side and a dump's offset after it, as a dump's rows, a wrapped C list or
  JavaScript concatenation end and begin; else any characters but a line break, up to
  `WIDE_JOINER_CHARS`, the fewest before the next escape: `\x67<span></span>\x68`,
  `\x67, 0, \x68`. The bound: 24 takes an empty HTML element with a short attribute
  (`<b class="x"></b>`, 17), a padding field of a CSV or a C list, a short comment; every
  character more is tried after each escape no escape follows, and a longer separator
  is a layout made to pass, which any bound lets through). With `spaced` too (a joined reading, tried
  where something stands between two escapes and some character stands alone between
  blanks), a character standing alone (`LONE`, no blank before it either) is read as an
  escape is, and the blanks (`BLANKS`: up to `JOINER_CHARS` spaces or tabs) between two
  such characters or escapes are left out: `\x67 h \x70 _ \x5a` reads as `ghp_Z` (joined,
  the ` _ ` between two escapes would be a separator).
`view` is the text read; `span_of(start, end)` the stretch of `text` that `view[start:end]`
was read from (from the first character of the escape or character read first to the
last of the one read last). `LONGEST_ESCAPE` is the most characters one escape takes, an
HTML reference padded to 8 digits as encoders pad it (one padded further is longer: a
finder counts it against its longest stretch).
`escape_fragments(character)`: the escapes `ESCAPE` reads as `character` (read deep: a
shallow reading's escapes are among them), as regex
fragments for `agent_cli.literal_trie` (what a finder looks for first, so that escapes
that stand for nothing it knows cost one scan, not a read).
"""

from __future__ import annotations

import bisect
import functools
import html
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agent_cli.literal_trie import trie_pattern

DEPTH = 16
_REPEATS = 4
JOINER_CHARS = 8
# An escape's first character escaped over (`deep` reading): a backslash doubled up to
# `DEPTH` times, maybe then written `\u005c` or `\x5c` before a letter or digit; not after
# a backslash (a run of them is read from its first). `%` with up to `_REPEATS` `25`s
# after it; `&` or `\u0026` with up to `_REPEATS` `amp;`s after it.
# Each lead begins with its literal character (the lookbehind after it: not after a
# backslash), so `re` skips at once the text where none stands.
_BACKSLASHES_FIRST = rf"\\(?<!\\\\)\\{{0,{DEPTH - 1}}}"
_BACKSLASH_LEAD = rf"{_BACKSLASHES_FIRST}(?:(?:u005[cC]|x5[cC])(?=[xuU0-7]))?"
_LEADS = {
    True: (
        rf"(?:&|{_BACKSLASHES_FIRST}u0026)(?:amp;){{0,{_REPEATS}}}",
        _BACKSLASH_LEAD,
        rf"%(?:25){{0,{_REPEATS}}}",
    ),
    False: ("&", r"\\", "%"),
}
_BACKSLASHES = rf"\\{{1,{DEPTH}}}"
# Blanks between two characters or escapes that each stand alone (`spaced`), and such a
# character: one that is no blank or line break, with a blank, a line break or the end
# after it (a caller sees to what stands before it).
BLANKS = rf"[ \t]{{1,{JOINER_CHARS}}}"
LONE = r"[^ \t\r\n](?![^ \t\r\n])"
_LONE_INSIDE = re.compile(rf"(?:^|[ \t]){LONE}")
_SEPARATOR = rf"[^0-9A-Za-z\r\n]{{0,{JOINER_CHARS}}}"
_LINE_BREAK = rf"(?:\r?\n|(?:\\{{1,{DEPTH}}}r)?\\{{1,{DEPTH}}}n)"
JOINER = re.compile(
    rf"[^0-9A-Za-z\r\n]{{1,{JOINER_CHARS}}}"
    rf"|{_SEPARATOR}{_LINE_BREAK}(?:[0-9A-Fa-f]{{1,8}}:?)?{_SEPARATOR}"
)
# Anything but a line break between two escapes, up to `WIDE_JOINER_CHARS` (an HTML
# element, `, 0, `): the shortest that reaches an escape, so never one of them.
WIDE_JOINER_CHARS = 24
WIDE_JOINER = rf"[^\r\n]{{1,{WIDE_JOINER_CHARS}}}?"
LONGEST_JOINER = max(WIDE_JOINER_CHARS, 2 * JOINER_CHARS + 2 * (DEPTH + 1) + len("FFFFFFFF:"))
LONGEST_ESCAPE = DEPTH + len("u0026") + _REPEATS * len("amp;") + len("#x0010FFFF;")
_HEX = "[0-9A-Fa-f]"
# Each kind of escape by the pattern of its first character (as `_LEADS` orders them: an
# `&` written `\u0026` before a backslash escape): the rest of its text, and how that
# rest is read. A pair of UTF-16 surrogates comes before one `\u` escape,
# `\x{...}` before `\xNN`. Every branch of `ESCAPE` begins with its first character, so
# `re` skips at once the text where none stands (a group first would make it try every
# position: a hundred times slower on ordinary output).
_KINDS: tuple[dict[str, tuple[str, Callable[[str], int]]], ...] = (
    {
        "hex_reference": (
            rf"#[xX]0*{_HEX}{{1,6}}(?:;|(?!{_HEX}))",
            lambda rest: int(rest[2:].rstrip(";"), 16),
        ),
        "reference": (r"#0*[0-9]{1,7}(?:;|(?![0-9]))", lambda rest: int(rest[1:].rstrip(";"))),
        "named": (r"(?:amp|lt|gt|quot|apos|sol);", lambda rest: ord(html.unescape(f"&{rest}"))),
    },
    {
        "pair": (
            rf"u[dD][89abAB]{_HEX}{{2}}{_BACKSLASHES}u[dD][c-fC-F]{_HEX}{{2}}",
            lambda rest: (
                0x10000 + (int(rest[1:5], 16) - 0xD800) * 0x400 + int(rest[-4:], 16) - 0xDC00
            ),
        ),
        "braced": (rf"[xu]\{{{_HEX}{{1,6}}\}}", lambda rest: int(rest[2:-1], 16)),
        "unit": (rf"u{_HEX}{{4}}", lambda rest: int(rest[1:], 16)),
        "wide": (rf"U{_HEX}{{8}}", lambda rest: int(rest[1:], 16)),
        "byte": (rf"x{_HEX}{{2}}", lambda rest: int(rest[1:], 16)),
        "octal": (r"[0-3][0-7]{2}|[0-7]{1,2}", lambda rest: int(rest, 8)),
        "punctuation": (r"""[!-/:-@\[-`{-~]""", ord),
    },
    {"percent": (rf"{_HEX}{{2}}", lambda rest: int(rest, 16))},
)
_READERS = {name: read for kinds in _KINDS for name, (_, read) in kinds.items()}


def _alternation(*, deep: bool, named: bool) -> str:
    """An escape's pattern (module contract), its first character escaped over or not,
    its kinds as named groups or not."""
    return "|".join(
        f"{lead}(?:"
        + "|".join(
            f"(?P<{name}>{rest})" if named else f"(?:{rest})" for name, (rest, _) in kinds.items()
        )
        + ")"
        for lead, kinds in zip(_LEADS[deep], _KINDS, strict=True)
    )


def _joined(deep: bool) -> re.Pattern[str]:
    """An escape, and with it the separator up to the next escape (`joined`): `JOINER`,
    else none (an escape right after it), else `WIDE_JOINER`."""
    escape = _alternation(deep=deep, named=False)
    separator = f"(?:{JOINER.pattern})(?={escape})|(?={escape})|{WIDE_JOINER}(?={escape})"
    return re.compile(f"({escape})(?:{separator})?")


def _spaced(deep: bool) -> re.Pattern[str]:
    """An escape or a character standing alone between blanks (`spaced`), and with it
    the blanks up to the next such one, or the separator up to the next escape."""
    escape = _alternation(deep=deep, named=False)
    after = f"(?:{BLANKS}(?={LONE}|(?:{escape}))|(?:{JOINER.pattern})(?=(?:{escape})))?"
    return re.compile(
        f"({escape}){after}|(?<![^ \t\r\n])([^ \t\r\n])(?![^ \t\r\n])"
        f"(?:{BLANKS}(?={LONE}|(?:{escape})))?"
    )


ESCAPE = re.compile(_alternation(deep=True, named=True))
ANY_ESCAPE = _alternation(deep=True, named=False)  # `ESCAPE` without its groups
_SHALLOW = re.compile(_alternation(deep=False, named=True))
# Where a `deep` reading may differ from a shallow one: an escape's first character
# escaped over.
_DEEPER = re.compile(r"\\\\|\\(?:u005[cC]|x5[cC])[xuU0-7]|%25|&amp;|\\u0026")


@dataclass(frozen=True)
class Reading:
    """How a stretch is read (module contract): escapes' first characters escaped over
    or not (`deep`), separators between escapes left out or kept (`joined`), blanks
    between escapes and characters standing alone left out too (`spaced`, a joined
    reading); what that reads as read `again` so, or not."""

    deep: bool
    joined: bool
    again: Reading | None = None
    spaced: bool = False

    @property
    def pattern(self) -> re.Pattern[str]:
        if self.spaced:
            return _SPACED[self.deep]
        return _PATTERNS[self.deep, self.joined]

    def unit(self, found: re.Match[str]) -> tuple[str | None, int, int]:
        """What `found` (a match of `pattern`) reads as (None: it stands for nothing),
        and where in the stretch the escape or character it reads begins and ends."""
        if not self.joined:
            return _read(found.group(), self.deep), found.start(), found.end()
        escape = found.group(1)
        if escape is not None:
            return _read(escape, self.deep), found.start(1), found.end(1)
        return found.group(2), found.start(2), found.end(2)


_PATTERNS = {
    (deep, joined): _joined(deep) if joined else (ESCAPE if deep else _SHALLOW)
    for deep in (True, False)
    for joined in (False, True)
}
_SPACED = {deep: _spaced(deep) for deep in (True, False)}

_NAMED = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos", "/": "sol"}
_PUNCTUATION = frozenset(string.punctuation)


def escape_fragments(character: str, *, by_code: bool = False) -> list[list[str]]:
    """Each escape `ESCAPE` reads as `character`, as `literal_trie` fragments (module
    contract): hex digits in either case, with the leading zeros the escape may have,
    and the escape's first character escaped over as `ESCAPE` reads it; `by_code`: only
    those that give its code (not a backslash before it, not its HTML name)."""
    point = ord(character)
    backslashed: list[list[str]] = [["U", *_hex(f"{point:08x}")]]
    if point <= 0xFF:
        backslashed.append(["x", *_hex(f"{point:02x}")])
        octal = f"{point:o}"
        backslashed += [[*"0" * pad, *octal] for pad in range(4 - len(octal))]
    units = character.encode("utf-16-be", "surrogatepass").hex()
    backslashed.append(["u", *_hex(units[:4])])
    if len(units) > 4:
        backslashed[-1] += [_BACKSLASHES, "u", *_hex(units[4:])]
    digits = f"{point:x}"
    braced = [f"0{{0,{6 - len(digits)}}}", *_hex(digits), "\\}"]
    backslashed += [[lead, "\\{", *braced] for lead in "xu"]
    if character in _PUNCTUATION and not by_code:
        backslashed.append([re.escape(character)])
    ampersand, backslash, percent = _LEADS[True]
    texts = [[backslash, *rest] for rest in backslashed]
    if point <= 0xFF:
        texts.append([percent, *_hex(f"{point:02x}")])
    texts.append([ampersand, "#", "[xX]", "0*", *_hex(digits), f"(?:;|(?!{_HEX}))"])
    texts.append([ampersand, "#", "0*", *str(point), "(?:;|(?![0-9]))"])
    if character in _NAMED and not by_code:
        texts.append([ampersand, *_NAMED[character], ";"])
    return texts


def _hex(digits: str) -> list[str]:
    """Hex `digits` as fragments, each letter in either case."""
    return [f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits]


# Where a stretch may hold escapes written with escapes (`\x5c\x78\x36\x37`, `\x67`
# escaped): the code of an escape's first character (`\`, `&`, `%`) right before another
# escape. A backslash before punctuation (`\\`) and `&amp;` are left to a deep reading.
_LEAD_CHARACTERS = "\\&%"
ESCAPED_LEAD = re.compile(
    trie_pattern(
        fragments for lead in _LEAD_CHARACTERS for fragments in escape_fragments(lead, by_code=True)
    )
    + f"(?={ANY_ESCAPE})"
)


@functools.lru_cache(maxsize=4096)
def _read(escape: str, deep: bool) -> str | None:
    """The character the text `escape` (one escape, read `deep` or not) stands for
    (module contract); None when it stands for none. Remembered: a pure function of
    few distinct texts, called for each escape of every stretch read."""
    found = (ESCAPE if deep else _SHALLOW).fullmatch(escape)
    kind = found.lastgroup if found is not None else None
    point = _READERS[kind](found.group(kind)) if found is not None and kind is not None else -1
    return chr(point) if 0 <= point <= 0x10FFFF else None


class _Reader:
    """Reads the escapes of one stretch, and sees whether anything stands between two
    of them."""

    def __init__(self, reading: Reading) -> None:
        self._reading = reading
        self._last_end = -1
        self.separated = False

    def __call__(self, escape: re.Match[str]) -> str:
        """What `escape` (a match of the reading's pattern) reads as: its character, or
        its own text (a separator after it kept) when it stands for none."""
        if escape.start() != self._last_end:
            self.separated = self._last_end >= 0 or self.separated
        self._last_end = escape.end()
        read = self._reading.unit(escape)[0]
        return escape.group() if read is None else read


def read_views(text: str, start: int, end: int, least: int) -> Iterator[tuple[Reading, str]]:
    """`text[start:end]` read each way that may read it differently (module contract),
    each with what it reads as, as `read_escapes`'s `view` (without its map); nothing
    when it reads as fewer than `least` characters. A deep reading only where an
    escape's first character is escaped over (`_DEEPER`: one scan), a joined one only
    where something stands between two escapes (seen as the stretch is read), a reading
    `again` only where an escape's first character is written as an escape right before
    another escape (`ESCAPED_LEAD`: one scan): what a shallow reading gives is read each
    way in turn."""
    seen: set[str] = set()
    for reading, view in _read_views(text[start:end], least):
        if view not in seen:
            seen.add(view)
            yield reading, view
    if ESCAPED_LEAD.search(text, start, end) is None:
        return
    for first, view in _read_views(text[start:end], least, deep=False):
        for second, read in _read_views(view, least):
            if read not in seen:
                seen.add(read)
                yield Reading(first.deep, first.joined, again=second), read


def _read_views(
    stretch: str, least: int, deep: bool | None = None
) -> Iterator[tuple[Reading, str]]:
    """`read_views` of all of `stretch` without reading it again, deep or shallow as
    `deep` says (None: as it may read differently), each view once."""
    seen: set[str] = set()
    if deep is not None:
        depths: tuple[bool, ...] = (deep,)
    else:
        depths = (False, True) if _DEEPER.search(stretch) is not None else (False,)
    for depth in depths:
        kept = Reading(depth, joined=False)
        reader = _Reader(kept)
        view = kept.pattern.sub(reader, stretch)
        if len(view) < least:  # read deep or joined, it is no longer
            return
        if not reader.separated:
            layouts = [Reading(depth, joined=False)]
        else:
            layouts = [Reading(depth, joined=False), Reading(depth, joined=True)]
            if _LONE_INSIDE.search(stretch) is not None:
                layouts.append(Reading(depth, joined=True, spaced=True))
        for reading in layouts:
            read = view if reading == kept else reading.pattern.sub(_Reader(reading), stretch)
            if read not in seen:
                seen.add(read)
                yield reading, read


@dataclass(frozen=True)
class EscapedText:
    """A stretch of text read (module contract)."""

    view: str
    # For each escape read, in order: where its character stands in `view`, and where
    # the escape begins and ends in the text, and where what it took ends (a separator
    # after it left out, in a joined reading). Between two escapes, `view` and the text
    # are the same characters.
    _view_at: tuple[int, ...]
    _text_spans: tuple[tuple[int, int, int], ...]
    _start: int

    def span_of(self, start: int, end: int) -> tuple[int, int]:
        """The stretch of the text `view[start:end]` was read from (module contract)."""
        return self._text_at(start)[0], self._text_at(end - 1)[1]

    def _text_at(self, at: int) -> tuple[int, int]:
        """Where `view[at]` was read from in the text."""
        index = bisect.bisect_right(self._view_at, at) - 1
        if index < 0:
            return self._start + at, self._start + at + 1
        escape_start, escape_end, taken_end = self._text_spans[index]
        if self._view_at[index] == at:
            return escape_start, escape_end
        place = taken_end + at - self._view_at[index] - 1
        return place, place + 1


@dataclass(frozen=True)
class EscapedTwice:
    """A stretch read, and what that read as read again (module contract)."""

    first: EscapedText
    second: EscapedText

    @property
    def view(self) -> str:
        return self.second.view

    def span_of(self, start: int, end: int) -> tuple[int, int]:
        """The stretch of the text `view[start:end]` was read from (module contract)."""
        return self.first.span_of(*self.second.span_of(start, end))


def read_escapes(text: str, start: int, end: int, reading: Reading) -> EscapedText | EscapedTwice:
    """`text[start:end]` read, and mapped back (module contract): as `read_views` reads
    it, with one loop over its escapes (two, for a reading `again`)."""
    if reading.again is None:
        return _read_once(text, start, end, reading)
    first = _read_once(text, start, end, Reading(reading.deep, reading.joined))
    return EscapedTwice(first, _read_once(first.view, 0, len(first.view), reading.again))


def _read_once(text: str, start: int, end: int, reading: Reading) -> EscapedText:
    """`read_escapes` for a reading that reads nothing again."""
    stretch = text[start:end]
    parts: list[str] = []
    view_at: list[int] = []
    spans: list[tuple[int, int, int]] = []
    at = shrunk = 0
    for escape in reading.pattern.finditer(stretch):
        read, escape_start, escape_end = reading.unit(escape)
        if read is None:  # stands for nothing: plain text, as the gap around it
            continue
        taken_end = escape.end()
        parts += (stretch[at:escape_start], read)
        view_at.append(escape_start - shrunk)
        spans.append((start + escape_start, start + escape_end, start + taken_end))
        shrunk += taken_end - escape_start - 1
        at = taken_end
    parts.append(stretch[at:])
    return EscapedText("".join(parts), tuple(view_at), tuple(spans), start)
