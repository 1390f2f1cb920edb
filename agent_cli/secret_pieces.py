"""Whether text at a cut is a piece of a secret form's occurrence. Pure: no I/O.

Why: redaction finds whole occurrences (`agent_cli.secret_forms`). Where text was cut (a
stream that stopped, a preview's head, a page), what is left of an occurrence is no whole
one: a cut must know whether the text just before it may be the start of an occurrence,
the text just after it the end of one, or the text between two cuts a middle piece.

An occurrence of a form is its characters in order, where (as `secret_forms` matches it)
a line break may stand between any two characters (a wrapped form: `may_wrap_before`),
and each line break of the form's own (a PEM key's), which takes no wrap on either side,
may carry a short gap: up to `LINE_SUFFIX_CHARS`
characters after the line and up to `LINE_PREFIX_CHARS` before the next one, so a key
printed behind a prefix on every line (`git diff`'s `+`, `cat -n`'s number and tab,
`grep -n`, `diff`'s `> `, an indentation, a log line's stamp) still matches. `LINE_GAP`
is that gap as a regex. A line feed may be CRLF.

Contract: `FormPieces(forms, longest_match)` answers, for those forms:
- `open_start(text, min_chars)`: the earliest position in the last `longest_match`
  characters of `text` whose rest is a start (proper or whole) of an occurrence holding at
  least `min_chars` of the form's characters (a line break counts as one); None if none.
  A rest that ends inside a line's gap counts (the prefix of the next line was cut), and
  so does one whose last character is U+FFFD (a cut through a character's bytes).
- `closed_end(text, min_chars)`: the same at the other end: the latest position within
  the first `longest_match` characters whose text before it is an end of an occurrence.
- `is_middle(text, min_chars)`: whether all of `text` (less a U+FFFD at either end)
  may lie inside one occurrence, beginning and ending anywhere in it, holding on one
  line a run of at least
  `min_chars` of the form's characters (found first among the runs of that size the
  forms hold, an index built once for each size asked).
Each is exact for the occurrence grammar above (an automaton walks the form), after a
regex finds the few positions where a form's first characters stand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from agent_cli.literal_trie import trie_pattern

LINE_SUFFIX_CHARS = 8  # `cat -A`'s `$`, trailing blanks, a JSON array's `",`
LINE_PREFIX_CHARS = 80  # `+`, `     12\t`, `path:12:`, `> `, an indentation, a log stamp
_SUFFIX_RUN = rf"[^\r\n]{{0,{LINE_SUFFIX_CHARS}}}"
_PREFIX_RUN = rf"[^\r\n]{{0,{LINE_PREFIX_CHARS}}}"
LINE_GAP = _SUFFIX_RUN + r"\r?\n" + _PREFIX_RUN
_REVERSED_GAP = rf"[^\r\n]{{0,{LINE_PREFIX_CHARS}}}\n\r?[^\r\n]{{0,{LINE_SUFFIX_CHARS}}}"
_HEAD_UNITS = 3  # the characters of a form the position search needs before checking
_WRAP = r"(?:\r?\n)?"
_REVERSED_WRAP = r"(?:\n\r?)?"
# The most characters `_HEAD_UNITS` units of an occurrence can take (a gap or a wrap each).
_HEAD_REACH = _HEAD_UNITS * (4 + LINE_SUFFIX_CHARS + LINE_PREFIX_CHARS)


def gap_pattern(units: str, index: int) -> str:
    """The regex for the line break at `units[index]` of a form (a line feed for each of
    its own line breaks) with its gap, such that consecutive line breaks leave no choice:
    the text between two of them (a blank line of the value, printed with its prefix and
    what follows its line) is one run of up to `LINE_PREFIX_CHARS + LINE_SUFFIX_CHARS`
    characters taken by the second, possessively, so `re` never tries the ways to split
    it between the first's prefix and the second's suffix (exponential in blank lines).
    The same text as `LINE_GAP` at each break but at the value's own ends: a break that
    is its first or last character takes no gap outside it (the text beside the value
    is not part of it)."""
    after_break = index > 0 and units[index - 1] == "\n"
    before_break = index + 1 < len(units) and units[index + 1] == "\n"
    lead = (
        f"[^\\r\\n]{{0,{LINE_PREFIX_CHARS + LINE_SUFFIX_CHARS}}}+" if after_break else _SUFFIX_RUN
    )
    if index == 0:  # a value that begins with a line break: what stands before is not it
        lead = ""
    last = index == len(units) - 1  # nor, when it ends with one, the next line's text
    return lead + r"\r?\n" + ("" if before_break or last else _PREFIX_RUN)


def spans_lines(fragment: str) -> bool:
    """Whether a form's regex fragment must cross a line break: one of a value's own line
    breaks with its gap (`gap_pattern`), not a wrap a form may have before a character
    (`(?:\r?\n)?`). The pattern tries such a branch after its siblings
    (`literal_trie`), so a value's lines printed escaped on one line (`$'a\nb'`) are
    matched there, not from one printed line's `a` to the next one's `b`."""
    return r"\r?\n" in fragment.replace(r"(?:\r?\n)?", "")


def may_wrap_before(units: str, index: int) -> bool:
    """Whether a wrapped form may break its line before `units[index]` (the form with a
    line feed for each of its own line breaks): between two of its characters, never
    beside a line break of its own, whose gap is all that may stand there."""
    return 0 < index < len(units) and units[index] != "\n" and units[index - 1] != "\n"


# Where the automaton may be in a form: before the unit at an index, in one of these.
_READY = 0  # the previous unit matched (or none yet): a wrapped break may come
_AFTER_GAP = 1  # after a line break of the form's: its next line's prefix may go on
_WRAPPED = 2  # after a wrapped break: the unit itself must come
_SUFFIX = 3  # the unit is a line break; characters after the line come first
_State = tuple[int, int, int]  # (unit index, phase, characters of the gap so far)
_Reach = Callable[[_State, int], None]


@dataclass(frozen=True)
class _Automaton:
    """The occurrences of one form, read forwards or backwards (`reversed`)."""

    units: str  # the form with a line feed for each line break, reversed if read backwards
    suffix: int  # gap characters allowed before a line break, as read
    prefix: int  # and after it
    _places: dict[str, list[int]] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, form: str, *, backwards: bool) -> _Automaton:
        units = form.replace("\r\n", "\n")
        if backwards:
            return cls(units[::-1], LINE_PREFIX_CHARS, LINE_SUFFIX_CHARS)
        return cls(units, LINE_SUFFIX_CHARS, LINE_PREFIX_CHARS)

    def places(self, character: str) -> list[int]:
        """The indices where `character` stands in the form (built on first use)."""
        if not self._places:
            for index, unit in enumerate(self.units):
                self._places.setdefault(unit, []).append(index)
        return self._places.get(character, [])

    def step(self, states: dict[_State, int], char: str) -> dict[_State, int]:
        """The states after `char` (a lone `\\r` is an ordinary character: a CRLF was made
        one line feed before), each with the most form characters matched on its way."""
        after: dict[_State, int] = {}

        def reach(state: _State, matched: int) -> None:
            if after.get(state, -1) < matched:
                after[state] = matched

        size = len(self.units)
        for (index, phase, gap), matched in states.items():
            if index >= size:
                continue  # the whole form is behind: nothing more belongs to it
            unit = self.units[index]
            if unit == "\n":  # a line break of the form's: its gap begins or goes on
                self._gap_step(index, gap if phase == _SUFFIX else 0, matched, char, reach)
            elif char == unit:
                reach((index + 1, _READY, 0), matched + 1)
            if phase == _READY and char == "\n" and may_wrap_before(self.units, index):
                reach((index, _WRAPPED, 0), matched)
            if phase == _AFTER_GAP and gap < self.prefix and char not in "\r\n":
                reach((index, _AFTER_GAP, gap + 1), matched)
        return after

    def _gap_step(self, index: int, suffix: int, matched: int, char: str, reach: _Reach) -> None:
        """A step at a line break of the form's, `suffix` characters after its line so
        far: more of them, or the break (the next line's prefix may follow)."""
        if char == "\n":
            reach((index + 1, _AFTER_GAP, 0), matched + 1)
        elif char != "\r" and suffix < self.suffix:
            reach((index, _SUFFIX, suffix + 1), matched)

    def run(self, states: dict[_State, int], text: str) -> dict[_State, int]:
        """The states after all of `text` (empty once no occurrence fits)."""
        for char in text:
            states = self.step(states, char)
            if not states:
                break
        return states

    def middle_states(self, char: str) -> dict[_State, int]:
        """The states after `char` read anywhere inside an occurrence."""
        if char in "\r\n":
            return {}
        states: dict[_State, int] = {(index + 1, _READY, 0): 1 for index in self.places(char)}
        for index in self.places("\n"):
            states.setdefault((index, _SUFFIX, 1), 0)
            states.setdefault((index + 1, _AFTER_GAP, 1), 0)
        return states


def _head_fragments(form: str, *, backwards: bool) -> list[str]:
    """The first `_HEAD_UNITS` units of `form` as regex fragments (`literal_trie`), as
    the automaton reads them: a wrapped break before each but the first, a gap for a line
    break of the form's."""
    units = form.replace("\r\n", "\n")
    units = units[::-1] if backwards else units
    gap, wrap = (_REVERSED_GAP, _REVERSED_WRAP) if backwards else (LINE_GAP, _WRAP)
    return [
        (wrap if may_wrap_before(units, index) else "") + (gap if unit == "\n" else re.escape(unit))
        for index, unit in enumerate(units[:_HEAD_UNITS])
    ]


class _Direction:
    """The forms read one way: their automata by first character and where they begin."""

    def __init__(self, forms: Iterable[str], *, backwards: bool) -> None:
        self.backwards = backwards
        self.automata = [_Automaton.of(form, backwards=backwards) for form in forms]
        self.by_first: dict[str, list[_Automaton]] = {}
        for automaton in self.automata:
            self.by_first.setdefault(automaton.units[0], []).append(automaton)
        # No lookahead: a pattern that begins with its first characters is searched fast.
        self.heads = re.compile(
            trie_pattern(_head_fragments(form, backwards=backwards) for form in forms)
        )

    def earliest_start(self, text: str, low: int, min_chars: int) -> int | None:
        """The earliest position from `low` whose rest of `text` is a start of an
        occurrence with at least `min_chars` characters of its form."""
        for position in self._candidates(text, low, min_chars):
            rest = _one_line_feed(text[position + 1 :], backwards=self.backwards)
            for automaton in self.by_first.get(text[position], ()):
                states = automaton.run({(1, _READY, 0): 1}, rest)
                if states and max(states.values()) >= min_chars:
                    return position
        return None

    def _candidates(self, text: str, low: int, min_chars: int) -> Iterator[int]:
        near_end = max(low, len(text) - _HEAD_REACH) if min_chars < _HEAD_UNITS else len(text)
        position = low
        while (found := self.heads.search(text, position)) is not None:
            if found.start() >= near_end:
                break
            yield found.start()
            position = found.start() + 1  # heads may overlap
        for position in range(near_end, len(text)):
            if text[position] in self.by_first and text[position] not in "\r\n":
                yield position


class FormPieces:
    """Pieces of occurrences of `forms` at a text's edges (module contract)."""

    def __init__(self, forms: tuple[str, ...], longest_match: int) -> None:
        self._forms = forms
        self._longest = longest_match
        self._forwards: _Direction | None = None
        self._backwards: _Direction | None = None
        self._runs: dict[int, frozenset[str]] = {}  # by run size

    def open_start(self, text: str, min_chars: int = 1) -> int | None:
        if not self._forms or not text:
            return None
        forwards = self._forwards = self._forwards or _Direction(self._forms, backwards=False)
        return forwards.earliest_start(text, max(0, len(text) - self._longest), min_chars)

    def closed_end(self, text: str, min_chars: int = 1) -> int | None:
        if not self._forms or not text:
            return None
        backwards = self._backwards or _Direction(self._forms, backwards=True)
        self._backwards = backwards
        head = text[: self._longest]
        start = backwards.earliest_start(head[::-1], 0, min_chars)
        return None if start is None else len(head) - start

    def is_middle(self, text: str, min_chars: int) -> bool:
        text = text.strip("\r\n")
        text = text.lstrip("\ufffd")  # the bytes left of a character the cut split
        if not self._forms or len(text) < min_chars or len(text) > self._longest:
            return False
        if not self._has_run(text, max(1, min_chars)):
            return False
        forwards = self._forwards = self._forwards or _Direction(self._forms, backwards=False)
        rest = _one_line_feed(text[1:], backwards=False)
        for automaton in forwards.automata:
            states = automaton.run(automaton.middle_states(text[0]), rest)
            if states and max(states.values()) >= min_chars:
                return True
        return False

    def _has_run(self, text: str, size: int) -> bool:
        """Whether `text` holds `size` characters that stand together in a form (its
        line breaks left out) where a middle piece must: at the end or the start of the
        text without its line breaks (a wrapped form's pieces, the gap's characters
        around them), or at the end of a line (before a gap's suffix). Every line of a
        middle piece that is long enough does, so a line that does not rules it out."""
        runs = self._runs.get(size)
        if runs is None:
            runs = self._runs[size] = frozenset(_runs_of(self._forms, size))
        joined = text.replace("\r\n", "\n").replace("\n", "")
        reach = min(LINE_SUFFIX_CHARS + LINE_PREFIX_CHARS, len(joined) - size)
        for skip in range(reach + 1):
            if joined[len(joined) - skip - size : len(joined) - skip] in runs:
                return True
            if joined[skip : skip + size] in runs:
                return True
        for line in text.replace("\r\n", "\n").split("\n"):
            if len(line) < size:
                continue
            reach = min(LINE_SUFFIX_CHARS, len(line) - size)
            if any(
                line[len(line) - back - size : len(line) - back] in runs
                for back in range(reach + 1)
            ):
                return True
            if len(line) >= size + LINE_SUFFIX_CHARS + LINE_PREFIX_CHARS:
                return False
        return False


def _one_line_feed(text: str, *, backwards: bool) -> str:
    """`text` (reversed when read `backwards`) with each CRLF one line feed; at its far
    end (where the cut fell) a CR the cut left of a CRLF, or the U+FFFD that stand for a
    character whose bytes it split, dropped (a shorter rest is still a start)."""
    text = text.replace("\n\r" if backwards else "\r\n", "\n")
    return text.rstrip("\ufffd").removesuffix("\r").rstrip("\ufffd")


def _runs_of(forms: Iterable[str], size: int) -> Iterator[str]:
    """Every `size` characters that stand together in a form, its line breaks left out."""
    for form in forms:
        joined = form.replace("\r\n", "\n").replace("\n", "")
        for start in range(len(joined) - size + 1):
            yield joined[start : start + size]
