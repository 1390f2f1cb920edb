"""A file read_file shows as text is text to the stale-write guard and to the question.

Real files and the real toolbox. A UTF-16 file (byte-order mark, as PowerShell writes
it) and a UTF-8 file with a NUL past its first 8 KB are text to read_file; the guard
(`file_state`'s `is_binary`, read by `seen_files`) once called them binary, so its
refusal of a stale write counted as a read and the model's second, identical write
replaced the user's edit; the question said `(binary, 96 B now; not shown)`, and a
UTF-16 file without a NUL showed as `<byte FF><byte FE>` text. One rule now
(`text_source.text_codec`). The same cases on a real terminal: `test_e2e_shown_as_text.py`.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from tools_support import RecordingAsker, make_toolbox

from agent_cli.tools import PermissionDecision
from agent_cli.tools.approval import ApprovalKind
from agent_cli.tools.file_state import read_file_state
from agent_cli.tools.workspace import Workspace

LINES = "line one\r\nline two\r\n"
USERS = "line one\r\nUSER EDIT: keep this line\r\nline two\r\n"
NEW = "line one\nline two\nline three from the model\n"
STALE = "changed since it was last read or written in this session"
LATE_NUL_HEAD = "".join(f"line {n:04d} some ordinary text here\n" for n in range(300))


def utf16le(text: str) -> bytes:
    return codecs.BOM_UTF16_LE + text.encode("utf-16-le")


def utf16be(text: str) -> bytes:
    return codecs.BOM_UTF16_BE + text.encode("utf-16-be")


def late_nul(text: str) -> bytes:
    """`text` after 10 KB of ordinary lines and before a line holding a NUL."""
    return (LATE_NUL_HEAD + text + "tail\x00marker\n").encode()


ENCODINGS = [utf16le, utf16be, late_nul]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def write(toolbox, content: str = NEW):
    return toolbox.run("write_file", {"path": "notes.txt", "content": content})


@pytest.mark.parametrize("encode", ENCODINGS)
def test_a_stale_write_over_a_text_file_read_file_showed_is_refused_every_time(
    workspace: Path, encode
):
    toolbox = make_toolbox(workspace, auto_approve=True)
    target = workspace / "notes.txt"
    target.write_bytes(encode(LINES))
    read = toolbox.run("read_file", {"path": "notes.txt", "start_line": 1, "end_line": 3})
    assert not read.is_error and "binary" not in read.content
    target.write_bytes(encode(USERS))  # the user's editor, between turns
    for _ in range(2):  # the refusal is no read: the same write again is refused too
        refused = write(toolbox)
        assert refused.is_error and STALE in refused.content
        assert "Read it again with read_file" in refused.content
        assert "binary" not in refused.content
    assert target.read_bytes() == encode(USERS)
    assert not toolbox.run("read_file", {"path": "notes.txt"}).is_error
    assert not write(toolbox).is_error  # read again: the write goes through
    assert target.read_text() == NEW


@pytest.mark.parametrize("encode", ENCODINGS)
def test_the_guards_state_calls_binary_only_what_read_file_calls_binary(workspace: Path, encode):
    (workspace / "notes.txt").write_bytes(encode(LINES))
    (workspace / "blob.bin").write_bytes(b"\x7fELF\x00\x01" + b"x" * 20_000)
    held = Workspace(workspace)
    assert not read_file_state(held, workspace / "notes.txt", "notes.txt").is_binary
    assert read_file_state(held, workspace / "blob.bin", "blob.bin").is_binary


def asked_about(workspace: Path, content: str = NEW):
    asker = RecordingAsker(PermissionDecision.DENY)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert write(toolbox, content).is_error  # denied
    (request,) = asker.requests
    return request


@pytest.mark.parametrize(("encode", "codec"), [(utf16le, "UTF-16LE"), (utf16be, "UTF-16BE")])
def test_the_question_diffs_a_utf16_file_as_text_and_says_it_becomes_utf8(
    workspace: Path, encode, codec: str
):
    (workspace / "notes.txt").write_bytes(encode(USERS))
    request = asked_about(workspace)
    approval = request.approval
    assert approval.kind is ApprovalKind.DIFF
    assert approval.text.split("\n")[2:] == [
        "@@ -1,3 +1,3 @@",
        "-line one\r",
        "-USER EDIT: keep this line\r",
        "-line two\r",
        "+line one",
        "+line two",
        "+line three from the model",
    ]
    assert (
        approval.note
        == f"the file is {codec} text with a byte-order mark; the write makes it UTF-8"
    )
    assert "binary" not in request.description and "not shown" not in request.description


def test_a_utf16_file_without_a_nul_is_diffed_decoded_not_as_bytes(workspace: Path):
    (workspace / "notes.txt").write_bytes(utf16le("中文内容第二行文字"))
    assert b"\x00" not in (workspace / "notes.txt").read_bytes()
    approval = asked_about(workspace, "中文内容第二行文字改").approval
    assert approval.kind is ApprovalKind.DIFF
    assert "-中文内容第二行文字" in approval.text.splitlines()
    assert "+中文内容第二行文字改" in approval.text.splitlines()
    assert "\udcff" not in approval.text and "UTF-16LE" in approval.note


def test_the_same_text_in_utf8_is_no_change_in_the_text_but_the_note_says_utf8(workspace: Path):
    (workspace / "notes.txt").write_bytes(utf16le(NEW))
    approval = asked_about(workspace).approval
    assert approval.kind is ApprovalKind.DIFF and approval.text == ""
    assert (
        approval.note
        == "the file is UTF-16LE text with a byte-order mark; the write makes it UTF-8"
    )


def test_the_question_diffs_a_file_with_a_late_nul_as_text(workspace: Path):
    (workspace / "notes.txt").write_bytes(late_nul("USER EDIT: keep this line\n"))
    request = asked_about(workspace, "line 0000 rewritten by the model\n")
    approval = request.approval
    assert approval.kind is ApprovalKind.DIFF and approval.note == ""
    removed = [line for line in approval.text.splitlines() if line.startswith("-")]
    assert "-USER EDIT: keep this line" in removed and "-tail\x00marker" in removed
    assert "binary" not in request.description
