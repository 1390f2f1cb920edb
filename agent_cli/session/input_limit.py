"""The cap on one input: what a single message from the user may weigh.

Why: a 50 MB prompt used to cost 41 s and 2.5 GB before it was blocked by the hard limit
anyway. Anything over `MAX_INPUT_BYTES` (UTF-8) is refused at once with `InputTooLarge`,
before it is recorded or counted; big content belongs in a file the agent reads.
Readers call `read_bounded` so that they never hold much more than the cap either.
"""

from __future__ import annotations

from typing import TextIO

from agent_cli.errors import InputTooLarge

MAX_INPUT_BYTES = 10 * 1024 * 1024


def check_input_size(text: str, source: str, limit: int = MAX_INPUT_BYTES) -> None:
    """Raise `InputTooLarge` when `text` is over `limit` bytes as UTF-8."""
    if len(text) <= limit // 4:  # no character takes more than 4 bytes: surely fine
        return
    size = _utf8_size(text)
    if size > limit:
        raise InputTooLarge(size, limit, source)


def read_bounded(stream: TextIO, source: str, *, line: bool, limit: int = MAX_INPUT_BYTES) -> str:
    """One line (or everything, `line=False`) from `stream`, refusing more than `limit`.

    Over the cap, the rest of that line (or of the stream) is read and dropped in pieces,
    so the next read starts after it, and `InputTooLarge` says how big it was.
    """
    read = stream.readline if line else stream.read
    text = read(limit + 1)
    if len(text) <= limit:
        check_input_size(text, source, limit)
        return text
    size = _utf8_size(text)
    while not (line and text.endswith("\n")):
        text = read(1 << 20)
        if not text:
            break
        size += _utf8_size(text)
    raise InputTooLarge(size, limit, source)


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))
