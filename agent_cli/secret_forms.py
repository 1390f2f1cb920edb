"""The forms a known secret can take in text, and where they occur. Pure: no I/O.

Contract: `SecretForms.from_values(values)` holds, for every value of at least
`MIN_SECRET_CHARS` characters and each of its Unicode `spellings`
(`agent_cli.secret_encodings`, which spells every form out), the value as it is; its
base64 (standard and URL-safe alphabets, at each of the three byte alignments, so inside
a longer encoded stream too, and on its own with or without its `=` padding); its base32
(`base32`, `basenc --base32hex`: both alphabets, at each of the five byte alignments); its
hex (lower and upper case) and Python's `repr` of its bytes (`byte_forms`,
`stream_forms`); the value as programs print it inside quotes (`escaped_forms`: Python's
`repr` and `ascii`, JSON with or without `\\uXXXX` for non-ASCII, a shell's double and
single quotes, bash's `$'...'` under a UTF-8 or a C locale); what a tool shows of it
written in UTF-16 or Latin-1 and read as UTF-8 (`misdecoded_forms`); the value reversed
and in upper or lower case (`rewritten_forms`: `rev`, `tr a-z A-Z`; of a key over several
lines, each material line's mirror image: `mirrored_lines`); and, as one matcher
each rather than a text (`percent_forms`, made by `url_forms`), the value with any of its
characters escaped one by one, each as any escaper writes it (`agent_cli.character_escapes`: a URL's
`%XX` (or `%25XX`, a URL inside a URL), JSON's `\\uXXXX` in either case, C's `\\xNN`,
HTML's `&#38;`/`&#x26;`/`&amp;`, YAML's and SQL's `''`, a `.properties` file's `\\=`),
in any mix (`agent_cli.percent_forms`; a doubled quote or a backslash escape throughout). So
`print(os.environ)`, `json.dumps`, `declare -p` or `env` (a `DATABASE_URL`) of a password
holding a quote, a backslash, a non-ASCII letter or a line break (a PEM key in a JSON
file) are caught too, and so is a file saved in NFD, UTF-16 or Latin-1, a
`DATABASE_URL` however its password was encoded, and `kubectl -o json` (Go writes `&` as
`\\u0026`) or `-o yaml` of a password. In every literal form a `/` also
matches as JSON's `\\/` and HTML's `&#x2F;` (either case), `&#47;`, `&#047;` and `&sol;`,
each slash either way (`_SLASH`: one matcher, not every combination, for a key with many
slashes; the first character of a form only as itself). A value on one line of at most
`MAX_DUMP_BYTES` bytes also matches as a hex dump shows it and spaced out (`od -c`);
see `_DUMP_GAP`. Its dump in any other layout (hex words in either byte order, octal,
decimal, binary, any row width: `agent_cli.secret_dumps`), a token-like value in
pieces with separators between them (`agent_cli.secret_spacing`) and a value with any of
its bytes or characters escaped, letters and digits too (`\\x67\\x68...`, `\\u0067`,
`&#x67;`, `%67`, `\\147`: `agent_cli.secret_escapes`) are found by
`pattern`'s finders (`secret_runs.SecretPattern`), beside the runs. And a long run of a token-like value's characters is an occurrence too
(`agent_cli.secret_runs`: `pattern` is the forms' regex and the runs as one matcher,
`occurrences` gives runs too; `open_match_start`, `closed_match_end` and
`is_middle_piece` know the runs as pieces of the value's own form, which every run is:
a cut keeps less than the threshold of a run on either side, see `safe_cuts`). Each
form up to `MAX_WRAPPED_CHARS`
characters also matches when broken across lines (`base64` wraps at 76 columns, `xxd -p`
at 60; a percent form when its longest spelling is that short). A line break of a value
that spans lines (a PEM key) matches a line feed or CRLF whatever the value holds: the
same file checked out with Windows line endings holds the same secret. In a literal form
it may also carry a short gap (`secret_pieces.LINE_GAP`: up to `LINE_SUFFIX_CHARS`
characters after the line, up to `LINE_PREFIX_CHARS` before the next): a key printed
with a prefix on each line (`git diff`'s `+`, `cat -n`, `nl`, `grep -n`, `diff`'s `> `, an
indentation, `read_file`'s own gutter in a recorded result) is one occurrence, from its
first character to its last, prefixes between included. A value that holds a private key
adds the texts in which tools print its private numbers (`agent_cli.key_number_forms`:
`openssl -text`'s listing, whose lines are indented, so it is one occurrence by that gap,
each of its lines a form too (`material_lines`); `asn1parse`'s hex; decimal; the
`byte_forms` of each number's octets: a JWK's base64url, `base64` of a raw key, a
Python bytes `repr`), never its public ones.

- `pattern` finds whole forms; `redact(text)` replaces each with `REDACTED_MARK`;
- `occurrences(text, start, end)` gives every occurrence, overlapping ones too, that
  starts in `[start, end)`: a cut must not split any of them; `longest_match` is the most
  characters one can cover;
- `open_match_start(text, min_chars)` is where a form may have begun at the very end of
  `text`: the earliest position whose rest is the start of an occurrence (holding at
  least `min_chars` of the form's characters). When a stream stopped there (a cap, a
  timeout), what follows is unknown, so that rest must be taken as a secret.
  `closed_match_end(text, min_chars)` is the same at the very beginning of a text that
  was cut before it, and `is_middle_piece(text, min_chars)` whether all of a text cut on both sides
  may lie inside one occurrence (`agent_cli.secret_pieces`). A piece that holds at least
  `MIN_PUBLIC_PIECE_CHARS` characters and lies, its line breaks left out, inside a stretch
  of a key's base64 that encodes no private byte (`public_stretches`,
  `agent_cli.public_key_lines`) is none of these: it is what the key's public PEM, DER
  base64 or `.pub` shares with it (shorter, it may as well be a token's start).
- The same for bytes (binary content, an artifact read by byte range), each form as its
  UTF-8 bytes: `redact_bytes(data)` gives the redacted bytes and how many were replaced,
  `byte_occurrences(data, start, end)` what `occurrences` gives for text, and
  `longest_byte_match` the most bytes one occurrence can cover.

The values themselves never appear in `repr`: a value that holds these is printed in
logs and tracebacks, and the secret must not be.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from agent_cli.key_number_forms import key_number_forms
from agent_cli.literal_trie import trie_pattern
from agent_cli.percent_forms import PercentForm
from agent_cli.private_key_numbers import pem_key_bodies
from agent_cli.public_key_lines import public_key_lines, public_key_stretches
from agent_cli.secret_dumps import MAX_DUMP_BYTES, DumpFinder
from agent_cli.secret_encodings import (
    byte_forms,
    escaped_forms,
    misdecoded_forms,
    rewritten_forms,
    spellings,
    stream_forms,
)
from agent_cli.secret_escapes import EscapeFinder
from agent_cli.secret_pieces import (
    LINE_PREFIX_CHARS,
    LINE_SUFFIX_CHARS,
    FormPieces,
    gap_pattern,
    may_wrap_before,
    spans_lines,
)
from agent_cli.secret_runs import (
    RunFinder,
    SecretPattern,
    SpanFinder,
    is_token_like,
    run_least,
)
from agent_cli.secret_spacing import SpacedFinder

REDACTED_MARK = "[REDACTED]"
MIN_SECRET_CHARS = 8
# The fewest characters of a piece at a cut that, inside a public stretch of a key, show
# it is the key's public part: 8 base64 characters stand by chance in a key's stretches
# about once in 10^12; fewer may as well be the start of a token.
MIN_PUBLIC_PIECE_CHARS = 8
# Longer forms are matched only as they are: a line break allowed between every
# character would make the pattern very large for, say, a PEM key.
MAX_WRAPPED_CHARS = 512
_LINE_BREAK = r"(?:\r?\n)?"
# An octet listing (`00:af:7d:...:e5:`, a private number as `openssl -text` prints it, one
# of its lines) is laid out by its printer: it is matched as it stands (its own line breaks
# with their gap), never wrapped, as a wrap allowed before each character would make a
# key's many listing lines costly to match in every text.
_OCTET_LISTING = re.compile(
    r"[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})*:?(?:\n[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})*:?)*"
)
_LINE_BREAK_CHARS = str.maketrans("", "", "\r\n")
_LINE_BREAKS = re.compile(r"\r\n|\r|\n")
MIN_MATERIAL_LINE_CHARS = 16
_HEX_LINE = re.compile(r"[0-9a-fA-F:]+")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
# A form ending in `%` also takes a `25` after it: that is its last character written as
# a URL holds it (`%25`), and the form itself, matched first, would end before the `25`.
# Wrapped, a line break may come before each of its two characters, as in the form.
_TRAILING_PERCENT = "(?:25)?"
_WRAPPED_TRAILING_PERCENT = f"(?:{_LINE_BREAK}2{_LINE_BREAK}5)?"
# What a line break of a form's own may take besides itself: a CR, and its gap.
_GAP_EXTRA = 1 + LINE_SUFFIX_CHARS + LINE_PREFIX_CHARS
# A `/` of a form matches it as JSON escapes it (`\/`, PHP's `json_encode`) and as HTML
# and XML escapers write it (`&#x2F;`, `&#47;`, `&sol;`): either spelling at each `/`, so
# a value with many slashes (an AWS secret key) is one matcher, not every combination.
_SLASH = r"(?:/|\\/|&#[xX]2[fF];|&#0?47;|&sol;)"
_SLASH_EXTRA = len("&#x2F;") - 1
# A hex dump (`xxd`, `xxd -u`, `od -An -tx1`, `hexdump -C`) of a value on one line of at
# most `MAX_DUMP_BYTES` bytes (a token, a password; not a PEM key, whose pattern would be
# large for every form it has): its hex bytes with up to two blanks between them (one at least
# at every even offset of the file, where `xxd` puts one), or a line's end between two:
# the line's text column, a line break and the next line's offset (`_DUMP_GAP`); after
# its last byte, the rest of that line (`_DUMP_TAIL`: its text column holds the value's
# last characters). And, for a token-like value, its characters spaced out (`od -c`,
# `sed 's/./& /g'`): one to three blanks between them, or a line break and an offset;
# or a list of its characters (`list(value)` printed, `json.dumps`: `', '`, `", "`).
_DUMP_GAP = r"[^\r\n]{0,20}\r?\n[0-9a-fA-F]{0,16}:?[ ]{0,3}"
_DUMP_GAP_CHARS = 20 + 2 + 16 + 1 + 3
_DUMP_TAIL = r"[^\r\n]{0,70}"
_DUMP_TAIL_CHARS = 70
_HEX_DIGIT = {
    digit: f"[{digit}{digit.upper()}]" if digit.isalpha() else digit for digit in "0123456789abcdef"
}
_SPACED_GAP = r"(?:[ ]{1,3}|', '|\", \"|\r?\n[0-7]{0,16}[ ]{1,3})"
_SPACED_GAP_CHARS = 2 + 16 + 3


def _may_wrap(form: str) -> bool:
    """Whether `form` also matches broken across lines: up to `MAX_WRAPPED_CHARS`
    characters, but for an octet listing (`_OCTET_LISTING`)."""
    return len(form) <= MAX_WRAPPED_CHARS and _OCTET_LISTING.fullmatch(form) is None


def _longest_text(form: str) -> int:
    """The most characters an occurrence of `form` can cover: each line break of its own
    as CRLF with its gap, and (up to `MAX_WRAPPED_CHARS`) a CRLF between every two
    characters; each `/` as `&#x2F;`."""
    wrapped = 2 * len(form) if _may_wrap(form) else 0
    trailing = (6 if wrapped else 2) if form.endswith("%") else 0
    slashes = _SLASH_EXTRA * form.count("/")
    return len(form) + wrapped + trailing + slashes + _GAP_EXTRA * form.count("\n")


def _longest_bytes(form: str) -> int:
    """`_longest_text` for the form's UTF-8 bytes (a gap's characters count as bytes)."""
    extra = len(form.encode("utf-8")) - len(form)
    return _longest_text(form) + extra


def _run_fragments(values: Iterable[str]) -> list[tuple[list[str], int]]:
    """For each value with runs (`run_least`), the value's fragments from each place a
    run may begin, with the fewest a run must take (`literal_trie`'s `open_ended`). A
    run is matched on one line (a line break between two of its characters ends it):
    a wrap allowed everywhere would double the pattern for output that cuts, not wraps."""
    chains: list[tuple[list[str], int]] = []
    for value in values:
        least = run_least(value)
        if least is None:
            continue
        fragments = [_unit_pattern(unit, 1) for unit in value]  # on one line: no wraps
        for start in range(len(value) - least + 1):
            chains.append(([re.escape(value[start]), *fragments[start + 1 :]], least))
    return chains


def _run_values(values: Iterable[str]) -> list[str]:
    """The values whose runs count: each value and, of one on one line, its rewritten
    forms (`rewritten_forms`), as a run of a value reversed or recased (`rev .env | cut
    -c1-20`) is as much of it as a run of the value. A value made of words and numbers
    (`my_database_password_1`) keeps its mirror image alone: recased, its runs are names
    ordinary text holds (`MY_DATABASE_PASSWORD`)."""
    found = set(values)
    for value in values:
        if "\n" in value or "\r" in value:
            continue
        if all(_WORD_OR_NUMBER.fullmatch(piece) for piece in _PIECE_SEPARATORS.split(value)):
            found.add(value[::-1])
        else:
            found |= rewritten_forms(value)
    return sorted(found)


_PIECE_SEPARATORS = re.compile(r"[-_.]")
_WORD_OR_NUMBER = re.compile(r"[A-Za-z]*|[0-9]+")


def _dump_fragments(values: Iterable[str]) -> list[list[str]]:
    """Each value (up to `MAX_DUMP_BYTES`) as a hex dump shows it, its digits in either
    case, at either parity of its offset, and a token-like one spaced out (`_DUMP_GAP`).
    A chain begins with a literal digit (see `_unit_pattern`), one chain for each case."""
    chains: set[tuple[str, ...]] = set()
    for value in values:
        data = value.encode("utf-8")
        if len(data) > MAX_DUMP_BYTES or "\n" in value or "\r" in value:
            continue  # a key that spans lines is not dumped here: see `MAX_DUMP_BYTES`
        digits = "".join(_HEX_DIGIT[digit] for digit in data.hex()[1:])
        rest = re.findall(r"\[..\]|.", digits)  # each digit's pattern after the first
        for first in {data.hex()[0], data.hex()[0].upper()}:
            for parity in (0, 1):
                chain = [first + rest[0]] + [
                    (f"(?:[ ]{{1,2}}|{_DUMP_GAP})" if (index + parity) % 2 == 0 else "[ ]?")
                    + rest[2 * index - 1]
                    + rest[2 * index]
                    for index in range(1, len(data))
                ]
                chain[-1] += _DUMP_TAIL
                chains.add(tuple(chain))
        if is_token_like(value):
            chains.add((re.escape(value[0]), *(_SPACED_GAP + re.escape(c) for c in value[1:])))
    return [list(chain) for chain in sorted(chains)]


def _longest_dump(value: str) -> int:
    """The most characters a dump of `value` (`_dump_fragments`) can cover."""
    size = len(value.encode("utf-8"))
    if size > MAX_DUMP_BYTES or "\n" in value or "\r" in value:
        return 0
    hex_dump = 2 * size + (size - 1) * max(2, _DUMP_GAP_CHARS) + _DUMP_TAIL_CHARS
    return max(hex_dump, len(value) * (1 + _SPACED_GAP_CHARS))


@dataclass(frozen=True, repr=False)
class SecretForms:
    """Every form of some secret values (module contract); empty when there are none."""

    forms: tuple[str, ...] = ()
    # Each value as a URL holds it, encoded in any way (`agent_cli.percent_forms`).
    percent_forms: tuple[PercentForm, ...] = ()
    # The values whose long runs (`run_least`) and dumps (`_dump_fragments`) count.
    values: tuple[str, ...] = ()
    # The stretches of the values' keys' base64 that encode no private byte.
    public_stretches: tuple[str, ...] = ()
    pattern: SecretPattern | None = field(init=False, compare=False, default=None)
    # The longest text one occurrence can cover (`_longest_text`).
    longest_match: int = field(init=False, compare=False, default=0)
    longest_byte_match: int = field(init=False, compare=False, default=0)
    _starts: re.Pattern[str] | None = field(init=False, compare=False, default=None)
    _pieces: FormPieces | None = field(init=False, compare=False, default=None)
    _byte_pattern: re.Pattern[bytes] | None = field(init=False, compare=False, default=None)
    _byte_starts: re.Pattern[bytes] | None = field(init=False, compare=False, default=None)

    def __post_init__(self) -> None:
        forms = tuple(sorted(set(self.forms), key=lambda form: (-len(form), form)))
        percent_forms = tuple(dict.fromkeys(self.percent_forms))
        values = tuple(sorted(set(self.values)))
        dumps = _dump_fragments(values)
        alternation = trie_pattern([*_all_fragments(forms, percent_forms), *dumps], spans_lines)
        finders: tuple[SpanFinder, ...] = (
            RunFinder(_run_values(values)),
            DumpFinder(values),
            SpacedFinder(values),
            EscapeFinder(values),
        )
        anything = bool(forms or percent_forms or values)
        longest_percent = max(
            (form.longest_text(wrapped=_wrapped(form)) for form in percent_forms), default=0
        )
        # a run is a piece of its value, itself a form: only a dump may be longer
        longest_dump = max(map(_longest_dump, values), default=0)
        longest_bytes = map(_longest_bytes, forms)
        set_field = object.__setattr__  # frozen: derived fields are set once, here
        set_field(self, "forms", forms)
        set_field(self, "percent_forms", percent_forms)
        set_field(self, "values", values)
        set_field(self, "public_stretches", tuple(sorted(set(self.public_stretches))))
        regex = re.compile(alternation)
        set_field(self, "pattern", SecretPattern(regex, finders) if anything else None)
        set_field(self, "_starts", re.compile(f"(?=({alternation}))") if anything else None)
        longest_found = max(finder.longest_span for finder in finders)
        longest = max(*map(_longest_text, forms), longest_percent, longest_dump, longest_found)
        set_field(self, "longest_match", longest)
        set_field(self, "longest_byte_match", max(*longest_bytes, longest_percent, longest_dump, 0))
        set_field(self, "_pieces", FormPieces(forms, self.longest_match))

    def __repr__(self) -> str:
        return f"SecretForms(<{len(self.forms) + len(self.percent_forms)} forms>)"

    @classmethod
    def from_values(cls, values: Iterable[str]) -> SecretForms:
        forms: set[str] = set()
        percent_forms: set[PercentForm] = set()
        kept: set[str] = set()
        stretches: set[str] = set()
        for value in values:
            if len(value) >= MIN_SECRET_CHARS:
                lines = material_lines(value)
                forms |= encoded_forms(value) | lines | mirrored_lines(lines)
                for printed in key_number_forms(value):
                    forms |= {printed} | material_lines(printed)
                percent_forms |= url_forms(value)
                kept.add(value)
                stretches |= public_key_stretches(value)
        return cls(
            tuple(forms),
            tuple(sorted(percent_forms, key=lambda form: form.choices)),
            tuple(kept),
            tuple(stretches),
        )

    def __bool__(self) -> bool:
        return bool(self.forms or self.percent_forms or self.values)

    def redact(self, text: str) -> str:
        """`text` with every occurrence of a form replaced by `REDACTED_MARK`."""
        return self.pattern.sub(REDACTED_MARK, text) if self.pattern is not None else text

    def redact_bytes(self, data: bytes) -> tuple[bytes, int]:
        """`data` with every occurrence of a form's UTF-8 bytes replaced by
        `REDACTED_MARK`, and how many were replaced."""
        pattern = self._byte_patterns()[0]
        if pattern is None or not data:
            return data, 0
        return pattern.subn(REDACTED_MARK.encode("ascii"), data)

    def byte_occurrences(self, data: bytes, start: int, end: int) -> Iterator[tuple[int, int]]:
        """`occurrences` for bytes: (start, end) of every occurrence of a form's bytes
        that begins in `[start, end)`, overlapping ones included."""
        starts = self._byte_patterns()[1]
        if starts is None:
            return
        limit = min(len(data), max(end, 0) + self.longest_byte_match)
        for found in starts.finditer(data, max(start, 0), limit):
            if found.start() >= end:
                return
            yield found.start(1), found.end(1)

    def _byte_patterns(self) -> tuple[re.Pattern[bytes] | None, re.Pattern[bytes] | None]:
        """The bytes patterns (whole forms; their starts), compiled on first use: most
        sessions never meet binary content."""
        if self._byte_pattern is None and self:
            extra = trie_pattern(
                _dump_fragments(self.values), spans_lines, open_ended=_run_fragments(self.values)
            )
            alternation = b"|".join(
                [
                    *(_byte_pattern_for(form) for form in self.forms),
                    *(form.byte_pattern(wrapped=_wrapped(form)) for form in self.percent_forms),
                    *([extra.encode("utf-8")] if extra else []),
                ]
            )
            object.__setattr__(self, "_byte_pattern", re.compile(alternation))
            object.__setattr__(self, "_byte_starts", re.compile(b"(?=(%s))" % alternation))
        return self._byte_pattern, self._byte_starts

    def occurrences(self, text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
        """(start, end) of every occurrence that begins in `[start, end)`, overlapping
        ones included: at each position, the longest form that matches there."""
        if self._starts is None:
            return
        # One occurrence covers at most `longest_match` characters: the search need not
        # look further than that past `end` (a whole 2 MB result would cost each cut).
        limit = min(len(text), max(end, 0) + self.longest_match)
        spans = []
        for found in self._starts.finditer(text, max(start, 0), limit):
            if found.start() >= end:
                break
            spans.append((found.start(1), found.end(1)))
        for finder in self.pattern.finders if self.pattern is not None else ():
            # a run, a dump, spaced pieces that begin here, found from as far back as one
            # reaches (found from `start`, one that begins before would seem to begin there)
            reached = finder.spans(text, max(start, 0) - finder.longest_span, limit)
            spans += [span for span in reached if max(start, 0) <= span[0] < end]
        spans.sort()
        yield from spans

    def open_match_start(self, text: str, min_chars: int = 1) -> int | None:
        """The earliest position whose rest of `text` is a (proper or whole) start of an
        occurrence of a form holding at least `min_chars` of its characters (of a percent
        form: of the text's characters, line breaks left out); None when the end of `text`
        cannot be inside one. A line break may stand between any two characters, as in a
        wrapped form."""
        if not self:
            return None
        literal = self._pieces.open_start(text, min_chars) if self._pieces else None
        if literal is not None and self._is_public_piece(text[literal:]):
            literal = None
        encoded = self._percent_start(text, min_chars, before=literal)
        if encoded is not None and self._is_public_piece(text[encoded:]):
            encoded = None  # and so is every later start: it lies inside this one
        return literal if encoded is None else encoded

    def _percent_start(self, text: str, min_chars: int, *, before: int | None) -> int | None:
        """`open_match_start` for the percent forms alone, looked for before `before`."""
        if not self.percent_forms:
            return None
        stop = len(text) if before is None else before
        window = max(0, len(text) - self.longest_match)
        # the window without line breaks (nor the U+FFFD of a character cut at its end),
        # made once: each position is then tried where it stands in it
        flat = text[window:].translate(_LINE_BREAK_CHARS).rstrip("\ufffd")
        at = 0
        for position in range(window, stop):
            if text[position] in "\r\n":
                continue
            if len(flat) - at >= min_chars and any(
                form.matches_start(flat, at) for form in self.percent_forms
            ):
                return position
            at += 1
        return None

    def closed_match_end(self, text: str, min_chars: int = 1) -> int | None:
        """The latest position within the first `longest_match` characters whose text
        before it is a (proper or whole) end of an occurrence holding at least `min_chars`
        of a form's characters (of a percent form: of the text's, line breaks left out);
        None when the beginning of `text` cannot be inside one."""
        literal = self._pieces.closed_end(text, min_chars) if self._pieces else None
        ends = [literal] if literal is not None else []
        head = text[: self.longest_match]
        skipped = len(head) - len(head.lstrip("\ufffd"))  # bytes of a character cut
        for form in self.percent_forms:
            for end in form.end_positions(head[skipped:]):
                if _flat_length(head[skipped : skipped + end]) >= min_chars:
                    ends.append(skipped + end)
        return max((end for end in ends if not self._is_public_piece(text[:end])), default=None)

    def is_middle_piece(self, text: str, min_chars: int) -> bool:
        """Whether all of `text` may lie inside one occurrence of a form (it begins and
        ends anywhere in it): of a literal form with a run of `min_chars` of its
        characters on one line, of a percent form with `min_chars` characters."""
        if self._is_public_piece(text):
            return False
        if self._pieces is not None and self._pieces.is_middle(text, min_chars):
            return True
        inner = text.strip("\r\n").strip("\ufffd")
        if not inner or len(inner) > self.longest_match or _flat_length(inner) < min_chars:
            return False
        return any(form.holds_inside(inner) for form in self.percent_forms)

    def _is_public_piece(self, piece: str) -> bool:
        """Whether `piece`, its line breaks (and a U+FFFD of a character a cut split at
        either end) left out, holds at least `MIN_PUBLIC_PIECE_CHARS` characters and lies
        inside a stretch of a key that encodes no private byte (module contract)."""
        if not self.public_stretches:
            return False
        flat = piece.translate(_LINE_BREAK_CHARS).strip("\ufffd")
        if len(flat) < MIN_PUBLIC_PIECE_CHARS:
            return False
        return any(flat in stretch for stretch in self.public_stretches)


def _flat_length(text: str) -> int:
    """The characters of `text` that are no line break."""
    return len(text) - text.count("\n") - text.count("\r")


def encoded_forms(secret: str) -> set[str]:
    """Every form of `secret` of at least `MIN_SECRET_CHARS` characters: for each of its
    `spellings`, with its line breaks as LF, CRLF and CR (a key file checked out with
    Windows line endings, then JSON-quoted, base64- or hex-encoded), the value, its
    `escaped_forms`, its `misdecoded_forms` and `_utf16_printed_forms`, its
    `rewritten_forms` (reversed, upper and lower case; of a value on one line), and the
    forms of its UTF-8 bytes (`secret_encodings.byte_forms`: hex in both cases, Python's bytes
    `repr`, base64 on its own, which a private key's numbers take too; `stream_forms`:
    base64 and base32 at every alignment and in both alphabets of each)."""
    forms: set[str] = set()
    for spelling in {ended for each in spellings(secret) for ended in _line_endings(each)}:
        data = spelling.encode("utf-8")
        forms |= {spelling, *escaped_forms(spelling), *byte_forms(data), *stream_forms(data)}
        forms |= misdecoded_forms(spelling) | _utf16_printed_forms(spelling)
        if "\n" not in spelling and "\r" not in spelling:  # a key's lines are judged alone
            forms |= rewritten_forms(spelling)
    return {form for form in forms if len(form) >= MIN_SECRET_CHARS}


def _utf16_printed_forms(spelling: str) -> set[str]:
    """`spelling`'s UTF-16 bytes (either order, the NUL bytes at its ends left out) as
    Python prints bytes and as hex in both cases: the forms a program shows of a value it
    encoded as UTF-16 (Windows' wide strings, `.encode("utf-16")`). None for a value over
    several lines: each line of a key's material is a secret of its own (`material_lines`)."""
    forms: set[str] = set()
    if "\n" in spelling or "\r" in spelling:
        return forms
    for codec in ("utf-16-le", "utf-16-be"):
        data = spelling.encode(codec).strip(b"\x00")
        forms |= {repr(data)[2:-1], data.hex(), data.hex().upper()}
    return forms


def material_lines(value: str) -> set[str]:
    """The lines of a multi-line value that are key material, each a secret of its own:
    at least `MIN_MATERIAL_LINE_CHARS` characters of a base64 alphabet (standard or URL,
    `=` padding) with upper and lower case letters and digits, or of hex. A key's lines
    printed where no line break stands between them (a JSON list of its lines,
    `print(f.readlines())`, a prefixed listing inside a JSON string, a record rendered as
    JSON) are each still hidden; a config's ordinary lines (`[default]`,
    `region=us-east-1`, `clusters:`) and a PEM armour line are not material, nor a
    private key's line that encodes no private byte (`agent_cli.public_key_lines`: its
    modulus, say, which the key's public PEM, `.pub` or JWK holds too, and shows). A
    private key's body line needs no mix of cases and digits: a short last line of
    base64 may have no digit, and it is key material all the same. Lines are read without
    the blanks that indent them (a key in a YAML block)."""
    lines = [line.strip(" \t") for line in _LINE_BREAKS.split(value)]
    if len(lines) == 1:
        return set()
    body_lines = {
        line
        for body in pem_key_bodies(value)
        for line in (each.strip(" \t") for each in _LINE_BREAKS.split(body))
        if len(line) >= MIN_MATERIAL_LINE_CHARS and _BASE64_LINE.fullmatch(line)
    }
    material = {line for line in lines if _is_material(line)} | body_lines
    return material - public_key_lines(value)


def mirrored_lines(lines: Iterable[str]) -> set[str]:
    """The mirror image of each of a key's material `lines`: `rev key.pem` reverses each
    line, and each line is a secret of its own (`material_lines`), so its mirror image is
    too, as a one-line value's is (`rewritten_forms`). A line's case changes are left out:
    they lose the case that base64 carries, and each costs forms to every session."""
    return {line[::-1] for line in lines}


def _is_material(line: str) -> bool:
    if len(line) < MIN_MATERIAL_LINE_CHARS:
        return False
    if _HEX_LINE.fullmatch(line):
        return True
    return bool(_BASE64_LINE.fullmatch(line)) and all(
        any(test(character) for character in line)
        for test in (str.isupper, str.islower, str.isdigit)
    )


def _line_endings(value: str) -> set[str]:
    """`value` as it is and with each line break as LF, as CRLF and as CR (a file saved
    with old Mac line endings)."""
    lines = _LINE_BREAKS.split(value)
    if len(lines) == 1:
        return {value}
    return {value, *(ending.join(lines) for ending in ("\n", "\r\n", "\r"))}


def _all_fragments(
    forms: tuple[str, ...], percent_forms: tuple[PercentForm, ...]
) -> list[list[str]]:
    """Every form as `literal_trie` fragments: the literal ones, then the percent forms."""
    fragments = [_fragments_for(form) for form in forms]
    for form in percent_forms:
        fragments.extend(form.fragments(wrapped=_wrapped(form)))
    return fragments


def url_forms(secret: str) -> set[PercentForm]:
    """`secret` as a URL may hold it: a `PercentForm` for each of its `spellings` that has
    a character an encoder would encode (else the form is the spelling itself)."""
    forms = {form for spelling in spellings(secret) for form in PercentForm.all_of(spelling)}
    return {form for form in forms if form.encodes_anything}


def _wrapped(form: PercentForm) -> bool:
    """Whether `form` is matched broken across lines too: as a literal form is, when its
    longest spelling is at most `MAX_WRAPPED_CHARS` long."""
    return form.spelled_length <= MAX_WRAPPED_CHARS


def _fragments_for(form: str) -> list[str]:
    """`form` as regex fragments, one a character (`literal_trie`): a line feed matches
    CRLF too, with its gap (`secret_pieces.gap_pattern`), and up to `MAX_WRAPPED_CHARS` characters a line
    break may come before each other character (`secret_pieces.may_wrap_before`)."""
    units = form.replace("\r\n", "\n")
    wraps = _may_wrap(form)
    fragments = [
        (_LINE_BREAK if wraps and may_wrap_before(units, index) else "")
        + (gap_pattern(units, index) if unit == "\n" else _unit_pattern(unit, index))
        for index, unit in enumerate(units)
    ]
    if units.endswith("%"):
        fragments[-1] += _WRAPPED_TRAILING_PERCENT if wraps else _TRAILING_PERCENT
    return fragments


def _unit_pattern(unit: str, index: int) -> str:
    """A character of a form as a regex: a `/` in any of its escaped spellings (`_SLASH`),
    but for the first: a pattern whose every branch begins with a literal character lets
    `re` skip at once the positions where none begins (its charset prefix), and a form
    that begins with an escaped `/` is found from its next character on."""
    return _SLASH if unit == "/" and index > 0 else re.escape(unit)


def _byte_pattern_for(form: str) -> bytes:
    """`_fragments_for` over the form's UTF-8 bytes, joined as one alternative: a line
    break may come only between two characters, never inside one."""
    units = form.replace("\r\n", "\n")
    wraps = _may_wrap(form)
    pattern = b"".join(
        (_LINE_BREAK.encode("ascii") if wraps and may_wrap_before(units, index) else b"")
        + (
            gap_pattern(units, index).encode("ascii")
            if unit == "\n"
            else _SLASH.encode("ascii")
            if unit == "/"
            else re.escape(unit.encode("utf-8"))
        )
        for index, unit in enumerate(units)
    )
    trailing = _WRAPPED_TRAILING_PERCENT if wraps else _TRAILING_PERCENT
    return pattern + (trailing.encode("ascii") if units.endswith("%") else b"")


NO_SECRETS = SecretForms()
