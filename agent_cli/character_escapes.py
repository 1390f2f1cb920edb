"""The texts that stand for one character where a program escapes characters one by one.
Pure: no I/O.

Why: every escaper picks its own characters and its own way. A URL percent-encodes;
JSON may write any character as `\\uXXXX` (Go's encoder and Rails' `to_json` always write
`&`, `<`, `>` so, Gson `'` and `=` too, Python every non-ASCII one) or with a backslash
(`\\"`, `\\/`); HTML writes a numeric reference (`&#38;`, WordPress's `&#038;`, `&#x26;`)
or a named one (`&amp;`); YAML's and SQL's single quotes double a `'`, CSV's double quotes
a `"`; Java's `.properties` and a shell put a backslash before `:`, `=`, `#`, `!` or a
blank. A secret's `percent_forms.PercentForm` takes each of its characters as itself or
any of these, so one matcher covers every escaper and any mix of them.

Contract: `escapes_of(character)` gives the texts other than `character` itself that
stand for it, hex digits in upper case (the matcher takes either case of every A-F in an
escape, so no escape holds an upper-case A-F that is not a hex digit):
- for any character but an ASCII letter or digit, its UTF-8 bytes as `%XX` (a space also
  `+`; a line feed, which stands for CRLF too, also `%0D%0A`);
- for any but those and `-`, `_`, `.` (which no JSON or HTML escaper writes escaped: a
  token of `[A-Za-z0-9_.-]` costs nothing more): each of those URL escapes encoded again,
  as a URL inside a URL holds it (`%2526` for `&`: an OAuth `next=` parameter holding a
  `DATABASE_URL`; a `+` as `%2B`); JSON's `\\uXXXX` (a surrogate pair above U+FFFF) and
  its short escape (`\\n`, `\\t`, ...); C's and JavaScript's `\\xNN` of each UTF-8 byte
  (`systemd-escape`) and, from U+0080 to U+00FF, of the code point (JavaScript, Python's
  `repr`); HTML's decimal reference as is and padded to three digits, its hex reference
  (`&#x`, `&#X`; as is and padded to two), and the named reference of `&<>"'/`; a
  backslash before it, for ASCII punctuation or a blank; and a quote doubled (`''`,
  `""`). A line feed also as JSON's and HTML's CRLF.
ASCII letters and digits stand for themselves alone: no encoder writes them otherwise,
and allowing it would multiply the pattern of every key. A program that escapes them on
purpose (`hexdump -e '"\\\\x" 1/1 "%02x"'`, `\\u%04x` per character) is read back
instead (`agent_cli.secret_escapes`), which costs one scan where no such escape stands.
"""

from __future__ import annotations

import string

# Left as they are by every escaper but a URL's (RFC 3986's unreserved characters).
_PLAIN = frozenset(string.ascii_letters + string.digits)
_URL_ONLY = frozenset("-_.")
_JSON_SHORT = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HTML_NAMED = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;", "/": "&sol;"}
_BACKSLASHED = frozenset(string.punctuation + " \t")
_DOUBLED = frozenset("'\"")


def escapes_of(character: str) -> tuple[str, ...]:
    """The texts other than `character` that stand for it (module contract), in a fixed
    order, each once."""
    if character in _PLAIN:
        return ()
    texts = [*_url_escapes(character)]
    if character not in _URL_ONLY:
        texts += [*map(_url_encoded, texts), *_json_escapes(character)]
        texts += [*_hex_escapes(character), *_html_references(character)]
        if character in _BACKSLASHED:
            texts.append("\\" + character)
        if character in _DOUBLED:
            texts.append(character * 2)
    return tuple(dict.fromkeys(text for text in texts if text != character))


def _url_escapes(character: str) -> list[str]:
    """`%XX` of each UTF-8 byte; a space as form encoding writes it, a line feed as CRLF."""
    encoded = "".join(f"%{byte:02X}" for byte in character.encode("utf-8"))
    if character == "\n":
        return [encoded, "%0D%0A"]
    if character == " ":
        return [encoded, "+"]
    return [encoded]


def _url_encoded(text: str) -> str:
    """A URL escape encoded again: its `%` as `%25`, a form encoding's `+` as `%2B`."""
    return "%2B" if text == "+" else text.replace("%", "%25")


def _hex_escapes(character: str) -> list[str]:
    """`\\xNN` of each UTF-8 byte (C, `systemd-escape`) and, from U+0080 to U+00FF, of the
    code point (JavaScript, Python)."""
    texts = ["".join(f"\\x{byte:02X}" for byte in character.encode("utf-8"))]
    if 0x80 <= ord(character) <= 0xFF:
        texts.append(f"\\x{ord(character):02X}")
    return texts


def _json_escapes(character: str) -> list[str]:
    """JSON's `\\uXXXX` (UTF-16 units: a surrogate pair above U+FFFF) and short escape; a
    line feed, which stands for CRLF too, also as CRLF escaped."""
    data = character.encode("utf-16-be")
    units = "".join(f"\\u{data[at]:02X}{data[at + 1]:02X}" for at in range(0, len(data), 2))
    texts = [units]
    if character in _JSON_SHORT:
        texts.append(_JSON_SHORT[character])
    if character == "\n":
        texts += ["\\r\\n", "\\u000D\\u000A"]
    return texts


def _html_references(character: str) -> list[str]:
    """HTML's numeric references to `character` (decimal as is and padded to three
    digits, hex with `x` or `X`, as is and padded to two) and its named one, if any."""
    point = ord(character)
    hex_digits = {f"{point:X}", f"{point:02X}"}
    texts = [f"&#{point};", f"&#{point:03d};"]
    texts += [f"&#{x}{digits};" for x in ("x", "X") for digits in sorted(hex_digits)]
    if character in _HTML_NAMED:
        texts.append(_HTML_NAMED[character])
    if character == "\n":
        texts.append("&#13;&#10;")
    return texts
