"""Verify an `artifact:<session>:<file>:<digest>` pointer by hashing the file as a stream.

Contract: the file `<root>/<session>/tool-results/<file>` is opened without following
links, read in fixed chunks (never whole), hashed and decoded as UTF-8 incrementally.
The sha256 must start with the pointer's digest ("digest_mismatch" otherwise: corrupt).
Only the first `excerpt_chars + 1` decoded characters are kept, to show a bounded excerpt.
Bytes that are not valid UTF-8 whose digest checks out are a binary artifact stored as
given (an MCP image, audio, a blob): its text is what it is (`binary_artifacts`: an
image's type, bytes and pixel size), never its bytes: its first
`binary_artifacts.HEAD_BYTES` bytes are read again (from the same open file) to say so.
"""

from __future__ import annotations

import codecs
import hashlib
import os

from agent_cli.nofollow_open import OpenAt, os_open_at
from agent_cli.sources.binary_artifacts import HEAD_BYTES, describe_binary
from agent_cli.sources.files import (
    CHUNK_BYTES,
    ReadAt,
    check_still_linked,
    corrupt,
    missing,
    open_beneath,
    read_span,
)
from agent_cli.sources.pointers import ParsedSourcePointer
from agent_cli.sources.transcript_check import VerifiedEvidence

TOOL_RESULTS_DIR = "tool-results"


class _StreamCheck:
    """Running sha256, UTF-8 validity and a bounded text prefix over a byte stream."""

    def __init__(self, keep_chars: int) -> None:
        self.digest = hashlib.sha256()
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.is_utf8 = True
        self.keep_chars = keep_chars
        self.kept: list[str] = []
        self.kept_chars = 0

    def feed(self, chunk: bytes, final: bool = False) -> None:
        self.digest.update(chunk)
        if not self.is_utf8:
            return
        try:
            text = self.decoder.decode(chunk, final=final)
        except UnicodeDecodeError:
            self.is_utf8 = False
            return
        if self.kept_chars < self.keep_chars:
            piece = text[: self.keep_chars - self.kept_chars]
            self.kept.append(piece)
            self.kept_chars += len(piece)


def verify_artifact(
    root: str,
    pointer: ParsedSourcePointer,
    read_at: ReadAt,
    excerpt_chars: int,
    open_at: OpenAt = os_open_at,
) -> VerifiedEvidence:
    """Open the artifact safely, stream-hash it and check it against the pointer."""
    assert pointer.filename is not None and pointer.digest is not None
    parts = [pointer.session_id, TOOL_RESULTS_DIR, pointer.filename]
    fd, info = open_beneath(root, parts, open_at)
    try:
        check = _StreamCheck(excerpt_chars + 1)
        offset = 0
        while offset < info.st_size:
            chunk = read_at(fd, min(CHUNK_BYTES, info.st_size - offset), offset)
            if not chunk:
                raise missing("vanished")
            check.feed(chunk)
            offset += len(chunk)
        check.feed(b"", final=True)
        # a binary artifact's first bytes, read again (only then) from the same open file
        head = b"" if check.is_utf8 else read_span(fd, 0, min(HEAD_BYTES, offset), read_at)
        check_still_linked(fd)
    finally:
        os.close(fd)
    full = check.digest.hexdigest()
    if not full.startswith(pointer.digest):
        raise corrupt("digest_mismatch")
    if not check.is_utf8:
        return VerifiedEvidence(full, describe_binary(head, offset))
    return VerifiedEvidence(full, "".join(check.kept))
