r"""A secret with some or all of its characters or bytes written as escapes. Pure: no I/O.

Why: a command can print a value with every byte escaped (`hexdump -e '"\\x" 1/1
"%02x"'`: `\x67\x68\x70\x5f...`; Perl's `sprintf "\\x%02X"`; Python's `\u%04x` or
`&#x%x;` per character; `od -An -tx1 | sed 's/ /\\x/g'`), or only some of them. A form
does not see it: `agent_cli.percent_forms` takes the escapes of a value's punctuation and
non-ASCII characters, never of a letter or a digit (no encoder writes those escaped, and
allowing it would multiply every key's pattern), and a dump reader (`secret_dumps`) reads
numbers, not escapes. Here the escapes of a stretch of text are read back
(`agent_cli.escaped_text`) and the value looked for in what they say.

Contract: `EscapeFinder(values)` knows each value on one line of `MIN_DUMP_BYTES` to
`MAX_DUMP_BYTES` UTF-8 bytes. `spans(text, pos, endpos)` gives, in order and merged where
they overlap, each stretch of `text[pos:endpos]` that, its escapes read
(`escaped_text.read_views`: bytes, code points, HTML references, a backslash before
punctuation, each with its first character escaped over as JSON, URLs and HTML escape
escaped text (`\\\\x67`, `%2567`, `&amp;#x67;`, `\u0026#103;`, `\u005cx67`), and an
escape whose own characters are escaped, read again (`\x5c\x78\x36\x37`); what a
byte escape stands for read as UTF-8), holds a value whole or, for a value with runs
(`secret_runs.run_least`), a run of it; read both with what stands between two escapes
kept and with a separator there left out (`\x67 \x68`, a dump's rows, real or escaped
line breaks between them), and with the blanks between escapes and characters standing
alone left out (`\x67 h \x70 _`). Found fast: one regex (`escape_fragments` of every character
of a value, as a trie) finds the escapes that stand for one, and escaped escapes
(`escaped_text.ESCAPED_LEAD`); from each, the run of such escapes (of any escapes, from
an escaped one) and of the values' own characters around it (and of blanks before such
a character standing alone) is measured (a regex forward, at most as many characters as
the longest value has back), and only a run that reads as
enough characters to hold a value or a run of one is read, by `re.sub` (mapped back to
the text, `read_escapes`, only where a value is found). Escapes that stand for nothing a
value holds (`\u00e9`, `\x1b`, `&#233;` for a token) cost that one scan. Each stretch is
at most `longest_span` characters long (a longer one is not found: a stream holds back
that much to see it whole).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from agent_cli.escaped_text import (
    ANY_ESCAPE,
    BLANKS,
    ESCAPED_LEAD,
    JOINER,
    JOINER_CHARS,
    LONGEST_ESCAPE,
    LONGEST_JOINER,
    WIDE_JOINER,
    escape_fragments,
    read_escapes,
    read_views,
)
from agent_cli.literal_trie import trie_pattern
from agent_cli.secret_dumps import MAX_DUMP_BYTES, MIN_DUMP_BYTES
from agent_cli.secret_runs import RunFinder, SecretPattern, merged_spans, run_least

_NO_END = 1 << 62


def _targets(values: Iterable[str]) -> list[str]:
    """What each value (module contract) reads as: itself, and its UTF-8 bytes as escapes
    of bytes give them (each a character U+0000 to U+00FF)."""
    found: set[str] = set()
    for value in values:
        data = value.encode("utf-8")
        if "\n" in value or "\r" in value or not MIN_DUMP_BYTES <= len(data) <= MAX_DUMP_BYTES:
            continue
        found |= {value, data.decode("latin-1")}
    return sorted(found, key=lambda target: (-len(target), target))


class EscapeFinder:
    """Finds values written with escapes (module contract)."""

    def __init__(self, values: Iterable[str]) -> None:
        targets = _targets(values)
        self._characters = frozenset("".join(targets))
        self._reach = max(map(len, targets), default=0)
        self._fewest = min((run_least(target) or len(target) for target in targets), default=0)
        self.longest_span = self._reach * (LONGEST_ESCAPE + LONGEST_JOINER)
        self._matcher: SecretPattern | None = None
        if targets:
            whole = trie_pattern([[re.escape(c) for c in target] for target in targets])
            self._matcher = SecretPattern(re.compile(whole), (RunFinder(targets),))
            self._escapes, self._run, self._run_again = _escape_patterns(self._characters)

    def __bool__(self) -> bool:
        return self._matcher is not None

    def spans(self, text: str, pos: int = 0, endpos: int = _NO_END) -> Iterator[tuple[int, int]]:
        """The values written with escapes in `text[pos:endpos]` (module contract)."""
        matcher = self._matcher
        if matcher is None:
            return
        pos, endpos = max(pos, 0), min(endpos, len(text))
        found: list[tuple[int, int]] = []
        for start, end in self._runs(text, pos, endpos):
            found += _read(matcher, text, start, end, self._fewest)
        kept = (span for span in sorted(found) if span[1] - span[0] <= self.longest_span)
        yield from merged_spans(kept)

    def _runs(self, text: str, pos: int, endpos: int) -> Iterator[tuple[int, int]]:
        """Each run in `text[pos:endpos]` of escapes of a value's characters and of those
        characters, holding one such escape at least and long enough to hold a value or
        a run of one (module contract), in order."""
        covered = pos
        while (escape := self._escapes.search(text, covered, endpos)) is not None:
            start = escape.start()
            measure = self._run if escape.lastgroup is None else self._run_again
            run = measure.match(text, start, endpos)  # matches: it may take nothing
            end = covered = max(run.end() if run is not None else 0, escape.end())
            start = _run_back(text, start, max(pos, start - self._reach), self._characters)
            if end - start >= self._fewest:
                yield start, end


def _escape_patterns(
    characters: frozenset[str],
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The escapes of `characters` and, as the group `again`, an escape's first character
    written as an escape before another escape (`ESCAPED_LEAD`); a run from one of the
    first (module contract): such escapes (a separator between two taken) and
    `characters` themselves; a run from one of the second: any escapes so, and
    `characters`."""
    relevant = trie_pattern(
        fragments for character in sorted(characters) for fragments in escape_fragments(character)
    )
    plain = "".join(map(re.escape, sorted(characters)))

    alone = f"[{plain}](?![^ \\t\\r\\n])"

    def run(escape: str) -> re.Pattern[str]:
        after_escape = (
            f"(?:(?:{JOINER.pattern})(?=(?:{escape}))|(?=(?:{escape}))|{BLANKS}(?={alone})"
            f"|{WIDE_JOINER}(?=(?:{escape})))?"
        )
        after_plain = f"(?:{BLANKS}(?=(?:{escape})|{alone}))?"
        return re.compile(f"(?:(?:{escape}){after_escape}|[{plain}]{after_plain})*")

    anchors = re.compile(f"{relevant}|(?P<again>{ESCAPED_LEAD.pattern})")
    return anchors, run(relevant), run(ANY_ESCAPE)


def _run_back(text: str, start: int, low: int, characters: frozenset[str]) -> int:
    """Where a run that goes on at `start` begins, `low` at the earliest: back over
    `characters`, and over the blanks before one of them that stands alone."""
    while start > low:
        if text[start - 1] in characters:
            start -= 1
            continue
        blank = start
        while blank > low and start - blank < JOINER_CHARS and text[blank - 1] in " \t":
            blank -= 1
        alone = blank - 1 >= low and text[blank - 1] in characters
        if blank == start or not alone or (blank - 2 >= low and text[blank - 2] not in " \t\r\n"):
            return start
        start = blank - 1
    return start


def _read(
    matcher: SecretPattern, text: str, start: int, end: int, fewest: int
) -> list[tuple[int, int]]:
    """Where `matcher` finds a value in `text[start:end]` read each way (module contract)
    that reads it differently and as `fewest` characters at least; mapped back only
    where one is found."""
    found: list[tuple[int, int]] = []
    for reading, view in read_views(text, start, end, fewest):
        if matcher.search(view) is not None:
            read = read_escapes(text, start, end, reading)
            found += [read.span_of(*match.span()) for match in matcher.finditer(read.view)]
    return found
