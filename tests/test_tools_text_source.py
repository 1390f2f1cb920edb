"""The one reader of a workspace file as text, behind edit_file and the approval diff:
what each mode accepts and refuses, over real files (`tools/text_source.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli.errors import ToolError, WorkspaceEscape
from agent_cli.tools.approval import MAX_DIFF_SOURCE_BYTES, read_text_for_diff
from agent_cli.tools.text_source import read_text_source
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


def read(workspace: Workspace, name: str, max_bytes: int = CAP, **mode: bool) -> str:
    return read_text_source(workspace, workspace.root / name, name, max_bytes, **mode)


def test_both_modes_read_plain_text_and_refuse_what_is_too_big_or_binary(workspace):
    for mode in ({}, {"for_display": True}):
        assert read(workspace, "plain.txt", **mode) == "one\ntwo\n"
        with pytest.raises(ToolError, match="over the 100 B read cap"):
            read(workspace, "big.txt", **mode)
        with pytest.raises(ToolError, match="looks like a binary file"):
            read(workspace, "head_nul.bin", **mode)
        with pytest.raises(WorkspaceEscape):
            read(workspace, "link.txt", **mode)
        with pytest.raises(ToolError, match="No such file"):
            read(workspace, "missing.txt", **mode)


def test_editing_needs_exact_utf8_while_showing_keeps_what_does_not_decode(workspace):
    """A diff must show a write that drops a byte that is not UTF-8 (the tenth attack's
    Latin-1 file lost its accents under a diff that showed the line unchanged): the byte
    is kept as `surrogateescape` decodes it, never replaced."""
    with pytest.raises(ToolError, match="not valid UTF-8"):
        read(workspace, "latin1.txt")
    assert read(workspace, "latin1.txt", for_display=True) == "caf\udce9\n"


def test_a_nul_past_the_head_is_binary_for_a_diff_but_editable_text(workspace):
    text = read(workspace, "late_nul.txt", max_bytes=20_000)
    assert text.endswith("\x00tail")
    with pytest.raises(ToolError, match="looks like a binary file"):
        read(workspace, "late_nul.txt", max_bytes=20_000, for_display=True)


def test_the_approval_diff_reads_through_it_with_its_own_cap(workspace):
    root = workspace.root
    assert read_text_for_diff(workspace, root / "latin1.txt", "latin1.txt") == "caf\udce9\n"
    for name in ("head_nul.bin", "late_nul.txt", "link.txt", "missing.txt"):
        assert read_text_for_diff(workspace, root / name, name) is None
    (root / "huge.txt").write_bytes(b"y" * (MAX_DIFF_SOURCE_BYTES + 1))
    assert read_text_for_diff(workspace, root / "huge.txt", "huge.txt") is None
    (root / "huge.txt").write_bytes(b"y" * MAX_DIFF_SOURCE_BYTES)
    assert (
        read_text_for_diff(workspace, root / "huge.txt", "huge.txt") == "y" * MAX_DIFF_SOURCE_BYTES
    )
