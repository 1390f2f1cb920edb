r"""Escaped forms of a known secret that session 29's fix left, redacted now (session 31).

With `GITHUB_TOKEN` (a `ghp_` token) and `DB_PASSWORD` set, these still reached the model
and the screen from a file read or a command's output:
- HTML references padded past 8 digits (`&#x0000000067;`, `&#000000000103;`) or without
  their `;` (`&#103&#104`), as browsers and `html.unescape` read them;
- an escape whose own characters are escaped: `\x5c\x78\x36\x37` (that is `\x67`, a
  `g`), the same with `\u005c...` or `&#x5c;...`, `&#x26;&#x23;...` (`&#x67;` escaped) and
  `\x25\x36\x37` (`%67`);
- escapes with more than 8 characters, letters and digits among them, between two
  (`\x67, 0, \x68`, `\x67<span></span>\x68`), up to 24;
- escapes and plain characters alternating with blanks (`\x67 h \x70 _ \x5a ...`,
  `g h \x70 ...`, `&#x67; h &#x70; ...`, tabs between);

Each form is written to a real file in the workspace and read through the real toolbox
(`read_file`, and `cat` as the `bash` tool, whose live view is what the screen shows), and
fed to the live view's redactor in chunks of a few bytes. The value, read back from what
is left, is in none of them; ordinary text written the same way stays byte for byte.
"""

from __future__ import annotations

import html
import os
import re
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest
from tools_support import FakeArtifactStore

from agent_cli.escaped_text import Reading, read_escapes
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import SecretRedactor, StreamRedactor

TOKEN = "ghp_Zq8xR2mV7tK4nP9wL3sJ6hB1cF5dG0aYe8Ui"
PASSWORD = "Tr0ub4dor-horse-9!"
ENVIRONMENT = {"GITHUB_TOKEN": TOKEN, "DB_PASSWORD": PASSWORD}


def per_byte(value: str, template: str, separator: str = "") -> str:
    return separator.join(template % byte for byte in value.encode("utf-8"))


def alternating(value: str, template: str, blank: str = " ", first_plain: bool = False) -> str:
    """`value`'s characters, every other one written with `template`, blanks between."""
    plain = 0 if first_plain else 1
    return blank.join(
        character if index % 2 == plain else template % ord(character)
        for index, character in enumerate(value)
    )


def escaped_twice(value: str, inner: str, outer: str) -> str:
    """Each byte of `value` written with `inner`, each character of that with `outer`."""
    return "".join(outer % ord(character) for character in per_byte(value, inner))


_BACKSLASHED = re.compile(r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})")


def read_back(text: str, separator: str = "") -> str:
    """`text` as its reader reads it: HTML references and `\\xNN`/`\\uNNNN` escapes
    undone, and URL escapes (twice: an escape written with escapes), `separator` and
    blanks left out."""
    for _ in range(2):
        text = html.unescape(urllib.parse.unquote(text))
        text = _BACKSLASHED.sub(lambda found: chr(int(found[1] or found[2], 16)), text)
    return re.sub(r"\s", "", text.replace(separator, "") if separator else text)


def shows(text: str, value: str, separator: str = "") -> bool:
    """Whether `text`, read back, holds 8 characters of `value` in a row."""
    seen = read_back(text, separator)
    return any(value[at : at + 8] in seen for at in range(len(value) - 7))


# name: (how the form writes a value, what a reader leaves out between its characters)
FORMS: dict[str, tuple[Callable[[str], str], str]] = {
    "&#x padded to 10 digits": (lambda v: per_byte(v, "&#x%010x;"), ""),
    "&#X padded to 20 digits": (lambda v: per_byte(v, "&#X%020X;"), ""),
    "&#NNN; decimal": (lambda v: per_byte(v, "&#%d;"), ""),
    "&#NNN; padded to 7 digits": (lambda v: per_byte(v, "&#%07d;"), ""),
    "&#NNN; padded to 12 digits": (lambda v: per_byte(v, "&#%012d;"), ""),
    "&#NNN without ;": (lambda v: per_byte(v, "&#%d"), ""),
    "&#xNN without ;": (lambda v: per_byte(v, "&#x%x"), ""),
    "\\xNN written \\xNN": (lambda v: escaped_twice(v, "\\x%02x", "\\x%02x"), ""),
    "\\xNN written \\u00NN": (lambda v: escaped_twice(v, "\\x%02x", "\\u%04x"), ""),
    "\\xNN written &#xNN;": (lambda v: escaped_twice(v, "\\x%02x", "&#x%x;"), ""),
    "&#xNN; written &#xNN;": (lambda v: escaped_twice(v, "&#x%x;", "&#x%x;"), ""),
    "%NN written \\xNN": (lambda v: escaped_twice(v, "%%%02X", "\\x%02x"), ""),
    "\\xNN and characters between blanks": (lambda v: alternating(v, "\\x%02x"), ""),
    "characters and \\xNN between blanks": (
        lambda v: alternating(v, "\\x%02X", first_plain=True),
        "",
    ),
    "&#xNN; and characters between blanks": (lambda v: alternating(v, "&#x%x;", "  "), ""),
    "\\u00NN and characters between tabs": (lambda v: alternating(v, "\\u%04x", "\t"), ""),
    "&#xNN; between blanks": (lambda v: per_byte(v, "&#x%x;", " "), ""),
    "\\xNN, 0, between": (lambda v: per_byte(v, "\\x%02x", ", 0, "), ", 0, "),
    "\\xNN<span></span> between": (
        lambda v: per_byte(v, "\\x%02x", "<span></span>"),
        "<span></span>",
    ),
    "&#xNN; with an element between": (
        lambda v: per_byte(v, "&#x%x;", '<b class="x"></b>'),
        '<b class="x"></b>',
    ),
    "\\u00NN with 24 characters between": (
        lambda v: per_byte(v, "\\u%04x", " /* padding: 0 0 0 0 */ "),
        " /* padding: 0 0 0 0 */ ",
    ),
}

# Ordinary text written each way, holding no secret: kept as it is.
ORDINARY = {
    "references padded past 8 digits": (
        "<p>&#x0000000048;&#x0000000069; caf&#0000000233; &#000000000060;b&#000000000062;</p>"
    ),
    "references without ;": "<p>caf&#233 cr&#xE8me &#169 2024 &#x2014 x&#1034y</p>",
    "escapes and characters between blanks": (
        "keys: \\x1b [ A \\x1b [ B; the escapes \\x41 b \\x43 d spell AbCd\t\\x67 h \\x70 _"
    ),
    "escapes with wider separators": (
        "<td>\\x48</td><td>\\x69</td><td>\\x21</td> \\x67, 0, \\x68, 0, \\x70, 0, \\x5f"
    ),
    "escapes written with escapes": (
        "printf '\\x5c\\x78\\x34\\x38\\x5c\\x78\\x36\\x39' prints \\x48\\x69, "
        "that is Hi; C:\\u005c\\u0055sers &#x5c;&#x6e; %5C%6E"
    ),
}


def toolbox(workspace: Path) -> tuple[Toolbox, list[bytes]]:
    environment = {**ENVIRONMENT, "PATH": os.environ["PATH"]}
    box = Toolbox(
        workspace, FakeArtifactStore(), "s1", auto_approve=True, secret_environment=environment
    )
    shown: list[bytes] = []
    box.output_watcher = shown.append
    return box, shown


def streamed(text: str, size: int = 5) -> str:
    """What the live view shows of `text` arriving `size` bytes at a time."""
    stream = StreamRedactor(SecretRedactor.from_environment(ENVIRONMENT))
    data = text.encode("utf-8")
    shown = "".join(stream.feed(data[at : at + size]) for at in range(0, len(data), size))
    return shown + stream.finish()


@pytest.mark.parametrize("name", FORMS)
@pytest.mark.parametrize("value", [TOKEN, PASSWORD], ids=["token", "password"])
def test_a_file_holding_the_form_gives_the_model_and_the_screen_none_of_the_value(
    tmp_path: Path, name: str, value: str
) -> None:
    write, separator = FORMS[name]
    written = f"<p>before</p>\nvalue: {write(value)}\n<p>after</p>\n"
    assert shows(written, value, separator)  # the case says what it should
    (tmp_path / "page.html").write_text(written)
    box, shown = toolbox(tmp_path)
    read = box.run("read_file", {"path": "page.html"}).content
    printed = box.run("bash", {"command": "cat page.html"}).content
    live = b"".join(shown).decode()
    for where, text in (("read_file", read), ("cat", printed), ("live view", live)):
        assert REDACTED_MARK in text, (where, text)
        assert not shows(text, value, separator), (where, text)
        assert "<p>before</p>" in text and "<p>after</p>" in text, (where, text)
    chunked = streamed(written)
    assert REDACTED_MARK in chunked and not shows(chunked, value, separator), chunked


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_text_written_the_same_way_stays_byte_for_byte(tmp_path: Path, name: str) -> None:
    ordinary = ORDINARY[name]
    (tmp_path / "ordinary.txt").write_text(ordinary + "\n")
    box, shown = toolbox(tmp_path)
    read = box.run("read_file", {"path": "ordinary.txt"}).content
    printed = box.run("bash", {"command": "cat ordinary.txt"}).content
    assert f"     1\t{ordinary}" in read
    assert printed.endswith(ordinary + "\n") and REDACTED_MARK not in printed
    assert b"".join(shown).decode() == ordinary + "\n"
    assert streamed(ordinary + "\n") == ordinary + "\n"


def test_an_escape_read_twice_is_mapped_back_to_the_escapes_it_was_written_with() -> None:
    text = "a\\x5c\\x78\\x36\\x37b"
    read = read_escapes(text, 0, len(text), Reading(False, False, again=Reading(False, False)))
    assert read.view == "agb"
    assert read.span_of(1, 2) == (1, len(text) - 1)
    assert read.span_of(0, 3) == (0, len(text))
