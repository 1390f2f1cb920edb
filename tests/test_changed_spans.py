"""`changed_spans`: every place where two lines differ lies in a pair of spans.

The property checks the contract directly: with the spans taken out of each line, the
pieces left are the same on both sides, one for one, so outside the spans the two lines
read the same (a difference outside them would make two pieces differ).
"""

from __future__ import annotations

import pytest
from hostile_support import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from agent_cli.changed_spans import changed_spans


def pieces_outside(text: str, spans: list[tuple[int, int]]) -> list[str]:
    pieces, position = [], 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = end
    return [*pieces, text[position:]]


def test_the_same_line_has_no_span():
    assert changed_spans("var a=1;" * 50, "var a=1;" * 50) == []


def test_two_changes_far_apart_in_a_long_line_are_two_spans():
    """Session 26: `var a=1` -> `2` at the start, `good` -> `evil` in the middle."""
    line = "var a=1;" + "x" * 3000 + ";url='https://good.example/api';" + "y" * 3000 + ";"
    changed = line.replace("a=1", "a=2").replace("good", "evil")
    pairs = changed_spans(line, changed)
    assert [(line[a:b], changed[c:d]) for (a, b), (c, d) in pairs] == [
        ("1", "2"),
        ("good", "evil"),
    ]


def test_a_change_inside_a_long_word_is_narrowed_to_its_characters():
    line = "k" * 2_000 + "Q" + "k" * 2_000
    assert changed_spans(line, "k" * 4_001) == [((2_000, 2_001), (2_000, 2_001))]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("abcdef", "abcXdef", [((2, 4), (2, 5))]),  # `new` has more: both neighbours
        ("Xabc", "abc", [((0, 2), (0, 1))]),
        ("abc", "abcX", [((2, 3), (2, 4))]),
        ("", "abc", [((0, 0), (0, 3))]),
    ],
)
def test_a_place_where_one_line_has_more_takes_in_the_characters_beside_it(old, new, expected):
    assert changed_spans(old, new) == expected


edits = st.lists(
    st.tuples(
        st.integers(0, 10_000),
        st.sampled_from(["replace", "insert", "delete"]),
        st.text("xy;= Z", min_size=1, max_size=3),
    ),
    max_size=6,
)


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(base=st.text("xyz;= .", min_size=0, max_size=3_000), changes=edits)
def test_outside_the_spans_the_two_lines_read_the_same(base, changes):
    text = base
    for at, how, piece in changes:
        at = at % (len(text) + 1)
        if how == "insert":
            text = text[:at] + piece + text[at:]
        elif how == "replace":
            text = text[:at] + piece + text[at + len(piece) :]
        else:
            text = text[:at] + text[at + len(piece) :]
    for old, new in ((text, base), (base, text)):
        pairs = changed_spans(old, new)
        assert (pairs == []) == (old == new)
        for line, spans in ((old, [one for one, _ in pairs]), (new, [two for _, two in pairs])):
            assert all(0 <= start <= end <= len(line) for start, end in spans)
            assert all(start < end for start, end in spans) or not line
            assert all(end < start for (_, end), (start, _) in zip(spans, spans[1:], strict=False))
        old_pieces = pieces_outside(old, [one for one, _ in pairs])
        assert old_pieces == pieces_outside(new, [two for _, two in pairs]), pairs
