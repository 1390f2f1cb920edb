"""What the approval view does with whitespace: only lines with nothing but spaces and
tabs are blank, a tab is drawn (`→` up to its stop), and only runs of spaces and tabs 32
columns wide or more are counted instead of drawn.

An indented line is text: a write whose body is indented code must show every line, not
"⋮ 3 blank lines" (a blank test that looked only at the first character would hide it).
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from agent_cli.repl.approval_lines import BLANK_RUN_MIN, style_line
from agent_cli.repl.approval_view import build_approval_view
from agent_cli.tools.approval import (
    ApprovalKind,
    build_command_approval,
    build_content_approval,
    build_diff_approval,
)
from agent_cli.tools.permissions import PermissionRequest

INDENTED = "def main():\n    import shutil\n\tshutil.rmtree('/home')\n    return 0\n"


def shown_body(request: PermissionRequest) -> list[str]:
    """The body rows as printed (header dropped), each without its number gutter."""
    view = build_approval_view(request, 100, 40)
    console = Console(file=io.StringIO(), width=100, record=True, color_system=None)
    for line in view.lines:
        console.print(line, overflow="fold")
    rows = console.export_text().rstrip("\n").split("\n")
    return [row.split("│ ", 1)[1] for row in rows]


def test_indented_lines_of_a_new_file_are_shown_not_counted_as_blank():
    request = PermissionRequest("write_file", "create run.py", build_content_approval(INDENTED))
    body = shown_body(request)
    assert body == [
        "def main():",
        "    import shutil",
        "→       shutil.rmtree('/home')",  # a tab is seen, and takes its room
        "    return 0",
    ]
    assert not any("blank" in row for row in body)
    header = build_approval_view(request, 100, 40).header.plain
    assert "blank" not in header


def test_indented_lines_of_a_command_are_shown_not_counted_as_blank():
    command = 'for f in *; do\n  rm -rf "$f"\n  echo gone\n  sleep 0\ndone'
    body = shown_body(PermissionRequest("bash", command, build_command_approval(command)))
    assert body == command.split("\n")


def test_indented_lines_added_by_an_edit_are_shown_not_counted_as_blank():
    old = "def main():\n    return 0\n"
    new = (
        "def main():\n    import os\n    os.system('rm -rf ~')\n    os.remove('x')\n    return 0\n"
    )
    approval = build_diff_approval(old, new, "run.py")
    body = shown_body(PermissionRequest("edit_file", "edit run.py", approval))
    assert "+    os.system('rm -rf ~')" in body
    assert "+    import os" in body and "+    os.remove('x')" in body
    assert not any("blank" in row for row in body)


@pytest.mark.parametrize("blank", [" ", "\t", "    ", " \t "])
def test_lines_of_only_spaces_or_tabs_are_blank_and_counted(blank: str):
    content = "top\n" + f"{blank}\n" * BLANK_RUN_MIN + "bottom\n"
    body = shown_body(PermissionRequest("write_file", "create f", build_content_approval(content)))
    assert body == ["top", f"⋮ {BLANK_RUN_MIN} blank lines", "bottom"]


def test_a_run_of_31_columns_is_drawn_and_a_run_of_32_is_counted():
    assert style_line("a" + " " * 31 + "b", ApprovalKind.COMMAND).plain == "a" + " " * 31 + "b"
    assert style_line("a" + " " * 32 + "b", ApprovalKind.COMMAND).plain == "a⟨32 spaces⟩b"
    # after "a", four tabs reach column 32 (31 columns), five reach column 40
    four = style_line("a" + "\t" * 4 + "b", ApprovalKind.COMMAND).plain
    assert four == "a→" + " " * 6 + ("→" + " " * 7) * 3 + "b"
    assert style_line("a" + "\t" * 5 + "b", ApprovalKind.COMMAND).plain == "a⟨5 tabs⟩b"
    mixed = " \t" * 4  # each pair reaches the next stop: 31 columns after "a"
    assert style_line(f"a{mixed}b", ApprovalKind.CONTENT).plain.count("→") == 4
    assert style_line(f"a{mixed} b", ApprovalKind.CONTENT).plain == "a⟨4 tabs and 5 spaces⟩b"


def test_a_tab_is_drawn_to_its_stop_wherever_the_line_has_it():
    assert style_line("\tx", ApprovalKind.CONTENT).plain == "→       x"
    assert style_line("abcdefg\tx", ApprovalKind.CONTENT).plain == "abcdefg→x"
    assert style_line("+\tx", ApprovalKind.DIFF).plain == "+→      x"
    assert style_line("<\x1b>\tx", ApprovalKind.CONTENT).plain == "<^[>→   x"  # as shown


def test_the_space_run_threshold_holds_in_the_printed_view():
    command = "echo safe" + " " * 31 + "&& echo near" + " " * 32 + "; rm -rf ~"
    body = shown_body(PermissionRequest("bash", command, build_command_approval(command)))
    assert body == ["echo safe" + " " * 31 + "&& echo near⟨32 spaces⟩; rm -rf ~"]


def printed(request: PermissionRequest, width: int) -> list[str]:
    """Every row of the view printed `width` columns wide, header included."""
    view = build_approval_view(request, width, 40)
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(view.header)
    for line in view.lines:
        console.print(line, overflow="fold")
    return console.export_text().rstrip("\n").split("\n")


def test_spaces_that_end_a_line_are_drawn_and_a_diffs_marker_is_not():
    """Eleventh attack: `echo "cleaning" \\` followed by a space no longer continues the
    line, so the next line runs as a command of its own; the edit that added the space
    showed two identical lines, and a command ending so looked like a continuation."""
    command = 'echo "cleaning up" \\ \nrm -rf victim'
    assert shown_body(PermissionRequest("bash", command, build_command_approval(command))) == [
        'echo "cleaning up" \\·',
        "rm -rf victim",
    ]
    diff = build_diff_approval(
        'echo "x" \\\nrm -rf victim\n\nend\n', 'echo "x" \\ \nrm -rf victim\n\nend  \n', "c.sh"
    )
    body = shown_body(PermissionRequest("edit_file", "edit c.sh", diff))
    assert body[3:] == ['-echo "x" \\', '+echo "x" \\·', " rm -rf victim", " ", "-end", "+end··"]


@pytest.mark.parametrize("width", range(24, 141))
def test_two_commands_that_differ_in_one_space_never_print_alike(width: int):
    """Eleventh attack: the view wrapped at words and dropped the space where it broke,
    so at 120 columns `rm -rf ./b… /` (which also deletes /) and `rm -rf ./b…/` printed
    the same rows. Rows are cut where the cells run out, a space at a cut drawn `·`."""
    folder = "./" + "b" * (width - 6)
    rows = {
        command: printed(PermissionRequest("bash", command, build_command_approval(command)), width)
        for command in (f"rm -rf {folder} /", f"rm -rf {folder}/", f"rm -rf {folder} ")
    }
    assert len({tuple(shown) for shown in rows.values()}) == 3, rows


def test_a_space_on_either_side_of_a_cut_is_drawn():
    from rich.text import Text

    from agent_cli.repl.approval_view import fold_rows

    assert [row.plain for row in fold_rows(Text("abcd efgh"), 4)] == ["abcd", "·efg", "h"]
    assert [row.plain for row in fold_rows(Text("abc defgh"), 4)] == ["abc·", "defg", "h"]
    assert [row.plain for row in fold_rows(Text("ab  cd"), 3)] == ["ab·", "·cd"]


def test_a_row_that_starts_with_a_drawn_space_keeps_its_own_style():
    """Review: the row went on in the mark's style, so a removed line's rest was dim."""
    from rich.text import Text

    from agent_cli.repl.approval_view import fold_rows

    rows = fold_rows(Text("-abc defgh", style="red"), 4)
    assert [row.plain for row in rows] == ["-abc", "·def", "gh"]
    dim = [(span.start, span.end) for span in rows[1].spans if str(span.style) == "dim"]
    assert rows[1].style == "red" and dim == [(0, 1)]
