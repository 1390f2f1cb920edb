"""Reading a workspace file as text: the one reader behind edit_file and the approval diff.

Contract: `read_text_source(workspace, path, shown, max_bytes, for_display=False)` opens
the file through the workspace (no link followed on the way), refuses with `ToolError` a
file over `max_bytes` (by its size, and by what is read, in case it grew meanwhile) or
one that looks binary, and returns its text. `check_readable_text` is the size and
binary check that read_file applies too; `utf16_codec` names a UTF-16 file by its
byte-order mark (read_file decodes it; edit_file refuses it by name, not as binary).

The two callers differ only in what they do with the text, and that is what the flag
says. edit_file writes the text back, so it must be exact: strict UTF-8, and binary
means a NUL in the first 8 KB, as read_file judges it. An approval diff only shows it
(`for_display`): a byte that is not UTF-8 is kept as what `surrogateescape` makes of it
(U+DC80..U+DCFF, which the view writes `<byte E9>`), so a diff shows a write that drops
it; and a NUL anywhere means binary, since a diff of binary data tells the user nothing
(the new content is shown instead).
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import BinaryIO

from agent_cli.errors import ToolError
from agent_cli.tools.output import format_size
from agent_cli.tools.workspace import Workspace

BINARY_SNIFF_BYTES = 8192
UTF16_MARKS = {codecs.BOM_UTF16_LE: "UTF-16LE", codecs.BOM_UTF16_BE: "UTF-16BE"}


def utf16_codec(head: bytes) -> str | None:
    """The codec of a file whose first bytes are `head`, when it starts with a UTF-16
    byte-order mark (as Windows tools such as PowerShell's `>` write), else None."""
    for mark, codec in UTF16_MARKS.items():
        if head.startswith(mark):
            return codec
    return None


def read_text_source(
    workspace: Workspace, path: Path, shown: str, max_bytes: int, for_display: bool = False
) -> str:
    """The text of the file at `path`, or a `ToolError` saying why it is not text."""
    with os.fdopen(workspace.open_file(path, shown, os.O_RDONLY), "rb") as handle:
        codec = utf16_codec(handle.read(2))
        if codec is not None and not for_display:
            raise ToolError(
                f"{shown} is {codec} text; edit_file only edits UTF-8 files. Convert it "
                f"first with bash: iconv -f UTF-16 -t UTF-8 {shown} > {shown}.utf8"
            )
        handle.seek(0)
        check_readable_text(handle, shown, max_bytes)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_big(shown, len(data), max_bytes)
    if for_display:
        if b"\x00" in data:
            raise _looks_binary(shown, len(data))
        return data.decode("utf-8", errors="surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolError(
            f"{shown} is not valid UTF-8 text; edit_file only edits text files."
        ) from error


def check_readable_text(handle: BinaryIO, shown: str, max_bytes: int) -> None:
    """Refuse a file over `max_bytes` or with a NUL in its head; leave `handle` at 0."""
    size = check_size(handle, shown, max_bytes)
    if b"\x00" in handle.read(BINARY_SNIFF_BYTES):
        raise _looks_binary(shown, size)
    handle.seek(0)


def check_size(handle: BinaryIO, shown: str, max_bytes: int) -> int:
    """The file's size; a file over `max_bytes` is refused."""
    size = os.fstat(handle.fileno()).st_size
    if size > max_bytes:
        raise _too_big(shown, size, max_bytes)
    return size


def _too_big(shown: str, size: int, max_bytes: int) -> ToolError:
    return ToolError(
        f"{shown} is {format_size(size)}, over the {format_size(max_bytes)} "
        "read cap (grep does not search it either); use bash with grep -n, head or sed "
        "to look at parts of it."
    )


def _looks_binary(shown: str, size: int) -> ToolError:
    return ToolError(
        f"{shown} looks like a binary file ({format_size(size)}); it is not "
        "shown. Use bash (e.g. file, strings | head) to inspect it."
    )
