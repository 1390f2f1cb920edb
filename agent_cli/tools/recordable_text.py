"""Tool text made safe to record and send: no lone surrogate survives.

Why: a file name that is not UTF-8 (`b'caf\\xe9.txt'`, from an old archive) comes out of
`os.listdir`, `readlink` and friends with its bad bytes as lone surrogates
(surrogateescape). Such a string cannot be encoded as UTF-8: recording it, sending it or
printing it raised, and one list_dir ended the session.

Contract: `make_recordable(text)` returns `text` unchanged when it encodes as UTF-8;
otherwise each byte that surrogateescape carried (U+DC80..U+DCFF) is written as a visible
`\\xNN` escape (the name stays recognisable, and differs from its UTF-8 look-alike) and any
other lone surrogate becomes U+FFFD. Every tool result passes through it once, in
`tools.output`, before it is recorded.
"""

from __future__ import annotations

_ESCAPED_BYTES = range(0xDC80, 0xDD00)


def make_recordable(text: str) -> str:
    """`text` with every lone surrogate made visible; see the module contract."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_recordable_char(ch) for ch in text)
    return text


def _recordable_char(ch: str) -> str:
    code = ord(ch)
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return ch
