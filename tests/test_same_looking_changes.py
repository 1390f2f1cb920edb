"""A change into characters drawn alike is written out wherever a hunk makes it.

Found by the twenty-second outside tester: the same-looking rule paired only lines equal
in full after NFC, so at 40 columns `BACKUP_DIR=/srv/café  # v1` edited into `.../cafe`
+ U+0301 `  # v2` showed two lines that differ only in `v1`/`v2`, and `y` wrote the
decomposed path; a swap of `café` and `cafe` + U+0301 across a context line showed
`+café`, ` café`, `-café` (no change to the eye), and ANGSTROM SIGN U+212B for `Å`
beside a visible change went unseen. `bash("rm -rf ~/и" + U+0306)` drew `й`, and the
question's `[a] always for café.sh` drew the name plainly where the header wrote its mark
out. Each view below is the one the REPL prints (`shown_by_asker`).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from hostile_support import fuzz_settings
from hypothesis import assume, given
from hypothesis import strategies as st
from test_repl_approval_view_lookalikes import SAME_LOOKING_WORDS, shown_by_asker

from agent_cli.combining_marks import written_out_marks
from agent_cli.repl.approval_question import build_question
from agent_cli.same_looking_lines import same_looking_changes
from agent_cli.tools.approval import (
    build_command_approval,
    build_content_approval,
    build_diff_approval,
)
from agent_cli.tools.approval_scope import file_target
from agent_cli.tools.permissions import PermissionRequest


def edit(old: str, new: str, width: int = 40) -> str:
    request = PermissionRequest("edit_file", "edit f.sh", build_diff_approval(old, new, "f.sh"))
    plain, _ = shown_by_asker(request, width)
    return plain


def header_of(plain: str) -> str:
    rows = [row for row in plain.splitlines() if row.startswith(("permission", "  ↳ "))]
    return " ".join(row.removeprefix("  ↳ ") for row in rows)


def test_a_decomposed_letter_beside_a_visible_change_is_written_out_on_both_lines():
    plain = edit("BACKUP_DIR=/srv/caf\u00e9  # v1\n", "BACKUP_DIR=/srv/cafe\u0301  # v2\n", 80)
    assert "-BACKUP_DIR=/srv/caf<U+00E9>  # v1" in plain
    assert "+BACKUP_DIR=/srv/cafe<U+0301>  # v2" in plain
    assert SAME_LOOKING_WORDS in header_of(plain)


def test_a_swap_of_two_spellings_across_a_context_line_is_written_out():
    plain = edit("caf\u00e9\ncafe\u0301\n", "cafe\u0301\ncaf\u00e9\n")
    rows = [row.split("│ ", 1)[1] for row in plain.splitlines() if row[:1].isdigit()][3:]
    assert rows == ["+cafe<U+0301>", " caf<U+00E9>", "-cafe<U+0301>"]


def test_the_first_of_two_equal_lines_decomposed_is_written_out_across_the_context():
    plain = edit("caf\u00e9\ncaf\u00e9\n", "cafe\u0301\ncaf\u00e9\n")
    assert "+cafe<U+0301>" in plain and "-caf<U+00E9>" in plain


def test_an_angstrom_sign_for_a_ring_a_beside_a_visible_change_is_written_out():
    plain = edit("size=\u00c5 1\n", "size=\u212b 2\n")
    assert "-size=<U+00C5> 1" in plain and "+size=<U+212B> 2" in plain


def test_a_decomposed_letter_between_two_visible_changes_is_written_out():
    plain = edit("a1 caf\u00e9 b2\n", "a3 cafe\u0301 b4\n")
    assert "-a1 caf<U+00E9> b2" in plain and "+a3 cafe<U+0301> b4" in plain


def test_a_decomposed_line_moved_and_changed_across_context_is_written_out():
    plain = edit("x\ncaf\u00e9 1\n", "cafe\u0301 2\nx\n")
    assert "+cafe<U+0301> 2" in plain and "-caf<U+00E9> 1" in plain


def test_an_ordinary_accented_edit_is_not_written_out():
    plain = edit("name = caf\u00e9\nnaïve\n", "name = caf\u00e9!\nnaïve ok\n")
    assert "+name = caf\u00e9!" in plain and "<U+" not in plain
    assert SAME_LOOKING_WORDS not in header_of(plain)


def test_an_edit_between_two_cell_and_ascii_signs_is_drawn_not_written_out():
    """A terminal draws `：` (U+FF1A, a look-alike of `:`) and `Ａ` in two cells: a change
    to or from them shows, and a file of Chinese punctuation edited whole is drawn as it
    is (and read once, not pair by pair: a 200,000-line rewrite took 2.8 s before its
    question, 0.5 s now)."""
    plain = edit("第1行，内容：旧\nkey: A\n", "第1行，内容:新\nkey： Ａ\n", 80)
    assert "+第1行，内容:新" in plain and "+key： Ａ" in plain and "<U+" not in plain
    assert SAME_LOOKING_WORDS not in header_of(plain)


def test_unchanged_mixed_spellings_on_a_changed_line_are_not_written_out():
    """Both spellings stand on both lines, unchanged: only `x` becomes `y`."""
    plain = edit("caf\u00e9 cafe\u0301 x\n", "caf\u00e9 cafe\u0301 y\n", 80)
    assert "<U+" not in plain and "+caf\u00e9 cafe\u0301 y" in plain


def test_a_cyrillic_letter_built_from_a_mark_is_written_out_in_a_command():
    command = "rm -rf ~/\u0438\u0306"
    plain, _ = shown_by_asker(PermissionRequest("bash", command, build_command_approval(command)))
    assert "1 │ rm -rf ~/\u0438<U+0306>" in plain


def test_greek_built_from_a_mark_is_written_out_in_a_command_but_drawn_in_a_file():
    assert written_out_marks("cat \u03b1\u0301.txt", in_command=True) == {5}
    assert written_out_marks("\u03b1\u0301 \u0438\u0306", in_command=False) == frozenset()


def test_the_question_writes_out_what_the_header_marks_in_a_name():
    for name, shown in (
        ("cafe\u0301.sh", "always for cafe<U+0301>.sh"),
        ("\u0261it/hooks/pre-commit", "always for <U+0261>it/hooks/pre-commit"),
        ("caf\u00e9.sh", "always for caf\u00e9.sh"),
    ):
        target = file_target(Path("/ws") / name, name)
        request = PermissionRequest(
            "write_file", f"create {name}", build_content_approval("a\n"), target
        )
        assert shown in build_question(request, None, 60)


@fuzz_settings(0.5)
@given(
    st.lists(
        st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=12),
        min_size=1,
        max_size=5,
    ),
    st.data(),
)
def test_any_line_respelled_canonically_shows_a_difference(lines, data):
    """Any text, one line with one character replaced by a canonically equivalent
    sequence: the view never draws the two texts alike."""
    spellings = [
        (line, at, form)
        for index, line in enumerate(lines)
        for at, character in enumerate(line)
        for form in {
            unicodedata.normalize("NFD", character),
            unicodedata.normalize("NFC", character),
        }
        if form != character
    ]
    assume(spellings)
    line, at, form = data.draw(st.sampled_from(spellings))
    index = lines.index(line)
    changed = [*lines[:index], line[:at] + form + line[at + 1 :], *lines[index + 1 :]]
    old, new = "\n".join(lines) + "\n", "\n".join(changed) + "\n"
    diff = build_diff_approval(old, new, "f").text.split("\n")
    written = same_looking_changes(diff)
    assert any(
        diff[row][position] in (character for character in form + line[at])
        for row, positions in written.items()
        for position in positions
    ), (old, new)
