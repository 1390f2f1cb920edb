"""Shared tools for the tests of cutting text: random secrets in every form the redactor
knows, and a check that finds a piece of a secret left in a shortened text.

A piece counts as leaked when at least `LEAK_CHARS` consecutive characters of one of the
secret's forms (line breaks ignored) appear in the output and not in the same path's
output for the same text with the secret's characters replaced (`baseline`): so a path's
own words and figures never pass for a leak, and any piece longer than a coincidence
does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from hypothesis import strategies as st

from agent_cli.secret_forms import MAX_WRAPPED_CHARS, REDACTED_MARK, encoded_forms

LEAK_CHARS = 6
SECRET_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
# Padding never holds a character of any form (base64, hex, the value): `·` and spaces.
PADDING = st.text(st.sampled_from(" ·\n"), max_size=400)
STAND_IN = "¤"

# Token-like values most of the time, any printable text (not spaces or the padding's
# characters) otherwise: a password may hold punctuation or letters of any script. Not
# unassigned or private-use code points: the approval view writes them out (`<U+18CD6>`),
# and a percent spelling holding one is not matched as shown (a known limit).
secret_values = st.one_of(
    st.text(st.sampled_from(SECRET_ALPHABET), min_size=8, max_size=48),
    st.text(
        st.characters(
            codec="utf-8",
            exclude_categories=["Cs", "Cc", "Cf", "Cn", "Co", "Zs", "Zl", "Zp"],
            exclude_characters="·¤",
        ),
        min_size=8,
        max_size=48,
    ),
)


@st.composite
def percent_spellings(draw: st.DrawFn, secret: str) -> str:
    """`secret` as a URL may hold it: any of its characters but ASCII letters and digits
    percent-encoded, each hex digit in either case (`agent_cli.percent_forms`)."""
    spelled = []
    for character in secret:
        if (character.isascii() and character.isalnum()) or not draw(st.booleans()):
            spelled.append(character)
            continue
        for byte in character.encode("utf-8"):
            digits = f"{byte:02X}"
            spelled.append("%" + "".join(d.lower() if draw(st.booleans()) else d for d in digits))
    return "".join(spelled)


@st.composite
def secret_occurrences(draw: st.DrawFn) -> tuple[str, str]:
    """(the secret value, one of its forms as it may appear in output: plain, hex in
    either case, base64 at any alignment and alphabet, quoted or percent-encoded in any
    spelling, maybe wrapped into lines)."""
    secret = draw(secret_values)
    form = draw(
        st.one_of(st.sampled_from(sorted(encoded_forms(secret))), percent_spellings(secret))
    )
    wrap = draw(st.one_of(st.none(), st.integers(4, 76)))
    if wrap and len(form) <= MAX_WRAPPED_CHARS:
        form = "\n".join(form[i : i + wrap] for i in range(0, len(form), wrap))
    return secret, form


class PaddedSecret(NamedTuple):
    """A secret, one of its forms as output may hold it, and the padding either side."""

    secret: str
    form: str
    before: str
    after: str


@st.composite
def padded_secrets(draw: st.DrawFn) -> PaddedSecret:
    """A `secret_occurrences()` draw with `PADDING` drawn before and after it."""
    secret, form = draw(secret_occurrences())
    return PaddedSecret(secret, form, draw(PADDING), draw(PADDING))


def flat(text: str) -> str:
    return text.replace("\r", "").replace("\n", "")


def leaked_piece(output: str, secret: str, baseline: str = "", form: str = "") -> str | None:
    """A piece of `LEAK_CHARS` characters of a form of `secret` (`encoded_forms`, or
    `form`, the one the output was made with) found in `output` (line breaks ignored, and
    each `REDACTED_MARK` redaction put there: a secret such as "00EDACTE" shares a piece
    with the mark) and not in `baseline`; None when there is none."""
    forms = sorted(encoded_forms(secret) | {flat(form)} - {""})
    # each mark stands for one character no form holds (a form such as UTF-16's holds NUL)
    mark = next(c for c in map(chr, range(0xE000, 0xF900)) if not any(c in f for f in forms))
    shown, known = flat(output).replace(REDACTED_MARK, mark), flat(baseline)
    for known_form in forms:
        for start in range(len(known_form) - LEAK_CHARS + 1):
            piece = known_form[start : start + LEAK_CHARS]
            if piece in shown and piece not in known:
                return piece
    return None


def stand_in(form: str) -> str:
    """`form` with every character replaced, line breaks kept: the baseline text."""
    return "".join(ch if ch == "\n" else STAND_IN for ch in form)


def assert_no_piece_leaks(
    shown: Callable[[str], str], secret: str, form: str, around: Callable[[str], str]
) -> None:
    """What the path `shown` (a cut, then redaction) makes of `around(form)` holds no piece
    of `secret` that it does not show of `around(stand_in(form))` too (`leaked_piece`).

    `around` places the form in its text: padding, repeats, whatever the path needs."""
    baseline = shown(around(stand_in(form)))
    assert leaked_piece(shown(around(form)), secret, baseline, form) is None


def strings_in(value: object) -> str:
    """Every string inside a JSON value, one per line (as a reader would see them)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(strings_in(item) for item in value.values())
    if isinstance(value, list):
        return "\n".join(strings_in(item) for item in value)
    return ""
