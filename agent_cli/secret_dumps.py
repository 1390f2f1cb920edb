"""A secret's bytes in a dump of any layout, and where the dump shows them. Pure: no I/O.

Why: a dump prints bytes in many layouts, and each shows a secret whole to a reader who
knows it: `hexdump`'s and `od -x`'s 16-bit little-endian words (`4947 4854` for `GITH`),
`od -tx4`, `od -tx8`, `xxd -e` (wider words, either byte order), `xxd -g 4`/`-g 8`, rows
wider than 16 bytes (`xxd -c 32`), octal (`od`, `od -b`), decimal (`od -td1`,
`hexdump -d`), binary (`xxd -b`), a C array (`xxd -i`), `bytes.hex(':')`, `xxd -p`'s long
hex lines, `od -c`'s characters, a printed list of quoted numbers (`[hex(b) for b in d]`,
`json.dumps([f'{b:02x}' ...])`), rows of any width (`xxd -c 1`, `xxd -c 3`, `xxd -b -c 2`,
`od -tx1z -w3`: a row of fewer bytes than four never holds a piece worth finding alone),
and hex with any punctuation between its bytes or groups (`bytes.hex('-')`,
`binascii.hexlify(d, '-', 3)`, `hexdump -e '/1 "%02x_"'`). One regex per layout would be large and would still miss
the next one; reading the bytes a dump line shows covers them all. And a dump cut short
(`xxd .env | head -n 3`, `xxd -l 46`, Node's `<Buffer 47 49 ... 5 more bytes>`) shows most
of a value: as `head -c` of its text does, which the redactor hides by the run rule
(`secret_runs.run_least`), so a dump of a run of a value is hidden by the same rule.

Contract: `DumpFinder(values)` knows each value on one line of at most `MAX_DUMP_BYTES`
UTF-8 bytes (a token, a password; not a PEM key) and of at least `MIN_DUMP_BYTES`, as its
UTF-8 bytes and as its UTF-16 bytes in either byte order (a `.env` that PowerShell wrote,
`iconv -t utf-16le`). `spans(text, pos, endpos)` gives, in order and not overlapping, each
stretch of `text[pos:endpos]` that shows, as a dump, the bytes of a value whole, or of a
value that has runs (`run_least`) a run of them: at least `run_least(value)` of its
characters in a row, from anywhere in it (as many bytes in UTF-8, twice as many in
UTF-16). A stretch goes from the first character of the token that shows its first byte
to the end of the line that shows its last (that line's text column shows its last
characters; `_TAIL_CHARS` at most past that token). A dump row is a line of tokens: words
of letters and digits (a `0x` prefix belongs to the word, and a `-` sign where no word
goes just before it: else it separates two, as `3d-67` does), and a character
standing alone between blanks or quotes (`od -c`'s cells, with its escapes `\\0`, `\\n`,
...; a printed list of characters). A word shows bytes under each reading its digits fit
(`_readings`): hex of an even number of digits up to `_WORD_DIGITS`, in order and
byte-swapped (a little-endian word); three octal digits (a byte) or six (a 16-bit
little-endian word); a decimal byte (-128 to 255) or 16-bit little-endian word; eight
binary digits; a character standing alone, itself. A word of more hex digits
(`xxd -p`, a hex string) is a token for each byte, a last odd digit (a cut) left out.
The bytes are read from consecutive tokens of a line (the first token may show bytes
before them, the last after them), each under any of its readings, and go on in one of
the first `_HEAD_TOKENS` tokens of the next line: what ends a line (its text column) and
begins the next (an offset, a prefix) is skipped. Every stretch is at most
`longest_span` characters long: a longer one is not found (a stream holds back that much
to see it whole).

Found fast: one regex finds where four bytes of a value stand as a layout prints them,
in one row or across rows (`dump_anchors`); only the lines around such a place are read, so ordinary text and
the dump of other bytes cost one scan. Reading is linear in the tokens read: a state is
a place in a value, so a token moves at most as many states as the value has bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from agent_cli.dump_anchors import ESCAPES, anchor_chains
from agent_cli.literal_trie import trie_pattern
from agent_cli.secret_runs import merged_spans, run_least

MAX_DUMP_BYTES = 256
MIN_DUMP_BYTES = 8
# The most a layout takes for a byte: `xxd -b -c 1` (an offset, eight digits and the text
# column: 22 characters a row) behind `cat -n`'s number (29).
_CHARS_PER_BYTE = 32
_TAIL_CHARS = 400  # past the last byte's token: the rest of its row and its text column
_HEAD_TOKENS = 4  # an offset, a prefix or two (`cat -n`'s number, `diff`'s `>`)
_ANCHOR_CHARS = 4  # a value's characters an anchor holds: 4 bytes in UTF-8, 8 in UTF-16
_WORD_DIGITS = 16  # the most hex digits a word shows as one number (`od -tx8`)
# A value as a dump may show it, with how many bytes each of its characters takes in a
# token-like (ASCII) value. Its UTF-16 without the NUL bytes at its ends: an ASCII value's
# two byte orders are then one text, and neither is found shifted by a byte across the
# other (`C\0r\0` then `C\0r\0` holds `\0C\0r`).
_ENCODINGS = (("utf-8", 1), ("utf-16-le", 2), ("utf-16-be", 2))
# A character cell standing alone (between blanks or quotes: `od -c`, `['_', '-']`), not
# one of the separators a layout puts between numbers; else a word. A character shows
# itself only as a cell: a letter inside other text (`b'C\x00r'`) is no byte of a dump.
# A `-` is a word's sign only where no word goes before it: after one it separates two
# (`bytes.hex('-')`: `3d-67`, `3d6768-705f52`).
_TOKEN = re.compile(
    r"""(?<![^\s'"])(?P<cell>\\[0abtnvfr\\]|[^\s\\'",:;])(?![^\s'"])"""
    r"|(?:(?<![0-9A-Za-z])-)?(?:0[xX])?[0-9A-Za-z]+"
)
_HEX = re.compile(r"[0-9A-Fa-f]+")


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    readings: tuple[bytes, ...]
    # Where a stretch that ends with this token ends: the end of its line (its text
    # column), or for a byte of a long hex word, which has none, the end of the word.
    word_end: int | None = None
    # Whether a line's reading may go on here, after a head it skipped: not inside a word.
    opens: bool = True

    def reach(self, line_end: int) -> int:
        if self.word_end is not None:
            return self.word_end
        return min(line_end, self.end + _TAIL_CHARS)


class _Secret:
    """A value's bytes in one encoding, the fewest of them a dump must show in a row
    (all of them, or a run's: module contract), how many bytes an anchor takes (four of
    its characters: in UTF-16, four bytes would be two characters, which an ordinary
    dump holds often: `od -tu2`'s `45 83`), and where in them such a showing may begin,
    by its first byte."""

    __slots__ = ("anchor_bytes", "begins", "data", "least")

    def __init__(self, data: bytes, least: int, anchor_bytes: int) -> None:
        self.data, self.least, self.anchor_bytes = data, least, anchor_bytes
        self.begins: dict[int, tuple[int, ...]] = {}
        for at in range(len(data) - least + 1):
            self.begins[data[at]] = (*self.begins.get(data[at], ()), at)


def _secrets(values: Iterable[str]) -> list[_Secret]:
    """Each value (module contract) in each of `_ENCODINGS`, longest first."""
    found: dict[bytes, tuple[int, int]] = {}  # data: least, anchor bytes
    for value in values:
        if not _one_line(value) or not (
            MIN_DUMP_BYTES <= len(value.encode("utf-8")) <= MAX_DUMP_BYTES
        ):
            continue
        run = run_least(value)
        for codec, width in _ENCODINGS:
            data = value.encode(codec).strip(b"\x00")
            least = len(data) if run is None else min(len(data), run * width - width + 1)
            held = found.get(data, (least, width))
            found[data] = (min(least, held[0]), _ANCHOR_CHARS * width)
    ordered = sorted(found.items(), key=lambda item: (-len(item[0]), item[0]))
    return [_Secret(data, least, anchor) for data, (least, anchor) in ordered]


def _readings(word: str, *, cell: bool) -> tuple[bytes, ...]:
    """The bytes a dump's `word` may show (module contract), in file order; a `cell`
    (a character standing alone) shows itself too."""
    if word in ESCAPES:
        return (bytes([ESCAPES[word]]),)
    shown = [word.encode("utf-8")] if cell else []
    return tuple(dict.fromkeys([*_number_readings(word), *shown]))


def _number_readings(word: str) -> list[bytes]:
    """The bytes `word` shows as a number (module contract)."""
    negative = word.startswith("-")
    digits = word.lstrip("-")
    prefixed = digits[:2] in ("0x", "0X")
    if prefixed:
        digits = digits[2:]
    found: list[bytes] = []
    if (
        digits
        and not negative
        and len(digits) % 2 == 0
        and len(digits) <= _WORD_DIGITS
        and _HEX.fullmatch(digits)
    ):
        data = bytes.fromhex(digits)
        found += [data, data[::-1]] if len(data) > 1 else [data]
    if prefixed or not digits.isdigit():
        return found
    if len(digits) == 8 and not negative and set(digits) <= {"0", "1"}:
        found.append(bytes([int(digits, 2)]))
    if len(digits) in (3, 6) and not negative and set(digits) <= set("01234567"):
        number = int(digits, 8)
        if len(digits) == 3 and number < 256:
            found.append(bytes([number]))
        elif len(digits) == 6 and number < 65536:
            found.append(number.to_bytes(2, "little"))
    if len(digits) <= 5:
        number = -int(digits) if negative else int(digits)
        if -128 <= number < 256:
            found.append(bytes([number & 0xFF]))
        if 0 <= number < 65536:
            found.append(number.to_bytes(2, "little"))
    return found


def _tokens(found: re.Match[str], line_start: int) -> list[_Token]:
    """The tokens a `_TOKEN` found in a line stands for (module contract): itself with
    its readings, or a token for each byte of a word of more hex digits than a number has."""
    word, start = found.group(), line_start + found.start()
    digits = word[2:] if word[:2] in ("0x", "0X") else word
    if len(digits) > _WORD_DIGITS and _HEX.fullmatch(digits):
        at = start + len(word) - len(digits)
        return [
            _Token(
                at + index,
                at + index + 2,
                (bytes.fromhex(digits[index : index + 2]),),
                start + len(word),
                opens=index == 0,
            )
            for index in range(0, len(digits) - 1, 2)
        ]
    readings = _readings(word, cell=found.group("cell") is not None)
    return [_Token(start, start + len(word), readings)] if readings else []


def _anchor_offsets(secret: _Secret) -> list[tuple[int, int]]:
    """Where in a secret its anchors begin, each with the narrowest row it is looked for
    in across rows (`dump_anchors`). Shown whole: at each of its first eight bytes (one of
    them is at a multiple of 8 in the file, where a row of 16 bytes (of 8, for an anchor
    of 4) shows the anchor in groups of any size, and a group of 8 shows four at the
    value's start or its end) and of its last eight. Shown as a run, which may begin and
    end anywhere: in blocks of eight bytes close enough that every run holds a whole block
    among its anchors' places. A row of `w` bytes, narrower than an anchor, begins at one
    of the first `w` places of a block (the first eight, for a value shown whole): the
    anchor at the `k`-th is looked for across rows of more than `k` bytes only."""
    size = len(secret.data)
    last = size - secret.anchor_bytes
    if secret.least < size:
        step = max(8, secret.least - secret.anchor_bytes + 1 - 7)
        return [(at, at % step + 1) for at in range(last + 1) if at % step < 8]
    first = {at: at + 1 for at in range(min(8, last + 1))}
    ends = {at: secret.anchor_bytes for at in range(max(0, last - 7), last + 1)}
    return sorted({**ends, **first}.items())


def _one_line(value: str) -> bool:
    return "\n" not in value and "\r" not in value


class DumpFinder:
    """Finds dumps of some values' bytes (module contract)."""

    def __init__(self, values: Iterable[str]) -> None:
        self._secrets = _secrets(values)
        chains = [
            chain
            for secret in self._secrets
            for at, narrowest in _anchor_offsets(secret)
            for chain in anchor_chains(secret.data[at : at + secret.anchor_bytes], narrowest)
        ]
        self._anchors = re.compile(trie_pattern(chains)) if chains else None
        longest = max((len(secret.data) for secret in self._secrets), default=0)
        self.longest_span = longest * _CHARS_PER_BYTE + _TAIL_CHARS if longest else 0

    def __bool__(self) -> bool:
        return self._anchors is not None

    def spans(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> Iterator[tuple[int, int]]:
        """The dumps of a value in `text[pos:endpos]` (module contract), in order."""
        if self._anchors is None:
            return
        pos, endpos = max(pos, 0), min(endpos, len(text))
        at, done = pos, pos
        while (anchor := self._anchors.search(text, at, endpos)) is not None:
            low = max(pos, done, anchor.start() - self.longest_span)
            high = min(endpos, anchor.end() + 2 * self.longest_span)
            found = sorted(
                span
                for span in self._read(text, low, high)
                if span[0] >= done and span[1] - span[0] <= self.longest_span
            )
            shown = [span for span in merged_spans(iter(found)) if span[1] > anchor.start()]
            yield from shown
            done = max([done, *(end for _, end in shown)])
            if high >= endpos:  # every stretch that ends after this anchor was read
                return
            # a stretch holding an anchor before `high - longest_span` lay whole in the
            # lines just read, and was shown if it was one: the search goes on past them
            at = max(done, anchor.start() + 1, high - self.longest_span)

    def _read(self, text: str, low: int, high: int) -> Iterator[tuple[int, int]]:
        """The dumps of a value that the lines of `text[low:high]` show."""
        begin = text.rfind("\n", 0, low) + 1 if low > 0 else 0
        begin = max(begin, low - self.longest_span)  # a very long line: its end alone
        lines: list[tuple[int, list[_Token]]] = []
        for line_start, line in _lines(text, begin, high):
            tokens = [
                token for word in _TOKEN.finditer(line) for token in _tokens(word, line_start)
            ]
            lines.append((line_start + len(line), tokens))
        for secret in self._secrets:
            for start, end in _matches(lines, secret):
                if start >= low:
                    yield start, end


def _lines(text: str, begin: int, high: int) -> Iterator[tuple[int, str]]:
    """Each line of `text` from `begin` through the one holding `high`, with its start;
    that last one to `_TAIL_CHARS` past `high` at most (a very long line: all a stretch
    may reach of it)."""
    at = begin
    while at < len(text):
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        yield at, text[at : min(stop, high + _TAIL_CHARS)].rstrip("\r")
        if stop >= high:
            return
        at = stop + 1


_State = tuple[int, int]  # bytes of the secret read so far, where the first was shown


def _matches(lines: list[tuple[int, list[_Token]]], secret: _Secret) -> Iterator[tuple[int, int]]:
    """Where the tokens of `lines` show `secret` (module contract): the start of its first
    token and how far its last one reaches (`_Token.reach`), each time `secret.least`
    bytes or more have been read in a row. A state is the place in the secret of the next
    byte due, with the `_State` that reached it (the one that read the most, when
    several). A state goes on in the next line's head where its line's next token did
    not take it (its text column, or the line's end): one that token took is no end of
    what the line shows."""
    data, least = secret.data, secret.least
    carried: dict[int, _State] = {}
    for line_end, tokens in lines:
        live: dict[int, _State] = {}
        ended: dict[int, _State] = {}  # the states this line's tokens left: may go on
        for index, token in enumerate(tokens):
            sources = dict(live)
            if index < _HEAD_TOKENS and token.opens:
                for place, state in carried.items():
                    _keep(sources, place, state)
            taken: set[int] = set()
            after: dict[int, _State] = {}
            for reading in token.readings:
                for place, (read, start) in sources.items():
                    shared = _shared(data, place, reading)
                    if shared and read + shared >= least:
                        yield start, token.reach(line_end)
                    if shared == min(len(reading), len(data) - place):
                        taken.add(place)
                    if shared == len(reading) and place + shared < len(data):
                        _keep(after, place + shared, (read + shared, start))
                for skip in range(len(reading)):
                    piece = reading[skip:]
                    for place in secret.begins.get(piece[0], ()):
                        shared = _shared(data, place, piece)
                        if shared >= least:
                            yield token.start, token.reach(line_end)
                        if shared == len(piece) and place + shared < len(data):
                            _keep(after, place + shared, (shared, token.start))
            for place, state in live.items():
                if place not in taken:
                    _keep(ended, place, state)
            live = after
        for place, state in live.items():
            _keep(ended, place, state)
        carried = ended


def _shared(data: bytes, place: int, piece: bytes) -> int:
    """How many bytes `piece` and `data[place:]` begin with alike."""
    size = min(len(piece), len(data) - place)
    for index in range(size):
        if data[place + index] != piece[index]:
            return index
    return size


def _keep(states: dict[int, _State], place: int, state: _State) -> None:
    held = states.get(place)
    if held is None or (state[0], -state[1]) > (held[0], -held[1]):
        states[place] = state
