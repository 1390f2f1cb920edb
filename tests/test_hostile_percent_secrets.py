"""A password percent-encoded the way any encoder or person writes it is redacted
(seventh outside attack, S3).

The attack: `DB_PASSWORD=Summer2024!P@ss/Wörd` was redacted in a `DATABASE_URL` only as
Python's `quote(safe="")` writes it (`%21`, upper-case hex). JavaScript's
`encodeURIComponent` keeps `!` (`Summer2024!P%40ss%2FW%C3%B6rd`), a person encodes only
the `@` and the `/`, some write the hex in lower case (`%2f`, `%c3%b6`): each of these
went to the model through `read_file` and decodes to the password. Now each character
may be itself or `%XX` of its UTF-8 bytes, hex in either case, a space also `+`
(`agent_cli.percent_forms`); ASCII letters and digits, which RFC 3986 tells encoders never
to encode, only themselves.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from hostile_support import fuzz_settings
from hypothesis import example, given
from hypothesis import strategies as st
from tools_support import FakeArtifactStore

from agent_cli.secret_forms import REDACTED_MARK, SecretForms
from agent_cli.tools import Toolbox

PASSWORD = "Summer2024!P@ss/W\u00f6rd (x)*~'"


def _lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda found: found.group().lower(), text)


# How common encoders write PASSWORD (ECMA-262 and the Java and Python references give
# each one's set of characters left as they are).
ENCODERS = {
    "python quote": lambda value: quote(value, safe=""),
    "python quote_plus": lambda value: quote_plus(value, safe=""),
    "javascript encodeURIComponent": lambda value: quote(value, safe="!~*'()"),
    "javascript encodeURI": lambda value: quote(value, safe=";,/?:@&=+$#!~*'()"),
    "java URLEncoder": lambda value: quote_plus(value, safe="*").replace("~", "%7E"),
    "by hand: @ and / only": lambda value: value.replace("@", "%40").replace("/", "%2F"),
    "lower-case hex": lambda value: _lower_hex(quote(value, safe="")),
    "mixed case and choice": lambda value: (
        _lower_hex(quote(value[:12], safe="")) + quote(value[12:], safe="@!")
    ),
}


def make_box(folder: Path) -> Toolbox:
    environment = {"DB_PASSWORD": PASSWORD, "PATH": os.environ["PATH"]}
    return Toolbox(
        folder, FakeArtifactStore(), "s1", auto_approve=True, secret_environment=environment
    )


@pytest.mark.parametrize("encoder", sorted(ENCODERS))
def test_a_database_url_password_is_redacted_however_it_was_percent_encoded(tmp_path, encoder):
    encoded = ENCODERS[encoder](PASSWORD)
    assert encoded != PASSWORD
    (tmp_path / ".env").write_text(f"DATABASE_URL=postgres://app:{encoded}@db:5432/app\n")
    box = make_box(tmp_path)
    shown = [
        box.run("read_file", {"path": ".env"}).content,
        box.run("bash", {"command": "cat .env"}).content,
    ]
    for content in shown:
        assert encoded not in content
        assert f"postgres://app:{REDACTED_MARK}@db:5432/app" in content, content
    # grep shows no line that holds a secret, so a pattern cannot probe the password
    assert box.run("grep", {"pattern": "Summer", "path": "."}).content.startswith("No matches")


# Values as an environment holds them: no blank at either end; half of them end in `%`
# (spelled `...%25`, whose `25` was once left behind: the value's own `%` ended a match).
secret_values = st.one_of(
    st.text(
        st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\x00"),
        min_size=8,
        max_size=40,
    ),
    st.text(st.sampled_from("abc%/@:+ é"), min_size=7, max_size=20).map(lambda v: v + "%"),
).filter(lambda value: value == value.strip())


@st.composite
def url_spellings(draw: st.DrawFn) -> tuple[str, str]:
    """(a value, how a URL may hold it: any of its characters but ASCII letters and digits
    as `%XX` of its UTF-8 bytes, each hex digit in either case, a space maybe `+`)."""
    value = draw(secret_values)
    spelled = []
    for character in value.replace("\r\n", "\n"):
        if (character.isascii() and character.isalnum()) or not draw(st.booleans()):
            spelled.append(character)
        elif character == " " and draw(st.booleans()):
            spelled.append("+")
        else:
            for byte in character.encode("utf-8"):
                digits = "".join(
                    digit.lower() if draw(st.booleans()) else digit for digit in f"{byte:02X}"
                )
                spelled.append(f"%{digits}")
    return value, "".join(spelled)


@fuzz_settings(0.4)
@given(case=url_spellings())
def test_any_percent_spelling_of_a_value_is_redacted_whole_in_text_and_bytes(case):
    value, spelled = case
    forms = SecretForms.from_values([value])
    assert forms.redact(f"\x00{spelled}\x00") == f"\x00{REDACTED_MARK}\x00"
    data = f"\x00{spelled}\x00".encode()
    assert forms.redact_bytes(data) == (f"\x00{REDACTED_MARK}\x00".encode(), 1)
    assert forms.longest_match >= len(spelled)
    assert forms.longest_byte_match >= len(spelled.encode())


@fuzz_settings(0.4)
@given(case=url_spellings(), width=st.integers(1, 76))
@example(case=("000000\n0", "000000\n0"), width=1)
@example(case=(":;;;;;\n0", ":;;;;;%0A0"), width=1)
def test_a_percent_spelling_broken_across_lines_is_redacted_whole(case, width):
    """Broken every `width` characters, but never beside a line break of the value's own:
    `percent_forms` matches no wrap there (its contract: a wrap there would let a run of line
    breaks read in many ways, and the matcher would backtrack through them all)."""
    value, spelled = case
    own_breaks = [m.span() for m in re.finditer(r"\n|%0[Aa]", spelled)]  # (as itself or %0A)
    beside_own = {at for start, end in own_breaks for at in range(start, end + 1)}
    wraps = [at for at in range(width, len(spelled), width) if at not in beside_own]
    wrapped = "\n".join(
        spelled[a:b] for a, b in zip([0, *wraps], [*wraps, len(spelled)], strict=True)
    )
    assert SecretForms.from_values([value]).redact(f"\x00{wrapped}\x00") == (
        f"\x00{REDACTED_MARK}\x00"
    )


@fuzz_settings(0.4)
@given(case=url_spellings(), data=st.data())
def test_a_stream_stopped_inside_a_percent_spelling_is_known_to_be_inside_one(case, data):
    """`open_match_start`, which every cut of a stream that stopped asks: a text ending
    in any start of a spelling ends in something that may be the secret."""
    value, spelled = case
    end = data.draw(st.integers(1, len(spelled)))
    text = "\x00\x00" + spelled[:end]
    start = SecretForms.from_values([value]).open_match_start(text)
    assert start is not None and start <= 2


def test_letters_and_digits_encoded_are_read_back_not_spelled_out():
    """RFC 3986 tells every encoder never to encode a letter or a digit, so the percent
    form leaves them out (its pattern stays small); a program that encodes them anyway
    (`%53` for `S`) is read back by `agent_cli.secret_escapes`, and the value is hidden."""
    forms = SecretForms.from_values([PASSWORD])
    assert forms.redact(quote(PASSWORD, safe="")) == REDACTED_MARK
    assert forms.redact(quote(PASSWORD, safe="").replace("S", "%53")) == REDACTED_MARK
