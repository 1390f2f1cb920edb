"""Pointer parsing: the grammar, every malformed class, and properties under hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_cli.errors import SourcePointerError, UnknownSourceSchemeError
from agent_cli.sources.pointers import (
    ParsedSourcePointer,
    format_artifact_pointer,
    format_transcript_pointer,
    parse_source_pointer,
)

DIGEST12 = "0123456789ab"
DIGEST64 = "0123456789abcdef" * 4


def test_a_transcript_pointer_splits_into_session_and_sequence():
    parsed = parse_source_pointer("transcript:sess-1_a.b:42")
    assert parsed == ParsedSourcePointer("transcript", "sess-1_a.b", sequence=42)
    assert parsed.is_transcript and not parsed.is_artifact
    assert parsed.text == "transcript:sess-1_a.b:42"


@pytest.mark.parametrize("digest", [DIGEST12, DIGEST64])
def test_an_artifact_pointer_splits_into_session_file_and_digest(digest):
    parsed = parse_source_pointer(f"artifact:s1:out.2.txt:{digest}")
    assert (parsed.session_id, parsed.filename, parsed.digest) == ("s1", "out.2.txt", digest)
    assert parsed.is_artifact and parsed.text == f"artifact:s1:out.2.txt:{digest}"


def test_the_largest_components_are_accepted():
    long = "a" * 200
    assert parse_source_pointer(f"artifact:{long}:{long}:{DIGEST12}").filename == long
    assert parse_source_pointer("transcript:s:" + "9" * 18).sequence == 10**18 - 1


MALFORMED = {
    "empty": [""],
    "too_long": ["transcript:s:1" + "1" * 600],
    "whitespace": [
        " transcript:s:1",
        "transcript:s:1\n",
        "transcript:s 1:1",
        "transcript:s:\t1",
        "transcript:s:1\u2028",
        "transcript:s:\u00a01",
    ],
    "non_ascii": [
        "transcript:sé:1",
        "transcript:s:\u0661",
        "transcript:s:\uff11",
        "artifact:s:f\u2215x:" + DIGEST12,
    ],
    "control_character": ["transcript:s\x00:1", "transcript:s:1\x7f"],
    "missing_scheme": ["noscheme", ":s:1", "TRANSCRIPT:s:1", "1x:s:1"],
    "wrong_part_count": [
        "transcript:s",
        "transcript:s:1:2",
        "transcript:a:b:c:d",
        "artifact:s:f",
        f"artifact:s:f:{DIGEST12}:x",
        "transcript:",
    ],
    "empty_part": [
        "transcript::1",
        "transcript:s:",
        f"artifact:s::{DIGEST12}",
        f"artifact::f:{DIGEST12}",
        "artifact:s:f:",
    ],
    "dot_component": [
        "transcript:.:1",
        "transcript:..:1",
        f"artifact:s:..:{DIGEST12}",
        f"artifact:..:f:{DIGEST12}",
        f"artifact:s:.:{DIGEST12}",
    ],
    "slash": [
        "transcript:a/b:1",
        f"artifact:s:../etc:{DIGEST12}",
        f"artifact:s:/etc/passwd:{DIGEST12}",
        "transcript:/:1",
    ],
    "backslash": [f"artifact:s:..\\x:{DIGEST12}", "transcript:a\\b:1"],
    "bad_character": [
        "transcript:a*b:1",
        "transcript:a%2e:1",
        f"artifact:s:f~:{DIGEST12}",
        "transcript:a@b:1",
    ],
    "bad_first_character": [
        "transcript:-s:1",
        "transcript:.hidden:1",
        f"artifact:s:_x:{DIGEST12}",
        "transcript:..a:1",
    ],
    "component_too_long": ["transcript:" + "a" * 201 + ":1"],
    "sequence_not_digits": [
        "transcript:s:-1",
        "transcript:s:+1",
        "transcript:s:1.0",
        "transcript:s:1e3",
        "transcript:s:0x1",
        "transcript:s:one",
    ],
    "sequence_below_one": ["transcript:s:0", "transcript:s:000"],
    "sequence_leading_zero": ["transcript:s:01", "transcript:s:007"],
    "digest_length": [
        f"artifact:s:f:{DIGEST12[:11]}",
        f"artifact:s:f:{DIGEST12}0",
        f"artifact:s:f:{DIGEST64[:63]}",
        f"artifact:s:f:{DIGEST64}0",
    ],
    "digest_not_hex": [
        "artifact:s:f:0123456789AB",
        "artifact:s:f:g123456789ab",
        "artifact:s:f:0123456789a-",
    ],
}


@pytest.mark.parametrize("reason, text", [(r, t) for r, texts in MALFORMED.items() for t in texts])
def test_every_malformed_pointer_class_raises_its_reason_code(reason, text):
    with pytest.raises(SourcePointerError) as caught:
        parse_source_pointer(text)
    assert caught.value.reason == reason
    assert not isinstance(caught.value, UnknownSourceSchemeError)
    assert text.strip() == "" or text not in str(caught.value)


@pytest.mark.parametrize("text", ["file:x", "http://example.com", "memory:s:1", "s3:bucket:key"])
def test_an_unknown_scheme_raises_its_own_subclass(text):
    with pytest.raises(UnknownSourceSchemeError) as caught:
        parse_source_pointer(text)
    assert caught.value.reason == "unknown_scheme"


@pytest.mark.parametrize("value", [None, b"transcript:s:1", 7, ["transcript:s:1"]])
def test_a_pointer_that_is_not_text_is_refused(value):
    with pytest.raises(SourcePointerError, match="not_text"):
        parse_source_pointer(value)


def test_formatting_helpers_build_valid_pointers_and_refuse_bad_parts():
    assert format_transcript_pointer("s1", 3) == "transcript:s1:3"
    assert format_artifact_pointer("s1", "a.txt", DIGEST64) == f"artifact:s1:a.txt:{DIGEST64}"
    with pytest.raises(SourcePointerError):
        format_transcript_pointer("s1", 0)
    with pytest.raises(SourcePointerError):
        format_transcript_pointer("s1", True)
    with pytest.raises(SourcePointerError):
        format_artifact_pointer("s1", "../x", DIGEST12)


COMPONENT = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,40}\Z").filter(
    lambda part: part not in (".", "..")
)


@settings(max_examples=300)
@given(session=COMPONENT, sequence=st.integers(min_value=1, max_value=10**18 - 1))
def test_any_valid_transcript_pointer_round_trips(session, sequence):
    text = f"transcript:{session}:{sequence}"
    parsed = parse_source_pointer(text)
    assert (parsed.session_id, parsed.sequence, parsed.text) == (session, sequence, text)


@settings(max_examples=300)
@given(
    session=COMPONENT,
    filename=COMPONENT,
    digest=st.one_of(st.from_regex(r"\A[0-9a-f]{12}\Z"), st.from_regex(r"\A[0-9a-f]{64}\Z")),
)
def test_any_valid_artifact_pointer_round_trips(session, filename, digest):
    text = f"artifact:{session}:{filename}:{digest}"
    assert parse_source_pointer(text).text == text


POINTERISH = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "transcript",
                "artifact",
                ":",
                ".",
                "..",
                "/",
                "\\",
                "0",
                "1",
                "s1",
                DIGEST12,
                "\n",
                " ",
                "é",
                "\x00",
                "-",
                "_",
            ]
        ),
        st.text(max_size=5),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=1000)
@given(text=st.one_of(POINTERISH, st.text()))
def test_parsing_either_refuses_or_returns_a_pointer_spelled_exactly_as_given(text):
    try:
        parsed = parse_source_pointer(text)
    except SourcePointerError:
        return
    assert parsed.text == text
    parts = [parsed.session_id] + ([parsed.filename] if parsed.filename else [])
    for part in parts:
        assert part not in (".", "..")
        assert not set(part) & set("/\\: \n\x00")
        assert part.isascii()


@settings(max_examples=300)
@given(
    session=COMPONENT,
    position=st.integers(min_value=0, max_value=60),
    bad=st.sampled_from(["/", "\\", " ", "\n", "\x00", "é", "*", ":"]),
)
def test_inserting_a_forbidden_character_anywhere_in_the_session_is_refused(session, position, bad):
    position = min(position, len(session))
    mangled = session[:position] + bad + session[position:]
    with pytest.raises(SourcePointerError):
        parse_source_pointer(f"transcript:{mangled}:1")


@settings(max_examples=300)
@given(session=COMPONENT, sequence=st.integers(min_value=1))
def test_any_positive_sequence_round_trips_however_many_digits_it_has(session, sequence):
    text = f"transcript:{session}:{sequence}"
    parsed = parse_source_pointer(text)
    assert (parsed.session_id, parsed.sequence, parsed.text) == (session, sequence, text)
    assert format_transcript_pointer(session, sequence) == text


def test_a_sequence_far_past_any_transcript_is_well_formed():
    sequence = 10**40 + 1
    assert parse_source_pointer(f"transcript:s:{sequence}").sequence == sequence
