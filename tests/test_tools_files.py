"""read_file, write_file and edit_file on real files in a temporary workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tools_support import make_toolbox


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


# --- read_file ---------------------------------------------------------------------------


def test_read_file_names_the_file_and_numbers_every_line(workspace: Path):
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "mod.py").write_text("import os\n\nprint(os.sep)\n")
    outcome = make_toolbox(workspace).run("read_file", {"path": "pkg/mod.py"})
    lines = outcome.content.splitlines()
    assert not outcome.is_error
    assert lines[0] == "File: pkg/mod.py (lines 1-3 of 3)"
    assert lines[1:] == ["     1\timport os", "     2\t", "     3\tprint(os.sep)"]
    assert outcome.summary == "read 3 lines"
    assert outcome.artifact_pointer is None


def test_read_file_shows_only_the_requested_line_range(workspace: Path):
    (workspace / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    outcome = make_toolbox(workspace).run(
        "read_file", {"path": "n.txt", "start_line": 4, "end_line": 6}
    )
    assert outcome.content.splitlines() == [
        "File: n.txt (lines 4-6 of 10)",
        "     4\tline 4",
        "     5\tline 5",
        "     6\tline 6",
        "[lines 7-10 not shown; continue with start_line=7]",
    ]


def test_read_file_without_a_range_shows_a_window_and_says_how_to_continue(workspace: Path):
    (workspace / "long.txt").write_text("".join(f"{i}\n" for i in range(1, 2501)))
    toolbox = make_toolbox(workspace, artifact_threshold_bytes=1_000_000)
    outcome = toolbox.run("read_file", {"path": "long.txt"})
    assert outcome.content.startswith("File: long.txt (lines 1-2000 of 2500)\n")
    assert outcome.content.endswith("[lines 2001-2500 not shown; continue with start_line=2001]")


def test_read_file_of_an_empty_file_says_it_is_empty(workspace: Path):
    (workspace / "empty.txt").write_bytes(b"")
    outcome = make_toolbox(workspace).run("read_file", {"path": "empty.txt"})
    assert not outcome.is_error
    assert outcome.content == "File: empty.txt (empty file, 0 lines)"


def test_read_file_rejects_an_end_line_before_the_start_line(workspace: Path):
    (workspace / "a.txt").write_text("a\nb\n")
    outcome = make_toolbox(workspace).run(
        "read_file", {"path": "a.txt", "start_line": 2, "end_line": 1}
    )
    assert outcome.is_error
    assert "end_line is before start_line; swap them" in outcome.content


def test_read_file_past_the_end_says_how_many_lines_exist(workspace: Path):
    (workspace / "a.txt").write_text("a\nb\n")
    outcome = make_toolbox(workspace).run("read_file", {"path": "a.txt", "start_line": 9})
    assert outcome.is_error
    assert "start_line is past the end of a.txt, which has 2 lines" in outcome.content


def test_read_file_of_a_missing_file_suggests_list_dir(workspace: Path):
    outcome = make_toolbox(workspace).run("read_file", {"path": "nope.txt"})
    assert outcome.is_error
    assert "No such file" in outcome.content and "nope.txt" not in outcome.content
    assert "list_dir" in outcome.content


def test_read_file_of_a_directory_points_to_list_dir(workspace: Path):
    (workspace / "sub").mkdir()
    outcome = make_toolbox(workspace).run("read_file", {"path": "sub"})
    assert outcome.is_error
    assert "sub is a directory" in outcome.content


def test_read_file_refuses_binary_files(workspace: Path):
    (workspace / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 10)
    outcome = make_toolbox(workspace).run("read_file", {"path": "blob.bin"})
    assert outcome.is_error
    assert "binary" in outcome.content


def test_read_file_replaces_invalid_utf8_says_so_and_drops_carriage_returns(workspace: Path):
    """The note (tenth attack): a model that writes back what it read of a Latin-1 file
    replaces its accents with U+FFFD for good; it is told so, and how to convert it."""
    (workspace / "mixed.txt").write_bytes(b"caf\xe9\r\nok\r\n")
    outcome = make_toolbox(workspace).run("read_file", {"path": "mixed.txt"})
    assert not outcome.is_error
    lines = outcome.content.splitlines()
    assert lines[1:3] == ["     1\tcaf\ufffd", "     2\tok"]
    assert lines[3].startswith("[1 line shown here holds bytes that are not UTF-8")
    assert "write_file would replace those bytes" in lines[3] and "iconv" in lines[3]
    (workspace / "mixed.txt").write_bytes(b"caf\xc3\xa9\nok\n")
    assert (
        "not UTF-8" not in make_toolbox(workspace).run("read_file", {"path": "mixed.txt"}).content
    )


def test_read_file_refuses_a_fifo_instead_of_hanging(workspace: Path):
    os.mkfifo(workspace / "pipe")
    outcome = make_toolbox(workspace).run("read_file", {"path": "pipe"})
    assert outcome.is_error
    assert "not a regular file" in outcome.content


# --- write_file --------------------------------------------------------------------------


def test_write_file_creates_parent_directories_inside_the_workspace(workspace: Path):
    outcome = make_toolbox(workspace).run(
        "write_file", {"path": "a/b/c.txt", "content": "one\ntwo\n"}
    )
    assert not outcome.is_error
    assert (workspace / "a" / "b" / "c.txt").read_text() == "one\ntwo\n"
    assert outcome.content == "Wrote 2 lines (8 B) to a/b/c.txt (new file)."
    assert outcome.summary == "wrote 2 lines"


def test_write_file_overwrites_and_keeps_the_file_mode(workspace: Path):
    target = workspace / "run.sh"
    target.write_text("old\n")
    target.chmod(0o755)
    outcome = make_toolbox(workspace).run("write_file", {"path": "run.sh", "content": "new"})
    assert outcome.content == "Wrote 1 line (3 B) to run.sh (replaced the old content)."
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o755


def test_write_file_leaves_no_temporary_files_behind(workspace: Path):
    make_toolbox(workspace).run("write_file", {"path": "x.txt", "content": "data"})
    assert sorted(p.name for p in workspace.iterdir()) == ["x.txt"]


def test_write_file_onto_a_directory_is_an_error(workspace: Path):
    (workspace / "sub").mkdir()
    outcome = make_toolbox(workspace).run("write_file", {"path": "sub", "content": "x"})
    assert outcome.is_error
    assert "sub is a directory" in outcome.content
    assert (workspace / "sub").is_dir()


def test_write_file_to_the_workspace_root_itself_is_an_error(workspace: Path):
    outcome = make_toolbox(workspace).run("write_file", {"path": ".", "content": "x"})
    assert outcome.is_error
    assert "workspace directory itself" in outcome.content


# --- edit_file ---------------------------------------------------------------------------


def test_edit_file_replaces_the_one_exact_match(workspace: Path):
    (workspace / "m.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "m.py", "old_string": "return 2", "new_string": "return 20"}
    )
    assert not outcome.is_error
    assert (workspace / "m.py").read_text() == (
        "def f():\n    return 1\n\ndef g():\n    return 20\n"
    )
    assert outcome.content == "Edited m.py: replaced 1 line with 1 line at line 5."


def test_edit_file_says_when_the_string_is_not_found(workspace: Path):
    (workspace / "m.py").write_text("x = 1\n")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "m.py", "old_string": "x = 2", "new_string": "x = 3"}
    )
    assert outcome.is_error
    assert "old_string was not found in m.py" in outcome.content
    assert "whitespace" in outcome.content
    assert (workspace / "m.py").read_text() == "x = 1\n"


def test_edit_file_says_how_many_places_match_when_not_unique(workspace: Path):
    (workspace / "m.py").write_text("a = 0\na = 0\na = 0\n")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "m.py", "old_string": "a = 0", "new_string": "a = 1"}
    )
    assert outcome.is_error
    assert "old_string matches 3 places in m.py" in outcome.content
    assert "more surrounding lines" in outcome.content
    assert (workspace / "m.py").read_text() == "a = 0\na = 0\na = 0\n"


def test_edit_file_rejects_an_empty_old_string(workspace: Path):
    (workspace / "m.py").write_text("x\n")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "m.py", "old_string": "", "new_string": "y"}
    )
    assert outcome.is_error
    assert "old_string is empty" in outcome.content


def test_edit_file_rejects_identical_old_and_new_strings(workspace: Path):
    (workspace / "m.py").write_text("x\n")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "m.py", "old_string": "x", "new_string": "x"}
    )
    assert outcome.is_error
    assert "the same" in outcome.content


def test_edit_file_keeps_windows_line_endings(workspace: Path):
    (workspace / "w.txt").write_bytes(b"alpha\r\nbeta\r\n")
    make_toolbox(workspace).run(
        "edit_file", {"path": "w.txt", "old_string": "beta", "new_string": "gamma"}
    )
    assert (workspace / "w.txt").read_bytes() == b"alpha\r\ngamma\r\n"


def test_lines_of_a_crlf_file_as_read_file_shows_them_can_be_edited_and_keep_crlf(
    workspace: Path,
):
    """Twelfth attack: read_file shows CRLF lines without the CR and said nothing, and an
    edit of two lines copied from that read was refused as not found."""
    (workspace / "w.txt").write_bytes(b"first line\r\nsecond line\r\nthird line\r\n")
    toolbox = make_toolbox(workspace)
    read = toolbox.run("read_file", {"path": "w.txt"})
    assert "every line shown here ends with CRLF" in read.content and "\r" not in read.content
    edit = {"old_string": "first line\nsecond line", "new_string": "first line\nSECOND\nmore"}
    outcome = toolbox.run("edit_file", {"path": "w.txt", **edit})
    assert not outcome.is_error, outcome.content
    assert (workspace / "w.txt").read_bytes() == (b"first line\r\nSECOND\r\nmore\r\nthird line\r\n")


def test_read_file_counts_the_crlf_lines_of_a_file_that_mixes_endings(workspace: Path):
    (workspace / "mixed.txt").write_bytes(b"a\r\nb\nc\r\n")
    read = make_toolbox(workspace).run("read_file", {"path": "mixed.txt"})
    assert "2 lines shown here end with CRLF" in read.content
    plain = make_toolbox(workspace).run("read_file", {"path": "mixed.txt", "start_line": 2})
    assert "[1 line shown here ends with CRLF" in plain.content


def test_lines_inserted_into_a_crlf_file_by_matching_one_line_get_crlf(workspace: Path):
    """The review: a one-line old_string was found as written, and the new lines went
    in with LF, taking the CRLF off the matched line too."""
    (workspace / "w.txt").write_bytes(b"a\r\nb\r\n")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "w.txt", "old_string": "a", "new_string": "a\nNEW"}
    )
    assert not outcome.is_error, outcome.content
    assert (workspace / "w.txt").read_bytes() == b"a\r\nNEW\r\nb\r\n"


def test_in_a_file_mixing_endings_places_that_read_alike_both_count(workspace: Path):
    """The review: `x\\ny` matched once as LF and once as CRLF; read_file showed two
    identical places, and the LF one was edited without a word."""
    (workspace / "m.txt").write_bytes(b"x\ny\r\nz\r\nx\r\ny\r\n")
    toolbox = make_toolbox(workspace)
    read = toolbox.run("read_file", {"path": "m.txt"})
    assert "not across both kinds" in read.content
    outcome = toolbox.run("edit_file", {"path": "m.txt", "old_string": "x\ny", "new_string": "q"})
    assert outcome.is_error and "matches 2 places" in outcome.content
    assert (workspace / "m.txt").read_bytes() == b"x\ny\r\nz\r\nx\r\ny\r\n"


def test_an_lf_edit_of_a_crlf_file_that_matches_nothing_is_still_not_found(workspace: Path):
    (workspace / "w.txt").write_bytes(b"alpha\r\nbeta\r\n")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "w.txt", "old_string": "alpha\ngamma", "new_string": "x"}
    )
    assert outcome.is_error and "old_string was not found" in outcome.content
    assert (workspace / "w.txt").read_bytes() == b"alpha\r\nbeta\r\n"


def test_edit_file_refuses_a_file_that_is_not_utf8(workspace: Path):
    (workspace / "latin.txt").write_bytes(b"caf\xe9\n")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "latin.txt", "old_string": "caf", "new_string": "tea"}
    )
    assert outcome.is_error
    assert "not valid UTF-8" in outcome.content
    assert (workspace / "latin.txt").read_bytes() == b"caf\xe9\n"


def test_edit_file_of_a_missing_file_is_an_error(workspace: Path):
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "ghost.py", "old_string": "a", "new_string": "b"}
    )
    assert outcome.is_error
    assert "No such file" in outcome.content and "ghost.py" not in outcome.content
    assert not (workspace / "ghost.py").exists()
