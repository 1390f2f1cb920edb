"""Reading dotenv files as every common reader would, to redact what they hold.

The attack (the 21st tester): a private key in single quotes over several lines was
taken as its BEGIN line alone; `DB_PASSWORD="Xk9\\"mQ2vLp7wRtZ4"` as `Xk9\\`; only the
last of two values of one name was a secret; a `.env` saved with a byte-order mark lost
its first variable, one saved as UTF-16 all of them; `SESSION_SECRET: value` (Node's
colon form) none. Each of those values went to the model whole.

Here: every form, a property that any value a reasonable writer puts in a dotenv file
is read back (and so redacted, file and value alike), and python-dotenv itself as an
oracle: whatever it reads from any text, this reads too.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import string

import pytest
from dotenv.parser import parse_stream
from hostile_support import fuzz_settings, secret_like
from hypothesis import given
from hypothesis import strategies as st

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.dotenv_syntax import (
    MAX_QUOTED_CHARS,
    Assignment,
    decode_dotenv,
    parse_dotenv,
)
from agent_cli.tools.redaction import SecretRedactor
from agent_cli.tools.shell_word import read_shell_word
from agent_cli.tools.workspace_secrets import DotenvFile, WorkspaceDotenv, find_dotenv_secrets

KEY_BODY = "MIIEowIBAAKCAQEAsingleQuotedLine1abcdefghijklmnop\nMIIEsecondLineOfKeyMaterialqrstuvwxyz0123456789"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----"


def read(text: str) -> list[tuple[str, str]]:
    """The assignments of `text` as (name, value), the value as most readers take it."""
    return [(each.name, each.value) for each in parse_dotenv(text)]


def readings(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(each.name, each.readings) for each in parse_dotenv(text)]


def is_read_back(name: str, value: str, assignments: list[Assignment]) -> bool:
    """`value` is a reading of `name`, or how JSON or a shell's double quotes write one
    (a form the redactor finds from that reading: `dotenv_syntax` leaves it out)."""
    for each in assignments:
        if each.name != name:
            continue
        for reading in each.readings:
            forms = {
                reading,
                json.dumps(reading)[1:-1],
                json.dumps(reading, ensure_ascii=False)[1:-1],
                re.sub(r'[\\"$`]', r"\\\g<0>", reading),
            }
            if value in forms:
                return True
    return False


# --- every form ------------------------------------------------------------------------


def test_a_private_key_in_single_quotes_over_several_lines_is_one_value() -> None:
    assert read(f"PRIVATE_KEY='{PEM}'\nNEXT=1\n") == [("PRIVATE_KEY", PEM), ("NEXT", "1")]


def test_a_private_key_in_double_quotes_or_backticks_over_several_lines_is_one_value() -> None:
    assert read(f'A="{PEM}"\nB=`{PEM}`\n') == [("A", PEM), ("B", PEM)]


def test_a_private_key_on_one_line_with_its_breaks_written_as_escapes() -> None:
    one_line = PEM.replace("\n", "\\n")
    assert read(f'A="{one_line}"\n') == [("A", PEM)]
    assert readings(f"B='{one_line}'\n") == [("B", (one_line,))]  # single quotes: as written


def test_an_escaped_quote_does_not_end_a_quoted_value() -> None:
    assert read('DB_PASSWORD="Xk9\\"mQ2vLp7wRtZ4"\n') == [("DB_PASSWORD", 'Xk9"mQ2vLp7wRtZ4')]
    assert read("A='it\\'s-a-long-one'\nB=`tick\\`ed`\n") == [
        ("A", "it's-a-long-one"),
        ("B", "tick\\`ed"),
    ]


def test_escapes_are_read_as_python_dotenv_node_and_a_shell_read_them() -> None:
    # python-dotenv decodes \' in double quotes; Node and bash keep the backslash
    assert readings('Q="a\\\'bcdefgh"\n') == [("Q", ("a'bcdefgh", "a\\'bcdefgh"))]
    # \\n: python-dotenv and bash read a backslash and n, Node a backslash and a break
    assert readings('P="x\\\\ny"\n') == [("P", ("x\\ny", "x\\\ny"))]
    # a shell's quoting (shlex.quote, printf %q, $'...') is read as bash reads it
    assert readings("export X='a'\"'\"'b12345678'\n")[0][1][-1] == "a'b12345678"
    assert readings("Y=$'line1\\nline2'\n") == [("Y", ("$'line1\\nline2'", "line1\nline2"))]
    assert readings("Z=a\\ b\\#c\n") == [("Z", ("a\\ b\\#c", "a\\ b\\", "a b#c"))]


def test_single_quotes_end_where_a_shell_ends_them_too() -> None:
    """python-dotenv reads `'abc\\'` on to the next quote; bash stops at the second
    quote, and then reads the next line, which the parse reads as well."""
    text = "A='abc\\'\nB=shell-reads-this\nC='end'\n"
    assert [name for name, _ in read(text)] == ["A", "B", "C"]
    assert "abc\\" in readings(text)[0][1]


def test_every_value_a_name_is_given_is_read_in_order() -> None:
    text = "DB_PASSWORD=Dup0First1Secret2\nOTHER=x\nDB_PASSWORD=Dup9Second8Secret7\n"
    assert read(text) == [
        ("DB_PASSWORD", "Dup0First1Secret2"),
        ("OTHER", "x"),
        ("DB_PASSWORD", "Dup9Second8Secret7"),
    ]


def test_export_blanks_quoted_names_and_the_colon_form() -> None:
    text = (
        "export A=1\n"
        "  export\tB = two\n"
        "'C'=three\n"
        "SESSION_SECRET: Yaml0Style1Secret2\n"
        'QUOTED_SECRET: "in quotes"\n'
        "https://example.com/not:an-assignment\n"
        "D.E-F=dotted\n"
    )
    assert read(text) == [
        ("A", "1"),
        ("B", "two"),
        ("C", "three"),
        ("SESSION_SECRET", "Yaml0Style1Secret2"),
        ("QUOTED_SECRET", "in quotes"),
        ("D.E-F", "dotted"),
    ]


def test_an_export_of_several_names_assigns_each_as_bash_does() -> None:
    """`export DB_USER=app DB_PASSWORD=…` in an `.envrc` sets both; only the first was
    read, so the password was no secret."""
    text = "export DB_USER=app DB_PASSWORD=Hunter22Secret9\nexporter=1 B=2\n"
    assert read(text) == [
        ("DB_USER", "app DB_PASSWORD=Hunter22Secret9"),
        ("DB_PASSWORD", "Hunter22Secret9"),
        ("exporter", "1 B=2"),
        ("B", "2"),  # bash: two assignments, no command
    ]


def test_comments_and_the_hash_inside_values() -> None:
    text = (
        "# API_KEY=commented-out\n"
        "A=abc#def # a note\n"
        "B= # only a note\n"
        "C=#starts-with-hash\n"
        'D="x y" # a note\n'
        "E='x#y'#a note\n"
        "\n"
        "not an assignment\n"
    )
    assert readings(text) == [
        ("A", ("abc#def", "abc")),  # python-dotenv keeps `#def`, Node cuts it
        ("C", ("#starts-with-hash",)),
        ("D", ("x y",)),
        ("E", ("x#y", "x#y#a")),
    ]


def test_crlf_and_cr_line_endings() -> None:
    assert read("A=1\r\nB='two\r\nlines'\r\nC=3\rD=4") == [
        ("A", "1"),
        ("B", "two\r\nlines"),
        ("C", "3"),
        ("D", "4"),
    ]


def test_text_after_a_closing_quote_is_read_as_node_and_bash_read_it() -> None:
    assert readings('G="abcdefgh"ijk\n') == [("G", ("abcdefgh", '"abcdefgh"ijk', "abcdefghijk"))]


def test_an_unclosed_quote_is_read_to_the_end_of_its_line_and_the_next_lines_still_parse() -> None:
    assert read('API_TOKEN="tok-unclosed-123\nNEXT_TOKEN=next-value-1\n') == [
        ("API_TOKEN", "tok-unclosed-123"),
        ("NEXT_TOKEN", "next-value-1"),
    ]


def test_an_unclosed_quote_that_opens_a_private_key_is_the_whole_block() -> None:
    assert read(f"PRIVATE_KEY='{PEM}\nNEXT=1\n") == [("PRIVATE_KEY", PEM), ("NEXT", "1")]


def test_a_quote_closed_too_far_away_is_a_stray_quote() -> None:
    text = 'A="stray\n' + "#" * (MAX_QUOTED_CHARS + 10) + '\nB=after"\nC=3\n'
    assert read(text) == [("A", "stray"), ("B", 'after"'), ("C", "3")]


@pytest.mark.parametrize(
    "encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"]
)
def test_a_file_is_decoded_by_its_byte_order_mark(encoding: str) -> None:
    text = "GITHUB_TOKEN=ghp_Bom0Saved1Token2Value3é\r\nOTHER=1\r\n"
    data = text.encode(encoding)
    if encoding in ("utf-16-le", "utf-16-be", "utf-32-le"):
        data = "\ufeff".encode(encoding) + data
    assert read(decode_dotenv(data)) == [
        ("GITHUB_TOKEN", "ghp_Bom0Saved1Token2Value3é"),
        ("OTHER", "1"),
    ]


def test_a_file_in_utf16_without_a_mark_is_read_for_its_ascii() -> None:
    for encoding in ("utf-16-le", "utf-16-be", "utf-32-le"):
        data = "API_TOKEN=ascii-token-123\n".encode(encoding)
        assert read(decode_dotenv(data)) == [("API_TOKEN", "ascii-token-123")], encoding


def test_bytes_that_are_not_text_never_fail() -> None:
    assert read(decode_dotenv(b"A=\xff\xfe\xfd-bytes\nB=2\n")) == [
        ("A", "\ufffd\ufffd\ufffd-bytes"),
        ("B", "2"),
    ]


def test_a_shell_word_ends_at_a_blank_and_an_open_quote_has_no_end() -> None:
    assert read_shell_word("abc def", 0) == "abc"
    assert read_shell_word('\'a b\'"c\\"d" e', 0) == 'a bc"d'
    assert read_shell_word("'open", 0) is None


# --- properties ------------------------------------------------------------------------

NAMES = st.sampled_from(
    ["DB_PASSWORD", "API_KEY", "STRIPE_SECRET_KEY", "GITHUB_TOKEN", "APP_SECRET", "x.y-z"]
)
VALUE_CHARS = string.ascii_letters + string.digits + " \t\n#'\"`\\$=:;,./@%-_!é€"
VALUES = st.text(VALUE_CHARS, min_size=1, max_size=40).filter(lambda v: v.strip() == v)
UNQUOTED = re.compile(r"[A-Za-z0-9_\-./+=:@%,!]+")


def write_value(value: str, style: str) -> str:
    """`value` as a dotenv writer of `style` writes it (any style that cannot hold it
    writes double quotes instead)."""
    if style == "unquoted" and UNQUOTED.fullmatch(value):
        return value
    if style == "single_raw" and "'" not in value and "\\" not in value:
        return f"'{value}'"  # Node's and a shell's way: nothing escaped
    if style == "single_escaped":  # python-dotenv's set_key, with the backslash too
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if style == "backtick" and "`" not in value and not value.endswith("\\"):
        return f"`{value}`"  # Node's way, nothing escaped (a last `\\` would escape the quote)
    if style == "shell":  # what shlex.quote, so many .envrc writers, make
        return shlex.quote(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    if style == "double_lines":
        return f'"{escaped}"'  # line breaks as they are
    return '"' + escaped.replace("\n", "\\n").replace("\r", "\\r") + '"'


STYLES = st.sampled_from(
    ["unquoted", "single_raw", "single_escaped", "backtick", "shell", "double_lines", "double"]
)
LAYOUTS = st.sampled_from(["{name}={value}", "export {name}={value}", "{name} = {value}"])


@st.composite
def dotenv_files(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    """A dotenv text a reasonable writer makes, and the (name, value) pairs it holds."""
    written, lines = [], []
    for _ in range(draw(st.integers(1, 4))):
        name, value, style = draw(NAMES), draw(VALUES), draw(STYLES)
        layout = "{name}: {value}" if draw(st.booleans()) and style != "shell" else draw(LAYOUTS)
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["# a comment", "", "OTHER=plain # note"])))
        lines.append(layout.format(name=name, value=write_value(value, style)))
        written.append((name, value))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"])), written


@fuzz_settings(1.0)
@given(dotenv_files())
def test_any_value_a_reasonable_writer_puts_in_a_dotenv_file_is_read_back(
    written: tuple[str, list[tuple[str, str]]],
) -> None:
    text, pairs = written
    assignments = list(parse_dotenv(text))
    for name, value in pairs:
        assert is_read_back(name, value, assignments), (name, value, text, assignments)


SECRET_VALUES = st.builds(
    lambda head, tail: secret_like(head) + tail,
    st.text(string.ascii_letters + string.digits, min_size=10, max_size=20),
    st.text("\"'\\$#` \n", max_size=4),
)


@fuzz_settings(0.04)
@given(NAMES.filter(lambda n: n != "x.y-z"), SECRET_VALUES, STYLES)
def test_a_written_credential_is_redacted_in_the_file_and_as_its_value(
    name: str, value: str, style: str
) -> None:
    """End to end of the rule: what the file shows (`cat`) and the value a program
    reading it holds (`printenv`) both come out as `[REDACTED]`."""
    value = value.strip()
    text = f"{name}={write_value(value, style)}\n"
    dotenv = WorkspaceDotenv((DotenvFile(".env", tuple(parse_dotenv(text))),))
    redactor = SecretRedactor(find_dotenv_secrets(dotenv, "").values)
    assert value not in redactor.redact(text).text, text
    assert redactor.redact(f"[{value}]").text == f"[{REDACTED_MARK}]", text


# python-dotenv as an oracle: texts built of the pieces dotenv lines are made of, in any
# order, so quotes, escapes and breaks meet in every way
PIECES = st.sampled_from(
    [
        "A",
        "KEY_2",
        "=",
        " = ",
        ": ",
        "export ",
        "'",
        '"',
        "`",
        "\\",
        "\\'",
        '\\"',
        "\\n",
        "#",
        " #",
        " ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "value",
        "a b",
        "$X",
        "é",
    ]
)


@fuzz_settings(2.0)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_every_value_python_dotenv_reads_is_read(text: str) -> None:
    assignments = list(parse_dotenv(text))
    for binding in parse_stream(io.StringIO(text)):
        if binding.key is None or not binding.value:
            continue
        assert is_read_back(binding.key, binding.value, assignments), (binding, assignments)
