"""Reading a workspace file as text: read_file's rule, and the reader behind edit_file
and the approval diff.

Contract: `text_codec(head)` is the one rule for whether read_file shows a file as text
and how it decodes it, from the file's first `BINARY_SNIFF_BYTES`: a file that starts
with a UTF-16 byte-order mark is that UTF-16 text (its NULs are text; as PowerShell's `>`
and other Windows tools write it), one with a NUL in that head is binary (None), and any
other is UTF-8. read_file, the approval diff, the stale-write guard (`file_state`'s
`is_binary`, which `seen_files` reads) and project instructions all judge by it, so a
file read_file showed is never called binary elsewhere: the guard once let a second
write over a UTF-16 file the user had edited through, calling it binary.
`readable_codec` is that rule with read_file's size check, on an open file.

`read_text_source(workspace, path, shown, max_bytes)` opens the file through the
workspace (no link followed on the way), refuses with `ToolError` a file over
`max_bytes` (by its size, and by what is read, in case it grew meanwhile), one that is
binary, or one that is not exact UTF-8 (edit_file writes the text back; a UTF-16 file is
refused by name), and returns its text. `read_shown_text` (the approval diff) returns
the text as read_file shows it, with its codec, except that each byte that does not
decode is kept as a lone surrogate U+DC00 + the byte (`UNDECODABLE`, which the view writes
`<byte E9>`) where read_file shows U+FFFD, so a diff shows a write that drops it: UTF-8
as `surrogateescape` makes it (U+DC80..U+DCFF), and UTF-16 with both bytes of each code
unit that does not decode (an unpaired surrogate: `<byte 00><byte D8>`) and an odd last
byte (`decode_utf16_kept`): read as U+FFFD, such a line showed as unchanged context
while the write replaced its code unit for good. A NUL past the head is text, as
read_file shows it (the view writes it `^@`).
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from agent_cli.errors import ToolError
from agent_cli.tools.output import format_size
from agent_cli.tools.workspace import Workspace

BINARY_SNIFF_BYTES = 8192
UTF8 = "UTF-8"
UTF16_MARKS = {codecs.BOM_UTF16_LE: "UTF-16LE", codecs.BOM_UTF16_BE: "UTF-16BE"}
# A byte that does not decode, kept in shown text as U+DC00 + the byte (module contract).
UNDECODABLE = range(0xDC00, 0xDD00)
_KEEP_BYTES = "agent_cli.keep_undecodable_bytes"  # the codec error handler registered below


def _utf16_codec(head: bytes) -> str | None:
    """The codec of a file whose first bytes are `head`, when it starts with a UTF-16
    byte-order mark, else None."""
    for mark, codec in UTF16_MARKS.items():
        if head.startswith(mark):
            return codec
    return None


def text_codec(head: bytes) -> str | None:
    """How read_file reads a file whose first bytes are `head` (module contract): its
    UTF-16 codec, `UTF8`, or None for a binary file."""
    codec = _utf16_codec(head)
    if codec is not None:
        return codec
    return None if b"\x00" in head[:BINARY_SNIFF_BYTES] else UTF8


def decode_utf16(data: bytes, codec: str) -> str:
    """The text of a UTF-16 file's bytes `data` as read_file shows it: without its
    byte-order mark, a byte that does not decode (an odd last byte) as U+FFFD."""
    return data[2:].decode(codec, errors="replace")


def decode_utf16_kept(data: bytes, codec: str) -> str:
    """`decode_utf16`, but each byte that does not decode kept as U+DC00 + the byte
    (module contract), so the text tells what read_file shows as U+FFFD apart from a
    U+FFFD written in the file."""
    return data[2:].decode(codec, errors=_KEEP_BYTES)


def _kept_bytes(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler of `decode_utf16_kept`: the bytes that did not decode, each
    as U+DC00 + the byte (`surrogateescape` refuses bytes under 0x80: a code unit
    U+D800 in UTF-16LE is the bytes 00 D8)."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    undecoded = error.object[error.start : error.end]
    return "".join(chr(UNDECODABLE.start + byte) for byte in undecoded), error.end


codecs.register_error(_KEEP_BYTES, _kept_bytes)


@dataclass(frozen=True)
class ShownText:
    """A file's text as read_file shows it, and the codec its bytes are in."""

    text: str
    codec: str


def read_text_source(workspace: Workspace, path: Path, shown: str, max_bytes: int) -> str:
    """The exact UTF-8 text of the file at `path`, or a `ToolError` saying why it is not."""
    with os.fdopen(workspace.open_file(path, shown, os.O_RDONLY), "rb") as handle:
        codec = readable_codec(handle, shown, max_bytes)
        if codec != UTF8:
            raise ToolError(
                f"{shown} is {codec} text; edit_file only edits UTF-8 files. Convert it "
                f"first with bash: iconv -f UTF-16 -t UTF-8 {shown} > {shown}.utf8"
            )
        data = _read_capped(handle, shown, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolError(
            f"{shown} is not valid UTF-8 text; edit_file only edits text files."
        ) from error


def read_shown_text(workspace: Workspace, path: Path, shown: str, max_bytes: int) -> ShownText:
    """The text of the file at `path` as read_file shows it (module contract), or a
    `ToolError` saying why it cannot be shown."""
    with os.fdopen(workspace.open_file(path, shown, os.O_RDONLY), "rb") as handle:
        codec = readable_codec(handle, shown, max_bytes)
        data = _read_capped(handle, shown, max_bytes)
    if codec == UTF8:
        return ShownText(data.decode("utf-8", errors="surrogateescape"), codec)
    return ShownText(decode_utf16_kept(data, codec), codec)


def _read_capped(handle: BinaryIO, shown: str, max_bytes: int) -> bytes:
    """The whole file from `handle`; refused if it grew past `max_bytes` since checked."""
    data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_big(shown, len(data), max_bytes)
    return data


def readable_codec(handle: BinaryIO, shown: str, max_bytes: int) -> str:
    """The codec read_file reads the open file in (`text_codec`); a file over
    `max_bytes` or binary is refused. Leaves `handle` at 0."""
    size = check_size(handle, shown, max_bytes)
    codec = text_codec(handle.read(BINARY_SNIFF_BYTES))
    handle.seek(0)
    if codec is None:
        raise _looks_binary(shown, size)
    return codec


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
