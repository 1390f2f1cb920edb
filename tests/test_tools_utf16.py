"""A file that starts with a UTF-16 byte-order mark (what PowerShell's `>` and many
Windows tools write) is text: read_file shows it decoded, and edit_file refuses it by
name, where both used to call it binary because its ASCII holds NUL bytes."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.tools.context import ToolLimits

TEXT = "first line\r\nsecond line with ü and 日本\r\nthird\r\n"
READ_CAP = ToolLimits().max_read_file_bytes
TOKEN = "sk-live-0123456789abcdefGHIJKL"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.mark.parametrize(
    ("mark", "codec", "name"),
    [
        (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16LE"),
        (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16BE"),
    ],
)
def test_read_file_shows_a_utf16_file_decoded_and_says_it_cannot_be_edited(
    workspace: Path, mark: bytes, codec: str, name: str
) -> None:
    (workspace / "log.txt").write_bytes(mark + TEXT.encode(codec))
    outcome = make_toolbox(workspace).run("read_file", {"path": "log.txt"})
    assert not outcome.is_error, outcome.content
    lines = outcome.content.splitlines()
    assert lines[:4] == [
        "File: log.txt (lines 1-3 of 3)",
        "     1\tfirst line",
        "     2\tsecond line with ü and 日本",
        "     3\tthird",
    ]
    assert f"log.txt is {name} text (it starts with a byte-order mark)" in outcome.content
    assert "every line shown here ends with CRLF" in outcome.content


def test_a_range_of_a_utf16_file_is_read_as_its_lines(workspace: Path) -> None:
    text = "".join(f"row {n}\n" for n in range(1, 51))
    (workspace / "rows.txt").write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    outcome = make_toolbox(workspace).run(
        "read_file", {"path": "rows.txt", "start_line": 40, "end_line": 41}
    )
    assert outcome.content.splitlines()[:4] == [
        "File: rows.txt (lines 40-41 of 50)",
        "    40\trow 40",
        "    41\trow 41",
        "[lines 42-50 not shown; continue with start_line=42]",
    ]


def test_a_secret_in_a_utf16_file_is_hidden(workspace: Path) -> None:
    text = f"name = demo\r\nkey = {TOKEN}\r\n"
    (workspace / "settings.txt").write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    toolbox = make_toolbox(workspace, secret_environment={"SERVICE_API_KEY": TOKEN})
    outcome = toolbox.run("read_file", {"path": "settings.txt"})
    assert not outcome.is_error
    assert TOKEN not in outcome.content and TOKEN[:16] not in outcome.content
    assert "key = [REDACTED" in outcome.content


def test_a_utf16_file_over_the_read_cap_is_refused_by_its_size(workspace: Path) -> None:
    with (workspace / "big.txt").open("wb") as handle:  # sparse: cheap to make
        handle.write(codecs.BOM_UTF16_LE + "x".encode("utf-16-le"))
        handle.truncate(READ_CAP + 2)
    outcome = make_toolbox(workspace).run("read_file", {"path": "big.txt"})
    assert outcome.is_error and "over the 20.0 MB read cap" in outcome.content


def test_edit_file_refuses_a_utf16_file_by_its_encoding_with_the_way_to_convert_it(
    workspace: Path,
) -> None:
    data = codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le")
    (workspace / "log.txt").write_bytes(data)
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "log.txt", "old_string": "third", "new_string": "3rd"}
    )
    assert outcome.is_error
    assert "log.txt is UTF-16LE text; edit_file only edits UTF-8 files" in outcome.content
    assert "iconv -f UTF-16 -t UTF-8" in outcome.content
    assert (workspace / "log.txt").read_bytes() == data
