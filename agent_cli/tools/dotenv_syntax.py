"""What a dotenv file assigns, read as every common dotenv reader would. Pure: no I/O.

The values are read to be redacted, so where readers differ this takes each reading:
a value one reader takes and another does not is still a credential on disk. The
readers matched are python-dotenv, Node's `dotenv` and a shell sourcing `.envrc`
(direnv); `tests/test_dotenv_syntax.py` checks the first against the library itself.

Contract:
- `decode_dotenv(data)`: the text of a dotenv file's bytes. A byte-order mark names the
  encoding (UTF-8, UTF-16 or UTF-32, either byte order: Windows Notepad and PowerShell
  5's `>` write them); without one it is UTF-8, NUL bytes left out first (UTF-16 or
  UTF-32 of ASCII text written without a mark), a byte that is not UTF-8 read as U+FFFD.
  Never fails.
- `parse_dotenv(text)`: every `Assignment` the text makes, in order; a name assigned
  twice, twice (the first value is a credential on disk as much as the last). A line is
  `NAME=value`, `NAME = value`, `export NAME=value` (`export A=1 B=2` assigns both, as
  bash does), `'NAME'=value` or Node's colon form `NAME: value`; other lines (`#` comments) assign nothing. A value is unquoted (to
  the end of its line, less a ` #` comment), or in single quotes, double quotes or
  backticks, each of which may span lines and hold a backslash-escaped quote
  (`"Xk9\\"mQ2"`). Its readings, each once, empty ones left out: python-dotenv's (in
  double quotes `\\\\ \\' \\" \\n \\t ...` decoded, in single quotes `\\\\ \\'`), the text
  as written between the quotes, Node's (in double quotes only `\\n` and `\\r` decoded;
  unquoted, cut at the first `#`; a line such as `"abc"def` as it is) and bash's
  (`tools.shell_word`: `'a'"'"'b'` is `a'b`). A reading that is how JSON or a shell's
  double quotes write another is left out: the redactor finds those forms anyway
  (`secret_encodings.escaped_forms`), and every value costs it time at start.
  Where readers end a value at different places, the parse goes on after each. A quote
  never closed, or closed more than `MAX_QUOTED_CHARS` later (a stray quote), is read to
  the end of its line, without the quote and with it (as Node reads it), or, when it
  opens a private key block, as that block to its END line. A text that is a JSON
  object or array (`.env.json`, comments and all) assigns, after its lines'
  assignments, each string and number it holds at any depth, by the name
  `tools.dotenv_json.json_pairs` gives it.
"""

from __future__ import annotations

import codecs
import itertools
import json
import re
from collections.abc import Iterator
from typing import NamedTuple

from agent_cli.tools.credentials import PRIVATE_KEY_BLOCK
from agent_cli.tools.dotenv_interpolation import interpolated_readings
from agent_cli.tools.dotenv_json import json_pairs
from agent_cli.tools.shell_source import read_sourced_assignments
from agent_cli.tools.shell_word import read_shell_word

# A quoted value longer than this is taken as a stray quote, not a value: a credential
# is far shorter (an 8192-bit RSA key is 6.4 KB), and every secret costs the redactor
# time at start in proportion to its length.
MAX_QUOTED_CHARS = 32_768
QUOTES = "'\"`"

_BYTE_ORDER_MARKS = (  # UTF-32's before UTF-16's: FF FE 00 00 starts with FF FE
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_BLANK = r"[^\S\r\n]"
_ASSIGNMENT = re.compile(
    rf"{_BLANK}*(?P<export>export{_BLANK}+)?"
    rf"(?:'(?P<quoted>[^']+)'|(?P<name>[^=#\s]+)){_BLANK}*=(?P<blanks>{_BLANK}*)"
)
_COLON_ASSIGNMENT = re.compile(
    rf"{_BLANK}*(?:export{_BLANK}+)?(?P<name>[\w.-]+){_BLANK}*:(?P<blanks>{_BLANK}+)"
)
_LINE_END = re.compile(r"\r\n|\r|\n")
# A further `NAME=` on an `export` line after a blank: bash's `export A=1 B=2` sets both.
_FURTHER_EXPORT = re.compile(rf"{_BLANK}+(?=[A-Za-z_]\w*=)")
_ESCAPE_AWARE_BODY = {  # a backslash escapes any character, a quote or itself
    quote: re.compile(rf"(?:\\.|[^{quote}\\])*{quote}", re.DOTALL) for quote in QUOTES
}
_DOTENV_DOUBLE_ESCAPES = re.compile(r"\\[\\'\"abfnrtv]")
_DOTENV_SINGLE_ESCAPES = re.compile(r"\\[\\']")
_SHELL_DOUBLE_QUOTED = re.compile(r'[\\"$`]')
_PLAIN_VALUE = re.compile(r"[^\s'\"`\\$#]*")  # nothing a reader takes apart
_COMMENT = re.compile(r"\s+#.*", re.DOTALL)


class Assignment(NamedTuple):
    """A name a dotenv file assigns, and each distinct reading of its value (never
    empty): first the one most readers take, the one a notice speaks of."""

    name: str
    readings: tuple[str, ...]

    @property
    def value(self) -> str:
        return self.readings[0]


def decode_dotenv(data: bytes) -> str:
    """The text of a dotenv file's bytes (module contract)."""
    for mark, codec in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            return data[len(mark) :].decode(codec, errors="replace").removeprefix("\ufeff")
    return data.replace(b"\x00", b"").decode("utf-8", errors="replace")


def parse_dotenv(text: str) -> Iterator[Assignment]:
    """Every assignment the text makes, in order, with every reading (module contract):
    each line's, python-dotenv's interpolation of them, and what bash assigns sourcing
    the text, the k-th value bash gives a name beside the k-th line that assigns it, or
    after them all as an assignment of its own (`read`, `printf -v`, `declare -x`); and
    of a text that is JSON (`.env.json`), each name and value it holds, after them all
    (`tools.dotenv_json`)."""
    lines = list(_line_assignments(text))
    more = [list(found) for found in interpolated_readings(lines)]
    where: dict[str, list[int]] = {}
    for index, assignment in enumerate(lines):
        where.setdefault(assignment.name, []).append(index)
    given: dict[str, int] = {}
    own: dict[tuple[str, str], None] = {}
    for name, value in read_sourced_assignments(text):
        count = given[name] = given.get(name, -1) + 1
        if count < len(where.get(name, ())):
            more[where[name][count]].append(value)
        else:
            own[(name, value)] = None
    for assignment, added in zip(lines, more, strict=True):
        yield Assignment(assignment.name, tuple(_distinct([*assignment.readings, *added])))
    yield from (Assignment(name, (value,)) for name, value in own)
    yield from (Assignment(name, (value,)) for name, value in json_pairs(text))


def _line_assignments(text: str) -> Iterator[Assignment]:
    """Every assignment the lines of the text make, in order. Every line is read
    as one that may start an assignment, a line inside another's quoted value too:
    readers disagree on where a value ends (a shell ends `'a\\'` at its second quote,
    python-dotenv at the next; python-dotenv drops a line it cannot parse, Node reads
    it), and whatever line one of them reads an assignment from is read so here."""
    starts = itertools.chain([0], (end.end() for end in _LINE_END.finditer(text)))
    for position in starts:
        for form in (_ASSIGNMENT, _COLON_ASSIGNMENT):  # `NAME: =` is either
            found = form.match(text, position)
            if found is None:
                continue
            # the line's end after the name: a quoted name may span lines
            readings = _value_readings(text, found, _end_of_line(text, found.end()))
            if readings:
                yield Assignment(found.groupdict().get("quoted") or found["name"], tuple(readings))
            if form is _ASSIGNMENT and found["export"]:
                yield from _further_exports(text, found.end())


def _further_exports(text: str, start: int) -> Iterator[Assignment]:
    """The assignments after the first on an `export` line (`export A=1 B=2`), read from
    each blank that a `NAME=` follows (inside a quoted value too: a reading more)."""
    line_end = _end_of_line(text, start)
    for blank in _FURTHER_EXPORT.finditer(text, start, line_end):
        found = _ASSIGNMENT.match(text, blank.end())
        if found is None:
            continue
        readings = _value_readings(text, found, line_end)
        if readings:
            yield Assignment(found["name"], tuple(readings))


def _value_readings(text: str, found: re.Match[str], line_end: int) -> list[str]:
    """The non-empty readings of the value after `found` (module contract)."""
    start = found.end()
    value = text[start:line_end].rstrip()
    if _PLAIN_VALUE.fullmatch(value):
        return [value] if value else []  # every reader reads it as it is
    first = text[start : start + 1]
    if found["blanks"] and first == "#":
        return []  # `KEY= # a note`: no value (`KEY=#x` is `#x`)
    if first and first in QUOTES:
        readings = _quoted_readings(text, start, first, line_end)
    else:
        readings = _unquoted_readings(text[start:line_end])
    shell = read_shell_word(text, start)
    if shell is not None:
        readings.append(shell)
    readings = _distinct(readings)
    return _beside_forms(*readings) if len(readings) > 1 else readings


def _unquoted_readings(value: str) -> list[str]:
    """python-dotenv's (up to a ` #` comment) and Node's (up to any `#`)."""
    if "#" not in value:
        return [value.strip()]
    return [_COMMENT.sub("", value).strip(), value.partition("#")[0].strip()]


def _quoted_readings(text: str, start: int, quote: str, line_end: int) -> list[str]:
    """The readings of a quoted value (module contract): to the quote an escaped quote
    does not end, and, where that leaves no clean line end or there is none, to the next
    quote (Node's regex: `` `abc\\` ``); python-dotenv takes a backtick as part of an
    unquoted value, and Node a line such as `"abc"def` as it is."""
    body_start = start + 1
    limit = min(len(text), body_start + MAX_QUOTED_CHARS + 1)
    readings = _unquoted_readings(text[start:line_end]) if quote == "`" else []
    closed = _ESCAPE_AWARE_BODY[quote].match(text, body_start, limit)
    if closed is not None:
        close = closed.end() - 1
        readings[:0] = _decoded(quote, text[body_start:close])
        trailing = text[close + 1 : _end_of_line(text, close)].strip()
        if not trailing or trailing.startswith("#"):
            return readings
        readings += _unquoted_readings(text[start : _end_of_line(text, close)])
    plain = text.find(quote, body_start, limit)
    if plain != -1 and (closed is None or plain != closed.end() - 1):
        readings.insert(0 if closed is None else len(readings), text[body_start:plain])
    elif closed is None:
        return _unclosed_readings(text, start, line_end)
    return readings


def _unclosed_readings(text: str, start: int, line_end: int) -> list[str]:
    """A quote never closed: the private key block it opens, else the rest of its line
    without the quote and, as Node and python-dotenv read it, with it."""
    block = PRIVATE_KEY_BLOCK.match(text, start + 1, start + 1 + MAX_QUOTED_CHARS)
    if block is not None:
        return [block.group().rstrip(QUOTES + " \t\r\n")]
    return _unquoted_readings(text[start + 1 : line_end]) + _unquoted_readings(text[start:line_end])


def _decoded(quote: str, body: str) -> list[str]:
    """The readings of a quoted value's text (module contract), python-dotenv's first."""
    if "\\" not in body:
        return [body]
    if quote == '"':
        decoded = _DOTENV_DOUBLE_ESCAPES.sub(_decode_escape, body)
        return [decoded, body, body.replace("\\n", "\n").replace("\\r", "\r")]
    if quote == "'":
        return [_DOTENV_SINGLE_ESCAPES.sub(_decode_escape, body), body]
    return [body]


def _beside_forms(first: str, *others: str) -> list[str]:
    """`first`, and each of `others` that is not how JSON or a shell's double quotes
    write it (the redactor finds those forms of `first` anyway)."""
    forms = {
        first,
        json.dumps(first)[1:-1],
        json.dumps(first, ensure_ascii=False)[1:-1],
        _SHELL_DOUBLE_QUOTED.sub(r"\\\g<0>", first),
    }
    return [first, *(other for other in others if other not in forms)]


def _decode_escape(found: re.Match[str]) -> str:
    return codecs.decode(found.group(), "unicode-escape")


def _distinct(readings: list[str]) -> list[str]:
    """The non-empty readings, each once, in order."""
    return [reading for reading in dict.fromkeys(readings) if reading]


def _end_of_line(text: str, position: int) -> int:
    found = _LINE_END.search(text, position)
    return len(text) if found is None else found.start()
