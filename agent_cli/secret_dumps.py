"""A secret's bytes in a dump of any layout, and where the dump shows them. Pure: no I/O.

Why: a dump prints bytes in many layouts, and each shows a secret whole to a reader who
knows it: `hexdump`'s and `od -x`'s 16-bit little-endian words (`4947 4854` for `GITH`),
`od -tx4`, `od -tx8`, `xxd -e` (wider words, either byte order), `xxd -g 4`/`-g 8`, rows
wider than 16 bytes (`xxd -c 32`), octal (`od`, `od -b`), decimal (`od -td1`,
`hexdump -d`), binary (`xxd -b`), a C array (`xxd -i`), `bytes.hex(':')`. One regex per
layout would be large and would still miss the next one; reading the bytes a dump line
shows covers them all.

Contract: `DumpFinder(values)` knows each value on one line of at most `MAX_DUMP_BYTES`
UTF-8 bytes (a token, a password; not a PEM key) and of at least `MIN_DUMP_BYTES`.
`spans(text, pos, endpos)` gives, in order and not overlapping, each stretch of
`text[pos:endpos]` that shows the bytes of a value as a dump: from the first character of
the token that shows its first byte to the end of the line that shows its last (that
line's text column shows its last characters; `_TAIL_CHARS` at most past that token).
A dump row is a line of tokens (words of letters and digits; a `0x` prefix and a `-` sign
belong to the word); a token shows bytes under each reading its digits fit
(`_readings`): hex of an even number of digits up to 16, in order and byte-swapped (a
little-endian word); three octal digits (a byte) or six (a 16-bit little-endian word); a
decimal byte (-128 to 255) or 16-bit little-endian word; eight binary digits. The value's
bytes are read from consecutive tokens of a line (the first token may show bytes before
them, the last after them), each under any of its readings, and go on in one of the first
`_HEAD_TOKENS` tokens of the next line: what ends a line (its text column) and begins
the next (an offset, a prefix) is skipped. Every stretch is at most `longest_span`
characters long: a longer one is not found (a stream holds back that much to see it
whole).

Found fast: one regex finds where four bytes of a value stand as a layout prints them
(`_anchor_chains`); only the lines around such a place are read, so ordinary text and
the dump of other bytes cost one scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from agent_cli.literal_trie import trie_pattern

MAX_DUMP_BYTES = 256
MIN_DUMP_BYTES = 8
_CHARS_PER_BYTE = 16  # the most a layout takes for a byte: `xxd -b -c 1` with its offset
_TAIL_CHARS = 400  # past the last byte's token: the rest of its row and its text column
_HEAD_TOKENS = 3  # an offset, a prefix (`cat -n`'s number, `diff`'s `>`)
_ANCHOR_BYTES = 4
_TOKEN = re.compile(r"-?(?:0[xX])?[0-9A-Za-z]+")
_HEX = re.compile(r"[0-9A-Fa-f]+")
# What a layout puts between two of its numbers: blanks, `,` (a C array), `:` (`hex(':')`)
_SEPARATOR = r"[ \t,:;]{1,8}(?:0[xX])?"


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    readings: tuple[bytes, ...]


def _readings(word: str) -> tuple[bytes, ...]:
    """The bytes a dump's `word` may show (module contract), in file order."""
    negative = word.startswith("-")
    digits = word.lstrip("-")
    prefixed = digits[:2] in ("0x", "0X")
    if prefixed:
        digits = digits[2:]
    found: list[bytes] = []
    if not negative and len(digits) % 2 == 0 and len(digits) <= 16 and _HEX.fullmatch(digits):
        data = bytes.fromhex(digits)
        found += [data, data[::-1]] if len(data) > 1 else [data]
    if prefixed or not digits.isdigit():
        return tuple(found)
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
    return tuple(dict.fromkeys(found))


def _hex_chain(data: bytes, groups: int, *, swapped: bool) -> list[str]:
    """`data` as hex in groups of `groups` bytes (each byte-swapped when `swapped`), a
    separator between groups, as regex fragments; digits in either case."""
    chain: list[str] = []
    for at in range(0, len(data), groups):
        group = data[at : at + groups]
        digits = (group[::-1] if swapped else group).hex()
        fragments = [f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits]
        if chain:
            fragments[0] = _SEPARATOR + fragments[0]
        chain += fragments
    return chain


def _numbers_chain(numbers: Iterable[str]) -> list[str]:
    """Numbers as a layout prints them, a separator between two, as regex fragments."""
    chain: list[str] = []
    for number in numbers:
        fragments = [re.escape(c) for c in number]
        if chain:
            fragments[0] = _SEPARATOR + fragments[0]
        chain += fragments
    return chain


def _anchor_chains(window: bytes) -> list[list[str]]:
    """Four bytes of a value as each layout prints them (module contract). A chain's
    first fragment is one literal character (a digit's cases are two chains), so `re`
    tries only the positions where one may begin."""
    words = [int.from_bytes(window[at : at + 2], "little") for at in (0, 2)]
    chains = [
        _hex_chain(window, 4, swapped=False),  # `xxd -g 4`, `-g 8`, `od -tx8`'s BE...
        _hex_chain(window, 4, swapped=True),  # `od -tx4`, `-tx8`, `xxd -e`
        _hex_chain(window, 2, swapped=False),  # `xxd`
        _hex_chain(window, 2, swapped=True),  # `hexdump`, `od -x`
        _hex_chain(window, 1, swapped=False),  # `xxd -g 1`, `od -tx1`, `xxd -i`, `hex(':')`
        _numbers_chain(f"{byte:03o}" for byte in window),  # `od -b`
        _numbers_chain(f"{word:06o}" for word in words),  # `od`, `hexdump -o`
        _numbers_chain(str(byte - 256 if byte > 127 else byte) for byte in window),  # `-td1`
        _numbers_chain(str(byte) for byte in window),  # `od -tu1`
        _numbers_chain(str(word) for word in words),  # `od -tu2`; `hexdump -d` pads: below
        _numbers_chain(f"{word:05d}" for word in words),
        _numbers_chain(f"{byte:08b}" for byte in window),  # `xxd -b`
    ]
    split: list[list[str]] = []
    for chain in chains:
        first = chain[0]
        if first.startswith("["):  # a hex letter: one chain for each of its cases
            split += [[first[1], *chain[1:]], [first[2], *chain[1:]]]
        else:
            split.append(chain)
    return split


def _anchor_offsets(size: int) -> list[int]:
    """Where in a value of `size` bytes its anchors begin: at each of its first eight bytes
    (one of them is where a row of 8 bytes or more shows four of its bytes in a group of
    up to 4 bytes, wherever the value starts in the file) and of its last eight (a group
    of 8 bytes shows four at the value's start or its end)."""
    last = size - _ANCHOR_BYTES
    return sorted({*range(min(8, last + 1)), *range(max(0, last - 7), last + 1)})


def _one_line(value: str) -> bool:
    return "\n" not in value and "\r" not in value


class DumpFinder:
    """Finds dumps of some values' bytes (module contract)."""

    def __init__(self, values: Iterable[str]) -> None:
        self._secrets = tuple(
            sorted(
                {
                    data
                    for value in values
                    if _one_line(value)
                    and MIN_DUMP_BYTES <= len(data := value.encode("utf-8")) <= MAX_DUMP_BYTES
                },
                key=lambda data: (-len(data), data),
            )
        )
        chains = [
            chain
            for data in self._secrets
            for at in _anchor_offsets(len(data))
            for chain in _anchor_chains(data[at : at + _ANCHOR_BYTES])
        ]
        self._anchors = re.compile(trie_pattern(chains)) if chains else None
        longest = max(map(len, self._secrets), default=0)
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
            high = min(endpos, anchor.end() + self.longest_span)
            found = sorted(
                span
                for span in self._read(text, low, high)
                if span[0] >= done and span[1] - span[0] <= self.longest_span
            )
            shown = [span for span in _merged(found) if span[1] > anchor.start()]
            yield from shown
            done = max([done, *(end for _, end in shown)])
            at = done if shown else anchor.start() + 1

    def _read(self, text: str, low: int, high: int) -> Iterator[tuple[int, int]]:
        """The dumps of a value that the lines of `text[low:high]` show."""
        begin = text.rfind("\n", 0, low) + 1 if low > 0 else 0
        begin = max(begin, low - self.longest_span)  # a very long line: its end alone
        lines: list[tuple[int, list[_Token]]] = []
        for line_start, line in _lines(text, begin, high):
            tokens = [
                _Token(line_start + word.start(), line_start + word.end(), readings)
                for word in _TOKEN.finditer(line)
                if (readings := _readings(word.group()))
            ]
            lines.append((line_start + len(line), tokens))
        for secret in self._secrets:
            for start, last_token_end, line_end in _matches(lines, secret):
                end = min(line_end, last_token_end + _TAIL_CHARS)
                if start >= low:
                    yield start, end


def _lines(text: str, begin: int, high: int) -> Iterator[tuple[int, str]]:
    """Each line of `text` from `begin` through the one holding `high`, with its start."""
    at = begin
    while at < len(text):
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        yield at, text[at:stop].rstrip("\r")
        if stop >= high:
            return
        at = stop + 1


def _matches(
    lines: list[tuple[int, list[_Token]]], secret: bytes
) -> Iterator[tuple[int, int, int]]:
    """Where the tokens of `lines` show `secret` (module contract): the start of its first
    token, the end of its last, and the end of that line. A state is how many bytes of
    the secret are read and where the first was shown (the earliest, when several)."""
    carried: dict[int, int] = {}
    for line_end, tokens in lines:
        live: dict[int, int] = {}
        seen: dict[int, int] = {}  # every state of this line: it may go on the next
        for index, token in enumerate(tokens):
            sources = dict(live)
            if index < _HEAD_TOKENS:
                for read, start in carried.items():
                    sources[read] = min(start, sources.get(read, start))
            live = {}
            for reading in token.readings:
                for read, start in sources.items():
                    rest = secret[read:]
                    if reading[: len(rest)] == rest:
                        yield start, token.end, line_end
                    elif len(reading) < len(rest) and rest.startswith(reading):
                        _keep(live, read + len(reading), start)
                for skip in range(len(reading)):
                    piece = reading[skip:]
                    if piece[: len(secret)] == secret:
                        yield token.start, token.end, line_end
                    elif secret.startswith(piece):
                        _keep(live, len(piece), token.start)
            for read, start in live.items():
                _keep(seen, read, start)
        carried = seen


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans, those that overlap made one."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _keep(states: dict[int, int], read: int, start: int) -> None:
    states[read] = min(start, states.get(read, start))
