"""A secret whose characters an escaper wrote one by one, each its own way, is redacted
(twenty-fourth outside attack).

The attack: a password holding `&`, `<`, `>` printed by `kubectl ... -o json` (Go's
encoder writes `\\u0026`, `\\u003c`, `\\u003e`; Rails' `to_json` the same) reached the
model whole; so did `\\u0027` for `'` (Gson), `\\u005c` for a backslash, HTML's numeric
references (`&#38;`, `&#60;`, `&#x26;`), a `'` doubled by YAML's single quotes (`kubectl
-o yaml`), SQL or CSV, and Java's `.properties` backslashes (`\\:`, `\\=`, `\\ `, `\\#`).
Now each character of a secret other than an ASCII letter or digit may stand as itself
or as any escape of it (`agent_cli.character_escapes`), in any mix: one matcher
(`agent_cli.percent_forms`) for every escaper, not a list of them.

Each form here is the text the program writes: Python's own `json`, `csv`, `sqlite3`
and `xmlcharrefreplace` where they write it, and otherwise the rule of the program named
(its documented escaping), applied as it applies it. The real `kubectl` and `java` are run
in `test_e2e_escaped_secret_forms.py`.
"""

from __future__ import annotations

import csv
import io
import json
import random
import sqlite3
import string
import subprocess
import sys
import urllib.parse

import pytest

from agent_cli.character_escapes import escapes_of
from agent_cli.secret_forms import REDACTED_MARK, SecretForms

GO_PASSWORD = "Xk9#mQ2&vL7pR4zT<w>Qe"
QUOTED_PASSWORD = "!Kq7'mZ2vL9pR4zTx8w"
MIXED_PASSWORD = 'Tr0ub4dor&3"x\\yz-\u00e79 a=b:c#d!e/f'
PASSWORDS = (GO_PASSWORD, QUOTED_PASSWORD, MIXED_PASSWORD, "p\u00e4ss\U0001f600w\u00f6rd&<>")


def go_json(value: str) -> str:
    """Go's `encoding/json` (kubectl, terraform, docker inspect): `<`, `>`, `&`, U+2028 and
    U+2029 as `\\u00XX` in lower case, non-ASCII as it is (Rails' `to_json` the same)."""
    text = json.dumps(value, ensure_ascii=False)
    for character in "<>&\u2028\u2029":
        text = text.replace(character, f"\\u{ord(character):04x}")
    return text


def gson(value: str) -> str:
    """Gson's default HTML-safe escaping: `<>&='` as `\\u00XX` too."""
    text = go_json(value)
    for character in "='":
        text = text.replace(character, f"\\u{ord(character):04x}")
    return text


def jackson_non_ascii(value: str) -> str:
    """Jackson with `ESCAPE_NON_ASCII`: every non-ASCII UTF-16 unit as `\\uXXXX`, hex in
    upper case."""
    return "".join(
        character
        if character.isascii()
        else "".join(f"\\u{unit:04X}" for unit in _utf16_units(character))
        for character in json.dumps(value, ensure_ascii=False)
    )


def _utf16_units(character: str) -> list[int]:
    """The UTF-16 code units of `character` (two, a surrogate pair, above U+FFFF)."""
    data = character.encode("utf-16-be")
    return [int.from_bytes(data[at : at + 2], "big") for at in range(0, len(data), 2)]


def every_character_as_unicode_escape(value: str, *, upper: bool) -> str:
    """An encoder that writes every character but ASCII letters and digits as `\\uXXXX`
    (a hardened JSON writer, JavaScript's `jsesc` with `json: true, minimal: false`)."""
    digits = "{:04X}" if upper else "{:04x}"
    pieces = []
    for character in value:
        if character.isascii() and character.isalnum() or character in "-_.":
            pieces.append(character)
            continue
        data = character.encode("utf-16-be")
        pieces.extend(
            "\\u" + digits.format(int.from_bytes(data[at : at + 2], "big"))
            for at in range(0, len(data), 2)
        )
    return "".join(pieces)


def wordpress_html(value: str) -> str:
    """WordPress's `esc_html`: `&` as `&#038;`, `<`/`>` named, quotes as `&quot;`/`&#039;`."""
    return (
        value.replace("&", "&#038;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#039;")
    )


def hex_references(value: str) -> str:
    """OWASP ESAPI's `encodeForHTML`: every character as `&#xHH;` but ASCII letters,
    digits and its immune `,.-_` and blank."""
    return "".join(
        c if c.isalnum() and c.isascii() or c in ",.-_ " else f"&#x{ord(c):X};" for c in value
    )


def decimal_references(value: str) -> str:
    """Python's `xmlcharrefreplace` (non-ASCII as `&#NNN;`) after `&<>` as decimal
    references, as a hand-written template helper does."""
    escaped = "".join(f"&#{ord(c)};" if c in "&<>" else c for c in value)
    return escaped.encode("ascii", "xmlcharrefreplace").decode("ascii")


def yaml_single_quoted(value: str) -> str:
    """YAML's single-quoted scalar (go-yaml under `kubectl -o yaml`, PyYAML): `''`."""
    return value.replace("'", "''")


def sqlite_dump(value: str) -> str:
    """What SQLite's dump (`iterdump`, as `sqlite3 .dump`) writes of a row holding `value`."""
    database = sqlite3.connect(":memory:")
    database.execute("CREATE TABLE t (v TEXT)")
    database.execute("INSERT INTO t VALUES (?)", (value,))
    return "\n".join(database.iterdump())


def csv_row(value: str) -> str:
    """Python's `csv` writer (Excel dialect): quotes doubled inside double quotes."""
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL).writerow(["name", value])
    return out.getvalue()


def java_properties(value: str) -> str:
    """`java.util.Properties.store` of `value` (`saveConvert`): `\\`, `=`, `:`, `#`, `!`
    after a backslash, a leading blank as `\\ `, tab and line breaks as `\\t`, `\\n`, and
    (to an `OutputStream`) every character outside printable ASCII as `\\uXXXX`."""
    pieces = []
    for index, character in enumerate(value):
        if character in "\\=:#!" or (character == " " and index == 0):
            pieces.append("\\" + character)
        elif character in "\t\n\r\f":
            pieces.append({"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}[character])
        elif " " <= character <= "~":
            pieces.append(character)
        else:
            pieces.extend(f"\\u{unit:04X}" for unit in _utf16_units(character))
    return "".join(pieces)


PRINTERS = {
    "Go encoding/json": go_json,
    "Gson": gson,
    "Jackson ESCAPE_NON_ASCII": jackson_non_ascii,
    "every character \\u, lower": lambda v: every_character_as_unicode_escape(v, upper=False),
    "every character \\u, upper": lambda v: every_character_as_unicode_escape(v, upper=True),
    "WordPress esc_html": wordpress_html,
    "hex references": hex_references,
    "decimal references": decimal_references,
    "YAML single quotes": yaml_single_quoted,
    "sqlite3 .dump": sqlite_dump,
    "csv": csv_row,
    "Java .properties": java_properties,
}


@pytest.mark.parametrize("password", PASSWORDS)
@pytest.mark.parametrize("printer", sorted(PRINTERS))
def test_a_password_escaped_by_a_common_program_is_redacted(printer, password):
    printed = PRINTERS[printer](password)
    redacted = SecretForms.from_values([password]).redact(f"DB_PASSWORD: {printed}\nok\n")
    assert REDACTED_MARK in redacted, (printer, printed)
    # what is left is the program's own quoting or syntax around the mark, nothing of it
    left = redacted.replace(REDACTED_MARK, "")
    for piece in _pieces(password):
        assert piece not in left, (printer, printed, redacted)


def _pieces(value: str) -> list[str]:
    """Each run of 5 letters and digits of `value`: none may stay beside the mark."""
    runs = "".join(c if c.isalnum() and c.isascii() else " " for c in value).split()
    return [run[at : at + 5] for run in runs for at in range(len(run) - 4)]


def test_any_mix_of_a_characters_escapes_is_redacted():
    """Escapers mix as each pleases (a template escapes `&` for HTML inside a JSON string,
    a person fixes a config by hand): every character written by a random escape of its
    own, in either case of hex, is still the one secret."""
    draw = random.Random(24)
    for password in PASSWORDS:
        forms = SecretForms.from_values([password])
        for _ in range(40):
            printed = "".join(
                draw.choice((character, *escapes_of(character))) for character in password
            )
            if draw.random() < 0.5:
                printed = printed.lower() if password.lower() == password else printed
            assert forms.redact(f'"{printed}"') == f'"{REDACTED_MARK}"', printed


def test_a_token_of_letters_digits_dashes_and_underscores_gets_no_escaped_matcher():
    """The cost: a token with nothing any JSON or HTML escaper writes escaped (most are
    `[A-Za-z0-9_-]`) pays nothing for the escapes; its `-` and `_` keep only `%XX`."""
    assert escapes_of("a") == escapes_of("7") == ()
    assert escapes_of("-") == ("%2D",) and escapes_of("_") == ("%5F",)
    assert escapes_of(".") == ("%2E",)
    assert not SecretForms.from_values(["Zq7Rk2mXv9LpW4tYc8Nb"]).percent_forms


def test_a_stream_stopped_inside_an_escape_holds_back_from_the_value_on():
    """A command's output cut inside `\\u00` (a cap, a timeout): the rest may be the
    secret, so what is kept ends before it."""
    forms = SecretForms.from_values([GO_PASSWORD])
    printed = go_json(GO_PASSWORD)
    cut = printed.index("\\u0026") + 4
    text = "data:\n  P: " + printed[:cut]
    assert forms.open_match_start(text, 3) == text.index("Xk9")


def test_escaped_forms_are_redacted_in_bytes_too():
    forms = SecretForms.from_values([MIXED_PASSWORD])
    data = ("{" + f'"pw": {gson(MIXED_PASSWORD)}' + "}\n").encode("utf-8")
    redacted, count = forms.redact_bytes(data)
    assert count == 1 and redacted == b'{"pw": "' + REDACTED_MARK.encode() + b'"}\n'


# A run of markers (session 24's second look): `'` stands for itself or `''`, `\\` for
# itself or `\\\\`, so a text of quotes reads in every split of its run; a backtracking
# regex tried them all (24 quotes: 2.4 s for one 62-character line, 4x per 2 more). And
# a wrapped form's line break beside one of the value's own read a run of line breaks so.
RUN_SECRETS = (
    "'" * 200,
    "x" + "'" * 200 + "Zq9k",
    "x" + '"' * 200 + "Zq9k",
    "x" + "\\" * 200 + "Zq9k",
    "x" + "\\'" * 100 + "Zq9k",
    "x" + "\\\\'" * 60 + "Zq9k",
    "x" + "\n" * 40 + "Zq9k",  # a line break, or a wrapped line's beside it
)
_REDACT_ADVERSARIAL = """\
import sys
from agent_cli.secret_forms import SecretForms
value = sys.argv[1]
marker = value.strip("xZq9k")[:2]
line = "x" + marker * (300 // len(marker)) + "\\n"
text = line * (100_000 // len(line))
SecretForms.from_values([value]).redact(text)
SecretForms.from_values([value]).redact_bytes(text.encode())
print("done")
"""


@pytest.mark.parametrize("value", RUN_SECRETS, ids=range(len(RUN_SECRETS)))
def test_a_secret_of_a_long_run_of_quotes_or_backslashes_redacts_100_kb_in_linear_work(value):
    """Each form reads a text one way only (`percent_forms`' markers), so the work is
    linear: 100 KB of near-misses (a marker run, never the value) is redacted well within
    a generous bound, where reading every split would never end (2**200)."""
    done = subprocess.run(
        [sys.executable, "-c", _REDACT_ADVERSARIAL, value],
        capture_output=True,
        text=True,
        timeout=60,  # the work takes about a second; pytest-timeout is 120 s
        check=False,
    )
    assert done.returncode == 0 and done.stdout == "done\n", done.stderr


def _escaped_consistently(value: str, draw: random.Random) -> str:
    """`value` as a mix of escapers writes it, each consistent in its own rule: a
    backslash escaper writes every backslash escaped (and may put one before any other
    punctuation); a doubling one doubles every `'` (or `"`); every other character by
    any escape of it or as itself (JSON's `\\\\u`, HTML, a URL, `\\\\x`, ...)."""
    backslashing = draw.random() < 0.5
    doubled = {quote for quote in "'\"" if draw.random() < 0.5}
    out = []
    for character in value:
        texts = [character, *escapes_of(character)]
        if character == "\\" and backslashing or character in doubled:
            texts.remove(character)
        if not backslashing:
            texts = [text for text in texts if text != "\\" + character]
        if character not in doubled:
            texts = [text for text in texts if text != character * 2]
        out.append(draw.choice(texts))
    return "".join(out)


# about 13 s of CPU: on a loaded 2-core box its wall time neared the default 120 s limit
@pytest.mark.timeout(600)
def test_a_value_full_of_markers_is_redacted_however_its_escapers_wrote_it():
    """The markers' forms lose nothing an escaper writes: a value of quotes, backslashes
    and other punctuation, escaped by any consistent mix of escapers, is redacted whole."""
    draw = random.Random(2407)
    alphabet = "''\"\\\\&%#;= xé"
    for _ in range(60):
        value = "".join(draw.choice(alphabet) for _ in range(draw.randint(8, 14)))
        forms = SecretForms.from_values([value])
        for _ in range(6):
            printed = _escaped_consistently(value, draw)
            assert forms.redact(f"<{printed}>") == f"<{REDACTED_MARK}>", (value, printed)


def systemd_escape(value: str) -> str:
    """`systemd-escape`'s rule: `/` as `-`, every byte but `[A-Za-z0-9:_.]` as `\\\\xNN`."""
    kept = frozenset(string.ascii_letters + string.digits + ":_.")
    return "".join(
        "-" if c == "/" else c if c in kept else "".join(f"\\x{b:02x}" for b in c.encode())
        for c in value
    )


def test_a_password_as_hex_escapes_or_in_a_url_inside_a_url_is_redacted():
    """`\\\\xNN` (systemd-escape, C, JavaScript, Python's `repr` of Latin-1) and a URL
    inside a URL (an OAuth `next=` holding a `DATABASE_URL`: `%2526` for `&`). A known
    limit: `-`, `_` and `.` keep only `%XX` (a token pays nothing), so systemd-escape's
    `\\x2d` for a `-` is not taken."""
    plain = MIXED_PASSWORD.replace("/", "").replace("-", "")
    for password in (GO_PASSWORD, plain, "p\u00e4ss\u00e9w&<>rd"):
        forms = SecretForms.from_values([password])
        database_url = "postgres://app:" + urllib.parse.quote(password, safe="") + "@db/x"
        next_url = "https://login.example/cb?next=" + urllib.parse.quote(database_url, safe="")
        latin = "".join(f"\\x{ord(c):02x}" if 0x80 <= ord(c) <= 0xFF else c for c in password)
        for printed in (systemd_escape(password), next_url, latin):
            redacted = forms.redact(f"{printed}\n")
            assert REDACTED_MARK in redacted, printed
            assert not any(piece in redacted for piece in _pieces(password)), redacted
