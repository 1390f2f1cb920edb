"""A long diff line shortened at the question keeps every change in view, or says where.

Session 26 (T2): a 6,000-character line changed `var a=1` -> `2` at its start and
`good.example` -> `evil.example` in its middle; the question showed the first change and
folded the second into `⟨5,704 characters not shown⟩`. A long line moved below a short one
and changed on the way was drawn the same on its `-` and `+` rows, so it read as a pure
move. The oracle reads the printed rows back: shown text and counted gaps, each character
of the line once, and each character that differs either shown or inside a gap that says
some of its characters changed.
"""

from __future__ import annotations

import io
import random
import re

import pytest
from hostile_support import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from agent_cli.changed_spans import MATCHED_CHARS_MAX
from agent_cli.repl.approval_view import CHANGED_GAP_NOTE, build_approval_view
from agent_cli.tools.approval import build_diff_approval
from agent_cli.tools.permissions import PermissionRequest

GAP = re.compile(r" ⟨([\d,]+) (characters not shown(?:, some of them changed)?)⟩ ")


def drawn_lines(old: str, new: str, width: int, height: int = 40) -> dict[str, str]:
    """The diff's body lines as printed, by their number, each line's rows joined and
    the gutter taken off (a `·` drawn for a space at a row's edge read as the space)."""
    diff = build_diff_approval(old, new, "app.min.js")
    view = build_approval_view(
        PermissionRequest("edit_file", "edit app.min.js", diff), width, height
    )
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    for line in view.lines:
        console.print(line, overflow="fold")
    lines: dict[str, str] = {}
    number = ""
    for row in console.export_text().rstrip("\n").split("\n"):
        found = re.match(r"^ *([0-9-]*) ([│┆]) (.*)$", row)
        assert found, row
        if found.group(2) == "│":
            number = found.group(1)
            lines[number] = found.group(3)
        else:
            lines[number] += found.group(3)
    return {key: text.replace("·", " ") for key, text in lines.items()}


def read_back(drawn: str) -> list[tuple[int, int, str, str]]:
    """(start, end, how, text) for each part of a drawn line, in the line's own characters
    (its sign first): `shown` with the text drawn, or `gap` or `changed gap`."""
    parts, position, at = [], 0, 0
    for gap in GAP.finditer(drawn):
        shown = drawn[at : gap.start()]
        parts.append((position, position + len(shown), "shown", shown))
        position += len(shown)
        count = int(gap.group(1).replace(",", ""))
        how = "changed gap" if gap.group(2).endswith("changed") else "gap"
        parts.append((position, position + count, how, ""))
        position, at = position + count, gap.end()
    parts.append((position, position + len(drawn) - at, "shown", drawn[at:]))
    return parts


def assert_changes_in_view(drawn: str, line: str, changed_at: list[int]) -> None:
    """`drawn` is `line` behind its sign, each character shown as it is or counted once,
    and each position of `changed_at` shown or in a gap that says it holds changes."""
    parts = read_back(drawn)
    signed = drawn[0] + line
    assert parts[-1][1] == len(signed), drawn
    assert all(text == signed[start:end] for start, end, how, text in parts if how == "shown")
    for at in changed_at:
        how = next(how for start, end, how, _ in parts if start <= at + 1 < end)
        assert how in ("shown", "changed gap"), (at, drawn)


BODY = "var a=1;" + "x" * 3000 + ";url='https://good.example/api';" + "y" * 3000 + ";"


@pytest.mark.parametrize("width", [40, 80, 120, 200])
def test_a_change_at_the_start_does_not_hide_one_in_the_middle(width):
    """T2's t12: both changes are on screen on the `-` and on the `+` line."""
    new = BODY.replace("a=1", "a=2").replace("good", "evil")
    lines = drawn_lines(BODY + "\n", new + "\n", width)
    assert "a=1" in lines["4"] and "good.example" in lines["4"], lines["4"]
    assert "a=2" in lines["5"] and "evil.example" in lines["5"], lines["5"]
    assert CHANGED_GAP_NOTE not in lines["4"] + lines["5"]


def test_a_long_line_moved_and_changed_on_the_way_shows_its_change():
    """T2's t16: the `-` and the `+` line are in blocks of their own; each is read
    against the other, so `good` and `evil` are both on screen."""
    config = "const CONFIG = {" + "'k': 'v', " * 300 + "url: 'https://good.example/api', "
    config += "'k': 'v', " * 300 + "};"
    old = f"{config}\nexport default CONFIG;\n"
    new = f"export default CONFIG;\n{config.replace('good', 'evil')}\n"
    lines = drawn_lines(old, new, 120)
    assert lines["4"].startswith("-const") and "good.example" in lines["4"], lines
    assert lines["6"].startswith("+const") and "evil.example" in lines["6"], lines


def test_a_long_line_moved_unchanged_is_drawn_the_same_on_both_sides():
    config = "const CONFIG = {" + "'k': 'v', " * 600 + "};"
    rest = "a = 1;\nb = 2;\nexport default CONFIG;\n"
    lines = drawn_lines(f"{config}\n{rest}", f"{rest}{config}\n", 120)
    assert lines["4"].startswith("-const") and lines["8"].startswith("+const"), lines
    assert lines["4"][1:] == lines["8"][1:] and "characters not shown⟩" in lines["4"]


def test_changes_past_the_rows_a_line_may_take_are_said_in_its_gap():
    """Twelve changes in a line: those that find no window are in a gap that says so."""
    items = [f"item{index:03d}=" + "z" * 150 + ";" for index in range(40)]
    line = "".join(items)
    new = line
    for index in range(5, 40, 3):
        new = new.replace(f"item{index:03d}", f"itemX{index:02d}")
    lines = drawn_lines(line + "\n", new + "\n", 120)
    changed_at = [at for at, (one, two) in enumerate(zip(line, new, strict=True)) if one != two]
    assert CHANGED_GAP_NOTE in lines["5"]
    assert_changes_in_view(lines["4"], line, changed_at)
    assert_changes_in_view(lines["5"], new, changed_at)


def test_a_line_too_long_to_match_says_that_its_changed_middle_changed():
    """Past `MATCHED_CHARS_MAX` the middle is not matched: from its first difference to
    its last it is counted as changed, never as the same."""
    letters = random.Random(7).choices("abcdefghij;=:/.", k=MATCHED_CHARS_MAX * 2)
    changed_at = [40, MATCHED_CHARS_MAX, MATCHED_CHARS_MAX * 2 - 400]
    old = "".join("Y" if at in changed_at else char for at, char in enumerate(letters))
    lines = drawn_lines(old + "\n", old.replace("Y", "Z") + "\n", 120)
    for number, text in (("4", old), ("5", old.replace("Y", "Z"))):
        assert CHANGED_GAP_NOTE in lines[number]
        assert_changes_in_view(lines[number], text, changed_at)


@pytest.mark.fuzz
@fuzz_settings(0.2)
@given(
    seed=st.integers(0, 2**32),
    length=st.integers(600, 8_000),
    places=st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=12),
    width=st.integers(34, 200),
    height=st.integers(12, 60),
)
def test_every_change_in_a_long_line_is_shown_or_said(seed, length, places, width, height):
    """Any number of one-character changes anywhere in a long line, at any size: each
    is on screen or inside a gap that says some of its characters changed, on the `-`
    and on the `+` line. (A changed character is `Y` before and `Z` after, letters found
    nowhere else, so no match can pair it: the place is a change however it is read.)"""
    letters = random.Random(seed).choices("abcdefghij;=:/.", k=length)
    changed_at = sorted({int(place * length) for place in places})
    old = "".join("Y" if at in changed_at else char for at, char in enumerate(letters))
    new = old.replace("Y", "Z")
    lines = drawn_lines(old + "\n", new + "\n", width, height)
    for number, text in (("4", old), ("5", new)):
        if number in lines:  # (a very small screen may leave one out, counted)
            assert_changes_in_view(lines[number], text, changed_at)
