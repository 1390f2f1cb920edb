"""A secret as a URL, JSON or HTML holds it: each character itself or escaped. Pure: no I/O.

Why: encoders differ in what they encode and how they write it. Python's `quote` keeps
only RFC 3986's unreserved characters, JavaScript's `encodeURIComponent` keeps `!'()*`
too, Java's `URLEncoder` encodes `~`, a person writing a `DATABASE_URL` by hand encodes
only the `@` and the `/`, some write the hex in lower case (`%2f`, which RFC 3986 makes
equivalent), form encoding writes a space as `+`. JSON and HTML escapers differ the same
way (Go's `\\u0026` for `&`, Gson's `\\u0027` for `'`, WordPress's `&#038;`, OWASP's
`&#x26;`, YAML's `''`: `agent_cli.character_escapes` lists them). Every one of these
decodes to the same password, and the choices multiply with its length, so no list of
spellings can cover them: a `PercentForm` is one matcher that takes each character of
the value as itself or as any of its escapes (`escapes_of`), in any mix.

Contract:
- `PercentForm.all_of(value)`: the forms of `value` (one Unicode spelling of it; the
  caller asks for each). Each character matches itself or any text `escapes_of` gives
  for it (its UTF-8 bytes as `%XX`, JSON's `\\uXXXX`, HTML's references, ...), the hex
  digits of each in either case; a line break of the value (LF, or CRLF taken as one)
  matches LF or CRLF too. ASCII letters and digits match only themselves: no encoder
  escapes them, and allowing it would double the pattern of a long key for a spelling
  only a deliberate rewrite produces (a value printed with every byte escaped is read
  back by `agent_cli.secret_escapes` instead). So a form
  matches the value itself, and any mix of escaped and plain characters but one. A
  *marker* is a character of the value that stands right before a character one of
  whose escapes is the two (a `\\` before `'` or before `\\`, a `'` before `'`): then
  `\\\\'` reads as the marker escaped and as the character escaped, a run as every split
  of it, and a backtracking regex tries them all (`2**n` for a run of `n` quotes). So
  a value with markers has a form for each way of reading them (at most `2**3`: `\\`,
  `'`, `"`): in each, a marker either always marks (it never stands as itself; an
  escape made of it and a character is taken) or never does (it stands as itself or
  other escapes; no escape made of it is taken). Each form reads a text one way only,
  and matching stays linear. Lost: one marker read both ways in one occurrence (`\\\\`
  for one backslash, another as itself), which no escaper writes.
  `encodes_anything` is False when the value has nothing an encoder would encode (a
  token of letters and digits): then the form is the value alone.
- `fragments(wrapped=...)`: the form as regex fragments, one per character of the value,
  for `agent_cli.literal_trie`: a list for each character a text of the first character
  begins with. With `wrapped`, a line break may come between any two characters of the
  matched text, inside a `%XX` too, as the literal forms allow up to their wrapping
  limit (`secret_forms.MAX_WRAPPED_CHARS`, which `spelled_length` is measured against),
  but never beside a line break of the value's (as a literal form's may not): else a
  text's line breaks would read in many ways.
- `byte_pattern(wrapped=...)`: the same as one bytes pattern over UTF-8 bytes (a line
  break only between two characters of the text, never inside one).
- `spelled_length`: the characters of its longest spelling (every character that may be
  escaped written by its longest escape); `longest_text(wrapped=...)` the most characters
  (and, every encoded spelling being ASCII and a character as itself no longer in UTF-8
  than encoded, bytes) one occurrence can cover: three times that when wrapped (a CRLF
  before each).
- `matches_start(rest, start)`: whether `rest[start:]` (line breaks removed) is a start, proper or
  whole, of a text the form matches, line breaks ignored: what `open_match_start` asks.
- `end_positions(text)`: each position, in order, where the text before it is an end,
  proper or whole, of a text the form matches (it begins anywhere inside one, a `%XX`
  or `\\u0026` included, and ends where the form ends), line breaks ignored: what
  `closed_match_end` asks of a text that begins at a cut.
- `holds_inside(text)`: whether all of `text`, line breaks ignored, may lie inside a text
  the form matches, beginning and ending anywhere in it: what `is_middle_piece` asks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from agent_cli.character_escapes import escapes_of

_LINE_BREAK = r"(?:\r?\n)?"
_LINE_BREAK_CHARS = str.maketrans("", "", "\r\n")
_HEX_LETTERS = frozenset("ABCDEF")
# A state of `matches_start`: (character of the value, which of its texts, characters of
# that text matched).
_State = tuple[int, int, int]


@dataclass(frozen=True, repr=False)
class PercentForm:
    """One value as a URL may hold it (module contract); never shows it in `repr`."""

    # For each character of the value: the texts that stand for it, the character first.
    choices: tuple[tuple[str, ...], ...]
    # `choices` with line breaks removed, and the characters a text of the form can begin
    # with so (None: any, its first character being a line break): what `matches_start`
    # reads, at each of thousands of positions.
    _flat: tuple[tuple[str, ...], ...] = field(init=False, compare=False, default=())
    _first: frozenset[str] | None = field(init=False, compare=False, default=None)

    def __post_init__(self) -> None:
        flat = tuple(
            tuple(text.translate(_LINE_BREAK_CHARS) for text in texts) for texts in self.choices
        )
        starts = flat[0] if flat else ()
        first = None if "" in starts else frozenset(text[0] for text in starts)
        object.__setattr__(self, "_flat", flat)
        object.__setattr__(self, "_first", first)

    def __repr__(self) -> str:
        return f"PercentForm(<{len(self.choices)} characters>)"

    @classmethod
    def all_of(cls, value: str) -> tuple[PercentForm, ...]:
        """The forms of `value`: one for each way of reading its markers (module contract)."""
        units = value.replace("\r\n", "\n")
        markers = _markers(units)
        return tuple(
            cls(tuple(_choices_for(character, markers, marking) for character in units))
            for marking in _subsets(markers)
        )

    @property
    def encodes_anything(self) -> bool:
        return any(len(texts) > 1 for texts in self.choices)

    @property
    def spelled_length(self) -> int:
        return sum(max(map(len, texts)) for texts in self.choices)

    def longest_text(self, *, wrapped: bool) -> int:
        return 3 * self.spelled_length if wrapped else self.spelled_length

    def fragments(self, *, wrapped: bool) -> list[list[str]]:
        """The form as regex fragments, one a character of the value (module contract): a
        list for each character the texts of its first character begin with, which its
        first fragment begins with alone, so that every branch of the pattern begins with
        a plain character (`re` then skips ahead to where one may start; a group first
        would make it try every position), and the rest is written once for each (not
        once for each of a dozen texts)."""
        if not self.choices:
            return []
        breaks = _breaks(self.choices, wrapped=wrapped)
        rest = [
            _choice_pattern(texts, wrapped=wrapped, broken=broken)
            for texts, broken in zip(self.choices[1:], breaks[1:], strict=True)
        ]
        return [[first, *rest] for first in _first_fragments(self.choices[0], wrapped=wrapped)]

    def byte_pattern(self, *, wrapped: bool) -> bytes:
        """`fragments` as one bytes pattern over the UTF-8 bytes of a text."""
        breaks = _breaks(self.choices, wrapped=wrapped)
        pieces = [
            _choice_pattern(texts, wrapped=wrapped, broken=broken)
            for texts, broken in zip(self.choices, breaks, strict=True)
        ]
        return "".join(pieces).encode("utf-8")

    def matches_start(self, rest: str, start: int = 0) -> bool:
        """Whether `rest[start:]`, with line breaks removed, starts a text the form
        matches (read in place: a caller trying every position copies nothing)."""
        flat = self._flat
        if not flat:
            return start >= len(rest)
        if start < len(rest) and self._first is not None and rest[start] not in self._first:
            return False
        states = _past_whole_texts(flat, [(0, choice, 0) for choice in range(len(flat[0]))])
        for index in range(start, len(rest)):
            states = _step(flat, states, rest[index])
            if not states:
                return False
        return True

    def end_positions(self, text: str) -> Iterator[int]:
        """Where the text before is an end of a text the form matches (module contract)."""
        flat, finished = self._flat, (len(self._flat), 0, 0)
        states = self._anywhere()
        for position, character in enumerate(text):
            if character in "\r\n":
                continue
            states = _step(flat, states, character)
            if not states:
                return
            if finished in states:
                yield position + 1

    def holds_inside(self, text: str) -> bool:
        """Whether all of `text` may lie inside a text the form matches (module contract)."""
        states = self._anywhere()
        for character in text.translate(_LINE_BREAK_CHARS):
            states = _step(self._flat, states, character)
            if not states:
                return False
        return True

    def _anywhere(self) -> set[_State]:
        """A state before each character of each text of the form."""
        return {
            (index, choice, done)
            for index, texts in enumerate(self._flat)
            for choice, text in enumerate(texts)
            for done in range(len(text))
        }


def _markers(units: str) -> tuple[str, ...]:
    """The markers of `units` (module contract), each once, in order: each character
    right before one that has it and itself among its escapes (`\\'`, `''`)."""
    found = (
        before
        for before, character in zip(units, units[1:], strict=False)
        if before + character in escapes_of(character)
    )
    return tuple(dict.fromkeys(found))


def _subsets(markers: tuple[str, ...]) -> list[frozenset[str]]:
    """Every subset of `markers`: the ones that mark, in each form."""
    subsets: list[frozenset[str]] = [frozenset()]
    for marker in markers:
        subsets += [subset | {marker} for subset in subsets]
    return subsets


def _choices_for(
    character: str, markers: tuple[str, ...], marking: frozenset[str]
) -> tuple[str, ...]:
    """The texts that may stand for `character`: itself first, unless it is a marker
    that marks; then its escapes, but one made of a marker that does not mark and it."""
    texts = (character, *escapes_of(character))
    return tuple(
        text
        for text in texts
        if not (text == character and character in marking)
        and not (text[:1] in markers and text == text[0] + character and text[0] not in marking)
    )


def _is_encoded(text: str) -> bool:
    """Whether `text` is an escape (a character as itself is one character long)."""
    return len(text) > 1


def _choice_pattern(texts: tuple[str, ...], *, wrapped: bool, broken: bool = False) -> str:
    """The texts of one character as one group, the longest tried first (`%` before
    `%25` would end a value's last `%` there and leave `25` behind), a line break
    before it when `broken`. Its UTF-8 bytes are the same pattern over bytes."""
    longest_first = sorted(texts, key=len, reverse=True)
    pattern = "|".join(_text_pattern(text, wrapped=wrapped) for text in longest_first)
    pattern = pattern if len(texts) == 1 else f"(?:{pattern})"
    return _LINE_BREAK + pattern if broken else pattern


def _first_fragments(texts: tuple[str, ...], *, wrapped: bool) -> list[str]:
    """The texts of a form's first character as regex fragments, one for each character
    they begin with: that character, then the rest of each (the longest first)."""
    heads: dict[str, list[list[str]]] = {}
    for text in sorted(texts, key=len, reverse=True):
        heads.setdefault(text[0], []).append(_text_fragments(text, wrapped=wrapped))
    fragments = []
    for same in heads.values():
        tails = ["".join(pieces[1:]) for pieces in same]
        kept = [tail for tail in tails if tail]
        group = "" if not kept else "(?:{})".format("|".join(kept))
        fragments.append(same[0][0] + group + ("?" if kept and len(kept) < len(tails) else ""))
    return fragments


def _breaks(choices: tuple[tuple[str, ...], ...], *, wrapped: bool) -> list[bool]:
    """Whether a wrapped line's break may come before each character: when `wrapped`,
    between two characters of the value, but never beside a line break of the value's
    (as `secret_pieces.may_wrap_before`): else a text's line breaks would read as either."""
    lines = ["\n" in texts for texts in choices]
    return [
        wrapped and at > 0 and not lines[at] and not lines[at - 1] for at in range(len(choices))
    ]


def _text_pattern(text: str, *, wrapped: bool) -> str:
    return "".join(_text_fragments(text, wrapped=wrapped))


def _text_fragments(text: str, *, wrapped: bool) -> list[str]:
    """`text` as regex fragments, one a character: an escape's hex digits in either case
    and, when `wrapped`, a line break allowed inside it; a line break as LF or CRLF."""
    if not _is_encoded(text):
        return [r"\r?\n" if text == "\n" else re.escape(text)]
    pieces = [f"[{c}{c.lower()}]" if c in _HEX_LETTERS else re.escape(c) for c in text]
    inside = _LINE_BREAK if wrapped else ""
    return [pieces[0], *(inside + piece for piece in pieces[1:])]


def _same(character: str, text: str, done: int) -> bool:
    """Whether `character` is what `text` holds after `done` characters (the hex digits
    of an escape in either case: `escapes_of` writes no other upper-case A-F)."""
    expected = text[done]
    return character == expected or (
        _is_encoded(text) and expected in _HEX_LETTERS and character == expected.lower()
    )


def _step(flat: tuple[tuple[str, ...], ...], states: set[_State], character: str) -> set[_State]:
    """The states after `character`: each whose text holds it next, moved on by one."""
    moved = [
        (index, choice, done + 1)
        for index, choice, done in states
        if index < len(flat) and _same(character, flat[index][choice], done)
    ]
    return _past_whole_texts(flat, moved)


def _past_whole_texts(flat: tuple[tuple[str, ...], ...], states: list[_State]) -> set[_State]:
    """`states`, each that has matched the whole text of its character moved on to every
    text of the next character (an empty text, a line break once line breaks are removed,
    is passed at once); a state past the last character is kept, as the form matched."""
    result: set[_State] = set()
    while states:
        index, choice, done = states.pop()
        if index < len(flat) and done == len(flat[index][choice]):
            following = range(len(flat[index + 1])) if index + 1 < len(flat) else range(1)
            states.extend((index + 1, next_choice, 0) for next_choice in following)
        else:
            result.add((index, choice, done))
    return result
