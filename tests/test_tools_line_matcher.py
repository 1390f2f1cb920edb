"""The lines a write's diff pairs: always a true change, on long files without the square.

`LineMatcher` is difflib's matcher where both texts are short, and splits longer ones
(common ends, lines found once on each side, windows). Its answer is checked the way a
user relies on it: the diff's hunks, applied to the old lines, give the new ones, and a
line shown as unchanged is the same on both sides.
"""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_cli.tools import line_matcher
from agent_cli.tools.approval import build_diff_approval
from agent_cli.tools.line_matcher import LineMatcher

# few distinct lines, so that repeats (the hard case for a matcher) are common
LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "e\n", "f\n", "g\n"]), max_size=40)


def rebuilt(old: list[str], new: list[str], matcher: LineMatcher) -> list[str]:
    """`new` made again from `old` by the matcher's opcodes, each equal part checked."""
    made: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
            made += old[i1:i2]
        else:
            made += new[j1:j2]
    return made


def assert_well_formed(old: list[str], new: list[str], matcher: LineMatcher) -> None:
    blocks = matcher.get_matching_blocks()
    assert tuple(blocks[-1]) == (len(old), len(new), 0)
    for (i, j, n), (next_i, next_j, next_n) in zip(blocks, blocks[1:], strict=False):
        assert n > 0 and old[i : i + n] == new[j : j + n]
        assert i + n <= next_i and j + n <= next_j
        assert not next_n or (i + n, j + n) != (next_i, next_j)  # touching blocks are one
    assert rebuilt(old, new, matcher) == new


@given(LINES, LINES)
@settings(max_examples=300, deadline=None)
def test_short_texts_are_matched_as_difflib_matches_them(old, new):
    assert (
        LineMatcher(old, new).get_opcodes() == difflib.SequenceMatcher(None, old, new).get_opcodes()
    )


@given(LINES, LINES, st.integers(1, 6), st.sampled_from([0, 1, 4]))
@settings(max_examples=500, deadline=None)
def test_split_matching_always_describes_a_true_change(old, new, window, anchor_work):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(line_matcher, "DIRECT_CELLS", 0)  # every pair of texts takes the split path
        patch.setattr(line_matcher, "WINDOW_LINES", window)
        patch.setattr(line_matcher, "ANCHOR_WORK_FACTOR", anchor_work)  # 0: windows at once
        assert_well_formed(old, new, LineMatcher(old, new))


def test_anchors_that_each_split_off_one_line_give_way_to_windows_with_a_true_change():
    # each `line k` is unique only once the stretch before it is cut off: counting anchors
    # again for every stretch took 23 s at 40,000 lines (an attack on session 20's matcher)
    old: list[str] = []
    new: list[str] = []
    for k in range(1, 5_001):
        old += [f"line {k + 1:06d}\n", f"line {k:06d}\n"]
        new += ["    pass\n", f"line {k:06d}\n"]
    matcher = LineMatcher(old, new)
    assert_well_formed(old, new, matcher)
    assert sum(size for *_, size in matcher.get_matching_blocks()) >= 4_000


def changed_marks(diff: str) -> int:
    return sum(
        1 for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")
    )


def test_a_long_file_with_every_seventh_line_changed_shows_just_those_lines():
    # difflib alone took 19 s on this file before the question appeared (16th attack)
    old = [f"    x_{i} = compute({i})\n" for i in range(20_000)]
    new = [
        line.replace("compute", "compute2") if i % 7 == 0 else line for i, line in enumerate(old)
    ]
    diff = build_diff_approval("".join(old), "".join(new), "f.py").text
    assert changed_marks(diff) == 2 * len(range(0, 20_000, 7))
    assert "-    x_7 = compute(7)\n+    x_7 = compute2(7)\n" in diff
    assert "\n     x_8 = compute(8)\n" in diff and "\n-    x_8 = " not in diff


def test_a_table_of_repeated_rows_shows_only_its_changed_rows():
    # no line occurs once: the rows are matched in windows, not replaced whole
    rows = [f"{i % 1000},customer {i % 1000}\n" for i in range(60_000)]
    changed = [row.upper() if i % 1000 == 0 else row for i, row in enumerate(rows)]
    diff = build_diff_approval("".join(rows), "".join(changed), "data.csv").text
    assert changed_marks(diff) == 2 * 60
    assert_well_formed(rows, changed, LineMatcher(rows, changed))
