"""Long runs of a secret's own characters, and the matcher that finds them beside the
forms. Pure: no I/O.

Why: a command that cuts a value (`env | cut -c1-48` keeps 35 of a 40-character token's
characters, `cut -c14-` of a key all its random part, `head -c`) leaves no whole form of
it, yet most of the secret. A long enough run of a value's characters, in order, is an
occurrence too.

Contract:
- `run_least(value)`: the fewest characters a run of `value` must hold to count:
  `RUN_MIN_CHARS`, and at least half the value; None when no run of it counts. Only a
  token-like value has runs: of letters, digits, `+/=_.~-` and the symbols generated
  passwords hold (`!#$%^&*?|,;<>()[]{}`: `Zq7#vR2pL9!mK4wX8nT3`) alone, holding a letter
  and a digit, at most `RUN_MAX_CHARS` long. A token's fixed prefix (`sk-ant-api03-`,
  `ghp_`, `xoxb-`, a JWT's header) is shorter than half of it, and a value with other
  separators (a URL, a DSN, a `user:password`, a passphrase, with `:`, `@` or blanks)
  shares whole words with ordinary text: its runs do not count (its whole forms do).
- `RunFinder(values).spans(text, pos, endpos)`: the runs in `text[pos:endpos]`, each as
  long as it goes (`(start, end)`, in order; overlapping runs of two values merged); a
  run is at most `longest_span` (`RUN_MAX_CHARS`) characters long and holds a letter or a
  digit (a line of `#` matches no password's run of symbols).
  Found fast: each value is tiled with blocks of `(least + 1) // 2` characters (a run of
  at least `2b - 1` characters holds a whole block of `b`), one literal regex finds the
  blocks, and each hit is extended left and right against the value. A run is read on
  the value's own characters: the first character of a line break or an escape (`\\/`)
  ends it.
- `SecretPattern(regex, finders)`: the forms' regex and some `SpanFinder`s (the runs,
  `secret_dumps`' dumps, `secret_spacing`'s spaced pieces) as one matcher, with the
  part of `re.Pattern`'s interface the redactor's callers use (`search`, `finditer`,
  `sub`, `subn`): an occurrence is a regex match or a finder's span, and those that
  overlap are one occurrence (one `REDACTED_MARK`).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator
from typing import Protocol

from agent_cli.literal_trie import trie_pattern

RUN_MIN_CHARS = 16
RUN_MAX_CHARS = 128
# A key's characters, and the symbols generated passwords add; no blank, quote,
# backslash, `:` or `@` (the separators of a URL, a DSN, a `user:password`).
_TOKEN_LIKE = re.compile(r"[A-Za-z0-9+/=_.~!#$%^&*?|,;<>()\[\]{}-]+")
_NO_END = 1 << 62  # `re`'s default `endpos`: as far as the text goes


def is_token_like(value: str) -> bool:
    """Letters, digits, `+/=_.~-` and a password's symbols `!#$%^&*?|,;<>()[]{}` alone
    (`run_least`)."""
    return _TOKEN_LIKE.fullmatch(value) is not None


def run_least(value: str) -> int | None:
    """The fewest characters a run of `value` must hold to be an occurrence (module
    contract); None when no run of it is."""
    if len(value) > RUN_MAX_CHARS or not is_token_like(value):
        return None
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return None
    least = max(RUN_MIN_CHARS, -(-len(value) // 2))
    return least if least < len(value) else None


class SpanFinder(Protocol):
    """Finds occurrences a regex does not: `spans` in order, merged where they overlap,
    none longer than `longest_span`; false when it knows no value."""

    longest_span: int

    def __bool__(self) -> bool: ...

    def spans(
        self, text: str, pos: int = 0, endpos: int = _NO_END
    ) -> Iterator[tuple[int, int]]: ...


class RunFinder:
    """Finds the runs of some values (module contract)."""

    def __init__(self, values: Iterable[str]) -> None:
        self._places: dict[str, list[tuple[str, int, int]]] = {}  # block: (value, at, least)
        for value in values:
            least = run_least(value)
            if least is None:
                continue
            size = (least + 1) // 2
            for at in range(0, len(value) - size + 1, size):
                self._places.setdefault(value[at : at + size], []).append((value, at, least))
        blocks = sorted(self._places, key=lambda block: (-len(block), block))
        self._blocks = (
            re.compile(trie_pattern([[re.escape(c) for c in block] for block in blocks]))
            if blocks
            else None
        )
        self.longest_span = RUN_MAX_CHARS

    def __bool__(self) -> bool:
        return self._blocks is not None

    def spans(self, text: str, pos: int = 0, endpos: int = _NO_END) -> Iterator[tuple[int, int]]:
        """The runs in `text[pos:endpos]` (module contract), in order, merged."""
        if self._blocks is None:
            return
        pos, endpos = max(pos, 0), min(endpos, len(text))
        found: list[tuple[int, int]] = []
        at = pos
        while (hit := self._blocks.search(text, at, endpos)) is not None:
            for value, offset, least in self._places[hit.group()]:
                start, end = _extend(text, hit.start(), hit.end(), value, offset, pos, endpos)
                if end - start >= least and _holds_a_letter_or_digit(text, start, end):
                    found.append((start, end))
            at = hit.start() + 1
        yield from merged_spans(iter(sorted(found)))


def _holds_a_letter_or_digit(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is more than symbols (a run of `#` is no password's)."""
    return any(c.isalnum() for c in text[start:end])


def _extend(
    text: str, start: int, end: int, value: str, offset: int, pos: int, endpos: int
) -> tuple[int, int]:
    """The run around `text[start:end]`, which is `value` from `offset` on, as far as the
    text goes on being the value on either side (within `[pos, endpos)`)."""
    left, right = offset, offset + (end - start)
    while start > pos and left > 0 and text[start - 1] == value[left - 1]:
        start, left = start - 1, left - 1
    while end < endpos and right < len(value) and text[end] == value[right]:
        end, right = end + 1, right + 1
    return start, end


class Found:
    """An occurrence `SecretPattern` found: what callers read of a `re.Match`."""

    __slots__ = ("_end", "_start", "_text")

    def __init__(self, text: str, start: int, end: int) -> None:
        self._text, self._start, self._end = text, start, end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def span(self) -> tuple[int, int]:
        return self._start, self._end

    def group(self) -> str:
        return self._text[self._start : self._end]


class SecretPattern:
    """The forms' regex and the finders' spans, as one matcher (module contract)."""

    def __init__(self, regex: re.Pattern[str], finders: Iterable[SpanFinder]) -> None:
        self.regex = regex
        self.finders = tuple(finder for finder in finders if finder)
        self.pattern = regex.pattern

    def finditer(self, string: str, pos: int = 0, endpos: int = _NO_END) -> Iterator[Found]:
        """Every occurrence in `string[pos:endpos]`, in order: the regex's matches and the
        runs, those that overlap merged into one."""
        matches = (match.span() for match in self.regex.finditer(string, pos, endpos))
        if not self.finders:
            for start, end in matches:
                yield Found(string, start, end)
            return
        found = (finder.spans(string, pos, endpos) for finder in self.finders)
        spans = merged_spans(heapq.merge(matches, *found))
        for start, end in spans:
            yield Found(string, start, end)

    def search(self, string: str, pos: int = 0, endpos: int = _NO_END) -> Found | None:
        """The first occurrence in `string[pos:endpos]`, if any."""
        if not self.finders:
            match = self.regex.search(string, pos, endpos)
            return None if match is None else Found(string, match.start(), match.end())
        return next(self.finditer(string, pos, endpos), None)

    def subn(self, repl: str, string: str) -> tuple[str, int]:
        """`string` with each occurrence replaced by `repl`, and how many."""
        if not self.finders:
            return self.regex.subn(repl, string)
        pieces: list[str] = []
        last = count = 0
        for found in self.finditer(string):
            pieces += [string[last : found.start()], repl]
            last, count = found.end(), count + 1
        pieces.append(string[last:])
        return "".join(pieces), count

    def sub(self, repl: str, string: str) -> str:
        return self.subn(repl, string)[0]


def merged_spans(spans: Iterator[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Spans in order of start, those that overlap (not those that only touch) merged."""
    held: tuple[int, int] | None = None
    for start, end in spans:
        if held is not None and start < held[1]:
            held = (held[0], max(held[1], end))
            continue
        if held is not None:
            yield held
        held = (start, end)
    if held is not None:
        yield held
