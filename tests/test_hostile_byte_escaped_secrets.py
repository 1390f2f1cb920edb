r"""A secret printed with its bytes or characters escaped one by one is redacted (the
twenty-ninth outside attack).

The attack: with `GITHUB_TOKEN` and `DB_PASSWORD` set, `hexdump -v -e '"\\x" 1/1
"%02x"'`, Perl's `sprintf "\\x%02X"`, Python's `\u%04x` and `&#x%x;` per character and
`od -An -tx1 | sed 's/ /\\x/g'` sent the value whole (`\x67\x68\x70\x5f...`): no escaper
writes a letter or a digit escaped, so the percent form never took one so, and the dump
reader reads numbers, not escapes. Now the escapes around a value's characters are read
back (`agent_cli.escaped_text`) and the value looked for in what they say
(`agent_cli.secret_escapes`), every escape of a byte or a character, all of a value
escaped or some of it, with or without separators; and escaped text that holds no
secret stays as it was.
"""

from __future__ import annotations

import html
import json
import re
import urllib.parse

import pytest

from agent_cli.escaped_text import Reading, escape_fragments, read_escapes, read_views
from agent_cli.secret_escapes import EscapeFinder
from agent_cli.secret_forms import REDACTED_MARK, SecretForms
from agent_cli.tools.redaction import SecretRedactor, StreamRedactor

TOKEN = "ghp_Zq8xR2mV7tK4nP9wL3sJ6hB1cF5dG0aYe8Ui"
PASSWORD = "Tr0ub4dor-horse-9"
ACCENTED = "P\u00e4ss-w\u00f6rd-\u00e9t\u00e9-2024!"


def per_byte(value: str, template: str, separator: str = "") -> str:
    return separator.join(template % byte for byte in value.encode("utf-8"))


def per_character(value: str, template: str, separator: str = "") -> str:
    return separator.join(template % ord(character) for character in value)


ESCAPED = {
    "hexdump \\xNN": lambda v: per_byte(v, "\\x%02x"),
    "perl \\xNN upper": lambda v: per_byte(v, "\\x%02X"),
    "python \\u00NN": lambda v: per_character(v, "\\u%04x"),
    "\\U000000NN": lambda v: per_character(v, "\\U%08x"),
    "&#xNN;": lambda v: per_character(v, "&#x%x;"),
    "&#xNN; upper, padded": lambda v: per_character(v, "&#X%04X;"),
    "&#NN;": lambda v: per_character(v, "&#%d;"),
    "%NN of every byte": lambda v: per_byte(v, "%%%02X"),
    "octal \\NNN": lambda v: per_byte(v, "\\%03o"),
    "perl \\x{NN}": lambda v: per_character(v, "\\x{%x}"),
    "javascript \\u{NN}": lambda v: per_character(v, "\\u{%x}"),
    "\\xNN spaced": lambda v: per_byte(v, "\\x%02x", " "),
    "\\xNN as a C list": lambda v: per_byte(v, "'\\x%02x'", ", "),
    "javascript concatenation": lambda v: per_byte(v, '"\\x%02x"', " + "),
    "od | sed rows": lambda v: "\n".join(
        per_byte(v[at : at + 16], "\\x%02x") for at in range(0, len(v), 16)
    ),
    "od | sed rows with offsets": lambda v: "\n".join(
        f"{at:07o}" + per_byte(v[at : at + 16], "\\x%02x") for at in range(0, len(v), 16)
    ),
    "half escaped": lambda v: v[: len(v) // 2] + per_byte(v[len(v) // 2 :], "\\x%02x"),
    "every third escaped": lambda v: "".join(
        f"\\x{ord(c):02x}" if index % 3 == 0 else c for index, c in enumerate(v)
    ),
    "mixed escapers": lambda v: "".join(
        ("\\x%02x", "\\u%04x", "&#x%x;", "%%%02X", "&#%d;")[index % 5] % ord(c)
        for index, c in enumerate(v)
    ),
    "a JSON string of \\xNN": lambda v: json.dumps(per_byte(v, "\\x%02x"))[1:-1],
}


@pytest.mark.parametrize("name", ESCAPED)
@pytest.mark.parametrize("value", [TOKEN, PASSWORD])
def test_a_value_with_its_bytes_or_characters_escaped_is_hidden_whole(
    name: str, value: str
) -> None:
    """All of it is one mark: a separator or quote at either end, a dump row's offset
    before it, or the rest of a dump's line after it (`secret_dumps` takes that) may
    be left, no escape of the value's."""
    forms = SecretForms.from_values([TOKEN, PASSWORD])
    escaped = ESCAPED[name](value)
    redacted = forms.redact(f"out: {escaped} ;done")
    assert redacted.startswith("out: ") and redacted.count(REDACTED_MARK) == 1, redacted
    left = redacted.replace(REDACTED_MARK, "")
    assert len(left) <= len('out: 0000000" ;done'), redacted


@pytest.mark.parametrize(
    "escaped",
    [
        per_byte(ACCENTED, "\\x%02x"),  # its UTF-8 bytes (`hexdump`, `od | sed`)
        per_character(ACCENTED, "\\u%04x"),  # its characters (JSON, Java)
        per_character(ACCENTED, "&#%d;"),
        "".join(f"\\x{ord(c):02x}" if c.isascii() else c for c in ACCENTED),
        "".join(f"\\x{ord(c):02x}" if c.isalpha() else c for c in ACCENTED),  # JS: é as \xe9
    ],
)
def test_a_non_ascii_value_is_hidden_escaped_by_byte_or_by_character(escaped: str) -> None:
    forms = SecretForms.from_values([ACCENTED])
    assert forms.redact(f"[{escaped}]\n").startswith(f"[{REDACTED_MARK}"), escaped


def test_a_long_run_of_an_escaped_token_is_hidden_as_its_plain_run_is() -> None:
    """`head -c 30 | hexdump ...`: most of a token, as `cut` leaves it (the run rule)."""
    forms = SecretForms.from_values([TOKEN])
    escaped = per_byte(TOKEN[2:32], "\\x%02x")
    assert forms.redact(escaped + "\n") == REDACTED_MARK + "\n"
    few = per_byte(TOKEN[:10], "\\x%02x")  # fewer than a run: says little, stays
    assert forms.redact(few) == few


@pytest.mark.parametrize(
    "ordinary",
    [
        'static const char banner[] = "\\x1b[1;32m\\x48\\x69\\x21\\x1b[0m\\n\\t\\101\\102";',
        '{"name": "caf\\u00e9 na\\u00efve", "quote": "\\"x\\"", "path": "C:\\\\Users\\\\dev"}',
        "GET /search?q=caf%C3%A9%20cr%C3%A8me&next=%2Fhome%2Fdev%3Fa%3Db HTTP/1.1 200",
        "<p>caf&#233; &amp; cr&#xE8;me &lt;b&gt;Tr0ub&lt;/b&gt; &#x67;&#x68;&#x70;_</p>",
        "printf '\\x67\\x68\\x70\\x5f' is ghp_, a prefix every GitHub token shares",
    ],
)
def test_escaped_text_that_holds_no_secret_stays_as_it_was(ordinary: str) -> None:
    forms = SecretForms.from_values([TOKEN, PASSWORD, ACCENTED, "Xk9#mQ2&vL7pR4zT<w>Qe"])
    assert forms.redact(ordinary) == ordinary


def test_a_streamed_escaped_token_cut_across_chunks_is_never_shown() -> None:
    redactor = SecretRedactor([TOKEN])
    stream = StreamRedactor(redactor)
    output = ("building...\n" + per_byte(TOKEN, "\\x%02x") + "\ndone\n").encode()
    shown = "".join(stream.feed(output[at : at + 7]) for at in range(0, len(output), 7))
    shown += stream.finish()
    assert shown == f"building...\n{REDACTED_MARK}\ndone\n"


def test_escapes_are_read_back_to_what_they_stand_for_and_mapped_to_where_they_stand() -> None:
    text = "a\\x67%68&#x70;&#95;\\u005a\\U00000071\\x{38}\\170\\&&amp;b"
    read = read_escapes(text, 0, len(text), Reading(deep=True, joined=False))
    assert read.view == "aghp_Zq8x&&b"
    assert read.span_of(1, 3) == (1, text.index("&#x70;"))
    assert read.span_of(9, 11) == (text.index("\\&"), text.index("b"))
    spaced = "\\x67 \\x68, \\x70\nb"
    joined = read_escapes(spaced, 0, len(spaced), Reading(deep=True, joined=True))
    assert joined.view == "ghp\nb"  # a separator between escapes left out, not beside text


@pytest.mark.parametrize(
    "character", ["g", "Z", "0", "_", "-", "&", "'", "\\", "\u00e9", "\u20ac", "\U0001f600"]
)
def test_the_escapes_looked_for_first_are_every_escape_read_as_the_character(
    character: str,
) -> None:
    """The finder reads only around escapes `escape_fragments` finds: every escape
    `ESCAPE` reads as a character must be among them, or a value written so would never
    be read."""
    finder = EscapeFinder([character * 8])
    point = ord(character)
    texts = [
        f"\\u{point:04x}" if point <= 0xFFFF else json.dumps(character)[1:-1],
        f"\\U{point:08X}",
        f"\\x{{{point:x}}}",
        f"\\u{{{point:06X}}}",
        f"&#x{point:x};",
        f"&#X{point:08X};",
        f"&#{point};",
        f"&#{point:08d};",
    ]
    if point <= 0xFF:
        texts += [
            f"\\x{point:02x}",
            f"\\x{point:02X}",
            f"%{point:02x}",
            f"\\{point:o}",
            f"\\{point:03o}",
        ]
    for text in texts:
        read = read_escapes(text, 0, len(text), Reading(deep=True, joined=False))
        assert read.view == character, text
        for written in (text * 8, text.replace("\\", "\\\\") * 8):  # a JSON string's too
            assert list(finder.spans(written)) == [(0, len(written))], written
    assert escape_fragments(character)


def rows(value: str, width: int) -> str:
    """`od -An -tx1 -v | sed 's/ /\\x/g'` of `value`: rows of `width` byte escapes."""
    data = value.encode("utf-8")
    return "".join(
        "".join(f"\\x{byte:02x}" for byte in data[at : at + width]) + "\n"
        for at in range(0, len(data), width)
    )


def wrapped_list(value: str, template: str, joiner: str, line_break: str) -> str:
    """A C array or JavaScript concatenation of `value`'s bytes, eight a line."""
    data = value.encode("utf-8")
    lines = [
        joiner.join(template % byte for byte in data[at : at + 8]) for at in range(0, len(data), 8)
    ]
    return line_break.join(lines)


# The review of the twenty-ninth attack's fix: escapes read back only one level deep,
# rows joined only by a real LF with blanks around it.
REVIEWED = {
    "od | sed rows in a JSON string (jq -Rs)": lambda v: json.dumps({"stdout": rows(v, 16)}),
    "od | sed rows of 8 in a JSON string": lambda v: json.dumps({"stdout": rows(v, 8)}),
    "one escape a line, in a JSON string": lambda v: json.dumps(per_byte(v, "\\x%02x\n"))[1:-1],
    "rows joined by CRLF": lambda v: rows(v, 16).replace("\n", "\r\n"),
    "rows joined by CRLF, in a JSON string": lambda v: json.dumps(
        rows(v, 16).replace("\n", "\r\n")
    ),
    "\\xNN in JSON of JSON (jq -Rs twice)": lambda v: json.dumps(
        {"body": json.dumps({"stdout": per_byte(v, "\\x%02x")})}
    ),
    "\\u per character in JSON of JSON": lambda v: json.dumps(
        {"body": json.dumps({"s": per_character(v, "\\u%04x")})}
    ),
    "od | sed rows in JSON of JSON": lambda v: json.dumps(json.dumps(rows(v, 16))),
    "\\xNN in four levels of JSON": lambda v: per_byte(v, "\\" * 16 + "x%02x"),
    "URL of a URL, %25NN": lambda v: per_byte(v, "%%25%02X"),
    "URL of a URL of a URL, %2525NN": lambda v: per_byte(v, "%%2525%02X"),
    "HTML of HTML, &amp;#xNN;": lambda v: per_character(v, "&amp;#x%x;"),
    "Go's JSON of &#NN;, \\u0026#NN;": lambda v: per_character(v, "\\u0026#%d;"),
    "a backslash written \\u005c, \\u005cxNN": lambda v: per_byte(v, "\\u005cx%02x"),
    "a C list wrapped over lines": lambda v: wrapped_list(v, "'\\x%02x'", ", ", ",\n    "),
    "JavaScript concatenation over lines": lambda v: wrapped_list(
        v, "\\x%02x", "", '" +\n  "'
    ).join('""'),
}
_READ_BACK = re.compile(r"\\+(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4}))")


def read_back(text: str) -> str:
    """`text` read back as its reader would, as deep as it is written: URL and HTML
    escapes undone again and again, backslash escapes at any depth; what is neither a
    letter, a digit nor `_-` left out."""
    for _ in range(4):
        text = html.unescape(urllib.parse.unquote(text))
        text = _READ_BACK.sub(lambda found: chr(int(found[1] or found[2], 16)), text)
    return re.sub(r"\\+[nr]|[^0-9A-Za-z_-]", "", text)


@pytest.mark.parametrize("name", REVIEWED)
@pytest.mark.parametrize("value", [TOKEN, PASSWORD])
def test_a_value_escaped_again_or_in_wrapped_rows_is_hidden(name: str, value: str) -> None:
    written = REVIEWED[name](value)
    assert value in read_back(written)  # the case says what it should
    redacted = SecretRedactor([TOKEN, PASSWORD]).redact(f"out: {written} ;done").text
    assert REDACTED_MARK in redacted, redacted
    assert not any(value[at : at + 8] in read_back(redacted) for at in range(len(value) - 8)), (
        redacted
    )


@pytest.mark.parametrize(
    "ordinary",
    [
        json.dumps({"body": json.dumps({"msg": "caf\u00e9\n\tdone", "path": "C:\\Users\\dev"})}),
        "GET /r?next=%252Fhome%252Fdev%253Fa%253Db&q=caf%25C3%25A9 HTTP/1.1 200",
        "<p>caf&amp;#233; &amp;amp; cr&amp;#xE8;me \\u0026lt;b\\u0026gt;</p>",
        "static const char s[] = {'\\x48', '\\x69', '\\x21',\n    '\\x1b', '\\x5b', '\\x30'};",
        '"\\\\x1b[1;32mok\\\\x1b[0m\\r\\n\\\\x48\\\\x69"',
    ],
)
def test_text_escaped_again_that_holds_no_secret_stays_as_it_was(ordinary: str) -> None:
    forms = SecretForms.from_values([TOKEN, PASSWORD, ACCENTED, "Xk9#mQ2&vL7pR4zT<w>Qe"])
    assert forms.redact(ordinary) == ordinary


def test_escapes_escaped_again_are_read_deep_and_mapped_to_where_they_stand() -> None:
    text = "a\\\\\\\\x67%2568&amp;#x70;\\u0026#95;\\u005cx5a b"
    read = read_escapes(text, 0, len(text), Reading(deep=True, joined=False))
    assert read.view == "aghp_Z b"
    assert read.span_of(1, 2) == (1, text.index("%25"))
    assert read.span_of(4, 6) == (text.index("\\u0026"), text.index(" b"))
    shallow = read_escapes(text, 0, len(text), Reading(deep=False, joined=False))
    assert shallow.view.startswith("a\\\\x67%68&#x70;&#95;")  # one level read
    rows_text = '\\\\x67\\\\x68\\n00000010 \\\\x70",\r\n  "\\\\x5f'
    joined = read_escapes(rows_text, 0, len(rows_text), Reading(deep=True, joined=True))
    assert joined.view == "ghp_"


@pytest.mark.parametrize("name", [*ESCAPED, *REVIEWED])
def test_each_reading_of_a_stretch_reads_as_its_mapped_reading_does(name: str) -> None:
    """`read_views` (cheap, no map) and `read_escapes` (mapped, read where a value is
    found) must read alike, or a value one finds would be missed by the other."""
    written = {**ESCAPED, **REVIEWED}[name](TOKEN)
    views = list(read_views(written, 0, len(written), least=1))
    assert views
    for reading, view in views:
        assert read_escapes(written, 0, len(written), reading).view == view, reading
