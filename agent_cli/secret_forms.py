"""The forms a known secret can take in text, and where they occur. Pure: no I/O.

Contract: `SecretForms.from_values(values)` holds, for every value of at least
`MIN_SECRET_CHARS` characters and each of its Unicode `spellings`
(`agent_cli.secret_encodings`, which spells every form out), the value as it is; its
base64 (standard and URL-safe alphabets, at each of the three byte alignments, so inside
a longer encoded stream too); its base32 (`base32`, `basenc --base32hex`: both alphabets,
at each of the five byte alignments); its hex (lower and upper case); the value as
programs print it inside quotes (`escaped_forms`: Python's `repr` and `ascii`, and of its
bytes, JSON with or without `\\uXXXX` for non-ASCII, a shell's double and single quotes,
bash's `$'...'` under a UTF-8 or a C locale); what a tool shows of it written in UTF-16
or Latin-1 and read as UTF-8 (`misdecoded_forms`); and, as one matcher each rather than
a text (`percent_forms`, made by `url_forms`), the value as a URL holds it, any of its
characters percent-encoded in either case of hex (`agent_cli.percent_forms`). So
`print(os.environ)`, `json.dumps`, `declare -p` or `env` (a `DATABASE_URL`) of a password
holding a quote, a backslash, a non-ASCII letter or a line break (a PEM key in a JSON
file) are caught too, and so is a file saved in NFD, UTF-16 or Latin-1, and a
`DATABASE_URL` however its password was encoded. Each form up to `MAX_WRAPPED_CHARS`
characters also matches when broken across lines (`base64` wraps at 76 columns, `xxd -p`
at 60; a percent form when its longest spelling is that short). A line break of a value
that spans lines (a PEM key) matches a line feed or CRLF whatever the value holds: the
same file checked out with Windows line endings holds the same secret. In a literal form
it may also carry a short gap (`secret_pieces.LINE_GAP`: up to `LINE_SUFFIX_CHARS`
characters after the line, up to `LINE_PREFIX_CHARS` before the next): a key printed
with a prefix on each line (`git diff`'s `+`, `cat -n`, `nl`, `grep -n`, `diff`'s `> `, an
indentation, `read_file`'s own gutter in a recorded result) is one occurrence, from its
first character to its last, prefixes between included.

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
  may lie inside one occurrence (`agent_cli.secret_pieces`).
- The same for bytes (binary content, an artifact read by byte range), each form as its
  UTF-8 bytes: `redact_bytes(data)` gives the redacted bytes and how many were replaced,
  `byte_occurrences(data, start, end)` what `occurrences` gives for text, and
  `longest_byte_match` the most bytes one occurrence can cover.

The values themselves never appear in `repr`: a value that holds these is printed in
logs and tracebacks, and the secret must not be.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from agent_cli.literal_trie import trie_pattern
from agent_cli.percent_forms import PercentForm
from agent_cli.secret_encodings import (
    aligned_base32,
    aligned_base64,
    escaped_forms,
    misdecoded_forms,
    spellings,
)
from agent_cli.secret_pieces import (
    LINE_PREFIX_CHARS,
    LINE_SUFFIX_CHARS,
    FormPieces,
    gap_pattern,
    may_wrap_before,
    spans_lines,
)

REDACTED_MARK = "[REDACTED]"
MIN_SECRET_CHARS = 8
# Longer forms are matched only as they are: a line break allowed between every
# character would make the pattern very large for, say, a PEM key.
MAX_WRAPPED_CHARS = 512
_LINE_BREAK = r"(?:\r?\n)?"
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


def _longest_text(form: str) -> int:
    """The most characters an occurrence of `form` can cover: each line break of its own
    as CRLF with its gap, and (up to `MAX_WRAPPED_CHARS`) a CRLF between every two
    characters."""
    wrapped = 2 * len(form) if len(form) <= MAX_WRAPPED_CHARS else 0
    trailing = (6 if wrapped else 2) if form.endswith("%") else 0
    return len(form) + wrapped + trailing + _GAP_EXTRA * form.count("\n")


def _longest_bytes(form: str) -> int:
    """`_longest_text` for the form's UTF-8 bytes (a gap's characters count as bytes)."""
    wrapped = 2 * len(form) if len(form) <= MAX_WRAPPED_CHARS else 0
    trailing = (6 if wrapped else 2) if form.endswith("%") else 0
    return len(form.encode("utf-8")) + wrapped + trailing + _GAP_EXTRA * form.count("\n")


@dataclass(frozen=True, repr=False)
class SecretForms:
    """Every form of some secret values (module contract); empty when there are none."""

    forms: tuple[str, ...] = ()
    # Each value as a URL holds it, encoded in any way (`agent_cli.percent_forms`).
    percent_forms: tuple[PercentForm, ...] = ()
    pattern: re.Pattern[str] | None = field(init=False, compare=False, default=None)
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
        alternation = trie_pattern(_all_fragments(forms, percent_forms), spans_lines)
        anything = bool(forms or percent_forms)
        longest_percent = max(
            (form.longest_text(wrapped=_wrapped(form)) for form in percent_forms), default=0
        )
        longest_bytes = map(_longest_bytes, forms)
        set_field = object.__setattr__  # frozen: derived fields are set once, here
        set_field(self, "forms", forms)
        set_field(self, "percent_forms", percent_forms)
        set_field(self, "pattern", re.compile(alternation) if anything else None)
        set_field(self, "_starts", re.compile(f"(?=({alternation}))") if anything else None)
        set_field(self, "longest_match", max(*map(_longest_text, forms), longest_percent, 0))
        set_field(self, "longest_byte_match", max(*longest_bytes, longest_percent, 0))
        set_field(self, "_pieces", FormPieces(forms, self.longest_match))

    def __repr__(self) -> str:
        return f"SecretForms(<{len(self.forms) + len(self.percent_forms)} forms>)"

    @classmethod
    def from_values(cls, values: Iterable[str]) -> SecretForms:
        forms: set[str] = set()
        percent_forms: set[PercentForm] = set()
        for value in values:
            if len(value) >= MIN_SECRET_CHARS:
                forms |= encoded_forms(value) | material_lines(value)
                percent_forms |= url_forms(value)
        return cls(tuple(forms), tuple(sorted(percent_forms, key=lambda form: form.choices)))

    def __bool__(self) -> bool:
        return bool(self.forms or self.percent_forms)

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
            alternation = b"|".join(
                [
                    *(_byte_pattern_for(form) for form in self.forms),
                    *(form.byte_pattern(wrapped=_wrapped(form)) for form in self.percent_forms),
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
        for found in self._starts.finditer(text, max(start, 0), limit):
            if found.start() >= end:
                return
            yield found.start(1), found.end(1)

    def open_match_start(self, text: str, min_chars: int = 1) -> int | None:
        """The earliest position whose rest of `text` is a (proper or whole) start of an
        occurrence of a form holding at least `min_chars` of its characters (of a percent
        form: of the text's characters, line breaks left out); None when the end of `text`
        cannot be inside one. A line break may stand between any two characters, as in a
        wrapped form."""
        if not self:
            return None
        literal = self._pieces.open_start(text, min_chars) if self._pieces else None
        encoded = self._percent_start(text, min_chars, before=literal)
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
        return max(ends, default=None)

    def is_middle_piece(self, text: str, min_chars: int) -> bool:
        """Whether all of `text` may lie inside one occurrence of a form (it begins and
        ends anywhere in it): of a literal form with a run of `min_chars` of its
        characters on one line, of a percent form with `min_chars` characters."""
        if self._pieces is not None and self._pieces.is_middle(text, min_chars):
            return True
        inner = text.strip("\r\n").strip("\ufffd")
        if not inner or len(inner) > self.longest_match or _flat_length(inner) < min_chars:
            return False
        return any(form.holds_inside(inner) for form in self.percent_forms)


def _flat_length(text: str) -> int:
    """The characters of `text` that are no line break."""
    return len(text) - text.count("\n") - text.count("\r")


def encoded_forms(secret: str) -> set[str]:
    """Every form of `secret` of at least `MIN_SECRET_CHARS` characters: for each of its
    `spellings`, with its line breaks as LF, CRLF and CR (a key file checked out with
    Windows line endings, then JSON-quoted, base64- or hex-encoded), the value, its hex
    in both cases, its base64 at every alignment and alphabet, its base32 at every
    alignment in both alphabets (standard and `base32hex`) and its `escaped_forms`; and its
    `misdecoded_forms`."""
    forms: set[str] = set()
    for spelling in {ended for each in spellings(secret) for ended in _line_endings(each)}:
        data = spelling.encode("utf-8")
        forms |= {spelling, data.hex(), data.hex().upper(), *escaped_forms(spelling)}
        forms |= misdecoded_forms(spelling)
        for alignment in range(3):
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                forms.add(aligned_base64(data, alignment, encode))
        for alignment in range(5):
            for encode in (base64.b32encode, base64.b32hexencode):
                forms.add(aligned_base32(data, alignment, encode))
    return {form for form in forms if len(form) >= MIN_SECRET_CHARS}


def material_lines(value: str) -> set[str]:
    """The lines of a multi-line value that are key material, each a secret of its own:
    at least `MIN_MATERIAL_LINE_CHARS` characters of a base64 alphabet (standard or URL,
    `=` padding) with upper and lower case letters and digits, or of hex. A key's lines
    printed where no line break stands between them (a JSON list of its lines,
    `print(f.readlines())`, a prefixed listing inside a JSON string, a record rendered as
    JSON) are each still hidden; a config's ordinary lines (`[default]`,
    `region=us-east-1`, `clusters:`) and a PEM armour line are not material."""
    lines = _LINE_BREAKS.split(value)
    if len(lines) == 1:
        return set()
    return {line for line in lines if _is_material(line)}


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
    forms = {PercentForm.of(spelling) for spelling in spellings(secret)}
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
    wraps = len(form) <= MAX_WRAPPED_CHARS
    fragments = [
        (_LINE_BREAK if wraps and may_wrap_before(units, index) else "")
        + (gap_pattern(units, index) if unit == "\n" else re.escape(unit))
        for index, unit in enumerate(units)
    ]
    if units.endswith("%"):
        fragments[-1] += _WRAPPED_TRAILING_PERCENT if wraps else _TRAILING_PERCENT
    return fragments


def _byte_pattern_for(form: str) -> bytes:
    """`_fragments_for` over the form's UTF-8 bytes, joined as one alternative: a line
    break may come only between two characters, never inside one."""
    units = form.replace("\r\n", "\n")
    wraps = len(form) <= MAX_WRAPPED_CHARS
    pattern = b"".join(
        (_LINE_BREAK.encode("ascii") if wraps and may_wrap_before(units, index) else b"")
        + (
            gap_pattern(units, index).encode("ascii")
            if unit == "\n"
            else re.escape(unit.encode("utf-8"))
        )
        for index, unit in enumerate(units)
    )
    trailing = _WRAPPED_TRAILING_PERCENT if wraps else _TRAILING_PERCENT
    return pattern + (trailing.encode("ascii") if units.endswith("%") else b"")


NO_SECRETS = SecretForms()
