"""Reading a workspace file as text (`tools/text_source.py`): read_file's one rule for
what is text and how it decodes, and the readers behind edit_file and the approval diff,
what each accepts and refuses, over real files."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from agent_cli.errors import ToolError, WorkspaceEscape
from agent_cli.tools.approval import MAX_DIFF_SOURCE_BYTES, read_text_for_diff
from agent_cli.tools.text_source import (
    BINARY_SNIFF_BYTES,
    UTF8,
    ShownText,
    read_shown_text,
    read_text_source,
    text_codec,
)
from agent_cli.tools.workspace import Workspace

CAP = 100


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "plain.txt").write_text("one\ntwo\n")
    (root / "latin1.txt").write_bytes(b"caf\xe9\n")
    (root / "head_nul.bin").write_bytes(b"\x00\x01binary")
    (root / "late_nul.txt").write_bytes(b"a" * 9000 + b"\x00tail")
    (root / "big.txt").write_bytes(b"x" * (CAP + 1))
    (tmp_path / "outside.txt").write_text("secret\n")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    return Workspace(root)


def read(workspace: Workspace, name: str, max_bytes: int = CAP) -> str:
    return read_text_source(workspace, workspace.root / name, name, max_bytes)


def shown(workspace: Workspace, name: str, max_bytes: int = CAP) -> ShownText:
    return read_shown_text(workspace, workspace.root / name, name, max_bytes)


def test_both_readers_read_plain_text_and_refuse_what_is_too_big_or_binary(workspace):
    assert read(workspace, "plain.txt") == "one\ntwo\n"
    assert shown(workspace, "plain.txt") == ShownText("one\ntwo\n", UTF8)
    for reader in (read, shown):
        with pytest.raises(ToolError, match="over the 100 B read cap"):
            reader(workspace, "big.txt")
        with pytest.raises(ToolError, match="looks like a binary file"):
            reader(workspace, "head_nul.bin")
        with pytest.raises(WorkspaceEscape):
            reader(workspace, "link.txt")
        with pytest.raises(ToolError, match="No such file"):
            reader(workspace, "missing.txt")


def test_editing_needs_exact_utf8_while_showing_keeps_what_does_not_decode(workspace):
    """A diff must show a write that drops a byte that is not UTF-8 (the tenth attack's
    Latin-1 file lost its accents under a diff that showed the line unchanged): the byte
    is kept as `surrogateescape` decodes it, never replaced."""
    with pytest.raises(ToolError, match="not valid UTF-8"):
        read(workspace, "latin1.txt")
    assert shown(workspace, "latin1.txt").text == "caf\udce9\n"


def test_a_nul_past_the_head_is_text_to_both_readers_as_read_file_shows_it(workspace):
    """read_file judges binary by a NUL in the first 8 KB; the diff once called a later
    NUL binary and showed the user nothing of the file a write replaced."""
    assert read(workspace, "late_nul.txt", max_bytes=20_000).endswith("\x00tail")
    assert shown(workspace, "late_nul.txt", max_bytes=20_000).text.endswith("\x00tail")


def test_a_utf16_file_is_shown_decoded_with_its_codec_and_refused_for_editing(workspace):
    root = workspace.root
    (root / "le.txt").write_bytes(codecs.BOM_UTF16_LE + "a\r\n中文\r\n".encode("utf-16-le"))
    (root / "be.txt").write_bytes(codecs.BOM_UTF16_BE + "a\n".encode("utf-16-be"))
    (root / "odd.txt").write_bytes(codecs.BOM_UTF16_LE + "ab".encode("utf-16-le") + b"c")
    assert shown(workspace, "le.txt") == ShownText("a\r\n中文\r\n", "UTF-16LE")
    assert shown(workspace, "be.txt") == ShownText("a\n", "UTF-16BE")
    # read_file shows the odd last byte as U+FFFD; the diff keeps it, as U+DC00 + the byte
    assert shown(workspace, "odd.txt") == ShownText("ab\udc63", "UTF-16LE")
    with pytest.raises(ToolError, match="le.txt is UTF-16LE text; edit_file only edits UTF-8"):
        read(workspace, "le.txt")


@pytest.mark.parametrize(
    ("head", "codec"),
    [
        (b"plain text\n", UTF8),
        (b"", UTF8),
        (b"a" * (BINARY_SNIFF_BYTES - 1) + b"\x00", None),
        (b"a" * BINARY_SNIFF_BYTES + b"\x00", UTF8),  # past the head: as read_file
        (codecs.BOM_UTF16_LE + "x".encode("utf-16-le"), "UTF-16LE"),
        (codecs.BOM_UTF16_BE + "x".encode("utf-16-be"), "UTF-16BE"),
        (b"\xef\xbb\xbfwith a UTF-8 mark\n", UTF8),
    ],
)
def test_text_codec_is_read_files_one_rule(head: bytes, codec: str | None):
    assert text_codec(head) == codec


def test_the_approval_diff_reads_through_it_with_its_own_cap(workspace):
    root = workspace.root
    assert read_text_for_diff(workspace, root / "latin1.txt", "latin1.txt") == ShownText(
        "caf\udce9\n", UTF8
    )
    for name in ("head_nul.bin", "link.txt", "missing.txt"):
        assert read_text_for_diff(workspace, root / name, name) is None
    (root / "huge.txt").write_bytes(b"y" * (MAX_DIFF_SOURCE_BYTES + 1))
    assert read_text_for_diff(workspace, root / "huge.txt", "huge.txt") is None
    (root / "huge.txt").write_bytes(b"y" * MAX_DIFF_SOURCE_BYTES)
    assert read_text_for_diff(workspace, root / "huge.txt", "huge.txt") == ShownText(
        "y" * MAX_DIFF_SOURCE_BYTES, UTF8
    )
