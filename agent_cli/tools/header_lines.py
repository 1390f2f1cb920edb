"""HTTP header lines written inside a longer value, and the credentials they hold. Pure.

A header reaches a program through a variable of any name as often as through a flag
(mcp-remote-style wrappers take `AUTH_HEADER = "X-API-Key: <key>"`; a command in a
variable says `curl -H 'Cookie: session=<id>'`). `tools.credentials` decides which
header names carry a credential; this module finds the lines and tells a credential
from a setting by its shape, since a header found inside a longer value is a guess,
where a header configured as one (an MCP server's `headers`) is declared.

Contract:
- `header_lines_in(value)` yields `(name, header_value)` for each header written in
  `value` whose value holds a credential's shape. Written as: `Name: value` on any of
  its lines (with `\\n` or `\\r\\n` written literally read as line breaks too: a header
  list kept on one line); inside quotes (`curl -H "Cookie: session=\\"X\\""`: the
  line ends at the closing quote, its backslash escapes undone); with a quoted name and
  value (a dict or object literal, `{'X-API-Key': 'X'}`; a list or object after a
  quoted name is none, `{"tokens": ["primary-500"]}`). A value in quotes is taken
  without them, and a cookie's value may be quoted (`sid="X"`, RFC 6265).
  The shape: one word, or a scheme and a word (`Bearer xyz`), whose word
  `has_key_shape`; of a cookie header (`COOKIE_HEADERS`), `name=value` pairs of which
  `credential_cookies` takes one (of `Set-Cookie`, the first pair; attributes follow).
  So prose (`Token: see the wiki`), a setting (`X-RateLimit-Key: ip-address`), an id
  (`Jira-Key: PROJ-1234`), a placeholder (`X-API-Key: YOUR_API_KEY`, `<key>`,
  `${API_KEY}`) and a cookie of preferences (`Cookie: tz=Europe/Berlin`) are none. A
  URL's `https:` is a name too; the caller asks whether a name carries a credential.
- `has_key_shape(word)`: a word that may be a key: no placeholder (`<...>`, `$NAME`,
  `${...}`, `{{...}}`, `%NAME%`, an upper-case name with `_`, a run of one character,
  a word with `YOUR`, `EXAMPLE`, `PLACEHOLDER`, `CHANGEME`, `REPLACE` in it), no path
  (`/`, `./`, `~/`, `C:\\` at its start), and at least `MIN_KEY_CHARS` characters with
  a letter and a digit, or at least `MIN_LETTER_KEY_CHARS` mixing lower and upper case.
- `credential_cookies(header_name, header_value)`: the values of the cookies that are
  credentials: those whose name is a session's or an authentication's (`SESSION_COOKIE`:
  `session`, `sid`, `PHPSESSID`, `auth`, `token`, `jwt`, `remember_me`, `csrf`...) and
  those whose value `has_key_shape`; the rest (`tz=`, `consent=`, `theme=`) are
  preferences. Of `Set-Cookie`, only its first pair is a cookie.
- `header_list_pairs(value)`: the `name=value` pairs of an OpenTelemetry-style header
  list (`x-honeycomb-team=X,x-honeycomb-dataset=web`), values percent-decoded;
  `names_a_header_list(name)`: a variable name whose last part is `HEADERS`
  (`OTEL_EXPORTER_OTLP_HEADERS`), whose value is read so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

COOKIE_HEADERS = frozenset({"cookie", "set-cookie"})
MIN_KEY_CHARS = 12
MIN_LETTER_KEY_CHARS = 20
SESSION_COOKIE = re.compile(
    r"(?i)sess|sid|auth|token|jwt|secret|remember|csrf|xsrf|credential|login|passw|key"
)
_NAME_COLON = re.compile(r"(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9_-]*)([\"']?)[ \t]*:[ \t]*")
# a value written unquoted: to the line's end or a quote, but a cookie's `="..."` whole
_UNQUOTED_VALUE = re.compile(r"(?:=\"[^\"\r\n]*\"|='[^'\r\n]*'|[^\r\n\"'])+")
_QUOTED = {
    '"': re.compile(r'"((?:[^"\\\r\n]|\\.)*)"'),
    "'": re.compile(r"'((?:[^'\\\r\n]|\\.)*)'"),
}
_AFTER_QUOTED_NAME = re.compile(r"[^,}\r\n]+")
_COOKIE = re.compile(r"\s*[^\s=;]+=(?:\"[^\"]*\"|[^\s;]*)\s*")
_PLACEHOLDER = re.compile(
    r"<.*>|\$.*|\{\{.*\}\}|%[A-Za-z_]+%|[A-Z0-9]*_[A-Z0-9_]*|(.)\1*"
    r"|(?i:.*(?:your|example|placeholder|changeme|replace).*)",
    re.DOTALL,
)
_PATH = re.compile(r"(?:/|\./|\.\./|~/|[A-Za-z]:\\)")
_HEADER_LIST_NAME = re.compile(r"(?i)(?:^|[_.-])HEADERS$")
_HEADER_LIST_PAIR = re.compile(r"\s*([A-Za-z][A-Za-z0-9_.-]*)\s*=\s*([^,]*?)\s*(?:,|$)")


def header_lines_in(value: str) -> Iterator[tuple[str, str]]:
    """The headers written in `value` that hold a credential's shape (module
    contract), as `(name, header_value)`."""
    if ":" not in value:
        return
    texts = [value]
    if "\\n" in value:
        texts.append(value.replace("\\r\\n", "\n").replace("\\n", "\n"))
    for text in texts:
        for name, header in _written_headers(text):
            if _holds_a_credential(name.lower(), header):
                yield name, header


def _written_headers(text: str) -> Iterator[tuple[str, str]]:
    """Every `(name, value)` written as a header in `text`, by the contract's forms. A
    name inside a value read unquoted is part of that value, as in a line `A: b: c`;
    one inside a quoted value is read (`{"headers": "X-API-Key: X"}`). A quote after a
    backslash opens nothing, so each quoted scan ends where the next may start: the
    work stays linear in the text's length."""
    inside_until = 0
    for found in _NAME_COLON.finditer(text):
        if found.start() < inside_until:
            continue
        name, name_quote = found.group(1), found.group(2)
        start = found.start()
        before = text[start - 1] if start else ""
        if name_quote and before != name_quote:
            continue
        escaped = start >= 2 and text[start - 2] == "\\"
        opened = not name_quote and before in _QUOTED and not escaped
        line = _quoted_line_value(text, start - 1, found.end()) if opened else None
        if line is not None:
            header = line
        else:
            header, inside_until = _value_at(text, found.end(), bool(name_quote))
        yield name, header.strip()


def _value_at(text: str, start: int, after_quoted_name: bool) -> tuple[str, int]:
    """The value written at `start`: quoted (its escapes undone), or unquoted to the
    line's end (after a quoted name, to `,` or `}` too); and where an unquoted one ends
    (`start` for a quoted one, whose inside is read too). After a quoted name, a `[` or
    `{` opens a list or object (`{"tokens": ["primary-500"]}`), no header's value: none,
    and its inside is read on."""
    quoted = _quoted_value(text, start)
    if quoted is not None:
        return quoted, start
    if after_quoted_name and text.startswith(("[", "{"), start):
        return "", start
    pattern = _AFTER_QUOTED_NAME if after_quoted_name else _UNQUOTED_VALUE
    found = pattern.match(text, start)
    return (found.group(), found.end()) if found else ("", start)


def _quoted_line_value(text: str, opening: int, start: int) -> str | None:
    """Of a header line that a quote at `opening` begins, the value from `start` to the
    closing quote, unescaped; None when it is not closed on its line."""
    found = _QUOTED[text[opening]].match(text, opening)
    if found is None:
        return None
    value = _unescaped(text[start : found.end() - 1]).strip()
    quoted = _quoted_value(value, 0)
    return value if quoted is None else quoted


def _quoted_value(text: str, start: int) -> str | None:
    """The string quoted at `start`, its escapes undone; None if none is quoted there."""
    pattern = _QUOTED.get(text[start : start + 1])
    found = pattern.match(text, start) if pattern else None
    return None if found is None else _unescaped(found.group(1))


def _unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _holds_a_credential(name: str, header: str) -> bool:
    if name in COOKIE_HEADERS:
        pairs = header.split(";")
        cookies = pairs[:1] if name == "set-cookie" else pairs
        if not all(_COOKIE.fullmatch(pair) for pair in cookies if pair.strip()):
            return False
        return bool(credential_cookies(name, header))
    words = header.split()
    if len(words) == 2 and not words[0].isalpha():
        return False
    return len(words) in (1, 2) and has_key_shape(words[-1])


def has_key_shape(word: str) -> bool:
    """A word that may be a key, not a setting, an id or a placeholder (contract)."""
    word = word.strip().strip("\"'")
    if _PLACEHOLDER.fullmatch(word) or _PATH.match(word):
        return False
    has_letter = any(c.isalpha() for c in word)
    if len(word) >= MIN_KEY_CHARS and has_letter and any(c.isdigit() for c in word):
        return True
    mixed_case = any(c.islower() for c in word) and any(c.isupper() for c in word)
    return len(word) >= MIN_LETTER_KEY_CHARS and mixed_case


def credential_cookies(header_name: str, header_value: str) -> list[str]:
    """The values of the cookies of a cookie header that are credentials (contract)."""
    pairs = header_value.split(";")
    found: list[str] = []
    for pair in pairs[:1] if header_name.lower() == "set-cookie" else pairs:
        name, _, value = pair.partition("=")
        value = value.strip().strip('"')
        if not value or _PLACEHOLDER.fullmatch(value):
            continue
        if SESSION_COOKIE.search(name) or has_key_shape(value):
            found.append(value)
    return found


def names_a_header_list(name: str) -> bool:
    """A variable name that says its value is a list of headers (module contract)."""
    return bool(_HEADER_LIST_NAME.search(name))


def header_list_pairs(value: str) -> Iterator[tuple[str, str]]:
    """The `name=value` pairs of an OpenTelemetry-style header list (module contract)."""
    if "=" not in value or "\n" in value:
        return
    for found in _HEADER_LIST_PAIR.finditer(value):
        if found.group(2):
            yield found.group(1), unquote(found.group(2))
