"""Input holding bytes that are not UTF-8: sent with U+FFFD in their place, and said so.

Why: a line typed or piped from a Latin-1 file (`caf\\xe9`), or an argv word, reaches
Python with each bad byte as a lone surrogate (surrogateescape). Such text cannot be
recorded or sent, and the message was dropped with a storage error that blamed the state
folder. Nothing typed may be lost in silence: the message goes out with each such byte
replaced by U+FFFD, and one line names the bytes.

Contract: `replace_undecodable(text)` returns `(text, ())` when `text` encodes as UTF-8,
else the text with every lone surrogate replaced by U+FFFD and the bytes it stood for
(a surrogate that carried no byte counts as 0xFFFD itself). `describe_replaced(bytes_)`
is the one line that says so. `tolerate_undecodable_stdin(stream)`, called once before
anything is read, makes reading `stream` never raise over its bytes (below).
"""

from __future__ import annotations

import codecs
from typing import TextIO

# Decoding handlers that never raise; any other (strict, the default of an encoding set
# with PYTHONIOENCODING) raises UnicodeDecodeError at the first byte it cannot decode.
LENIENT_HANDLERS = frozenset({"surrogateescape", "replace", "ignore", "backslashreplace"})

_ESCAPED_BYTES = range(0xDC80, 0xDD00)
MAX_NAMED_BYTES = 5


def replace_undecodable(text: str) -> tuple[str, tuple[int, ...]]:
    """`text` safe to send, and the bytes replaced; see the module contract."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text, ()
    replaced: list[int] = []
    kept: list[str] = []
    for ch in text:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            replaced.append(code - 0xDC00 if code in _ESCAPED_BYTES else 0xFFFD)
            kept.append("\ufffd")
        else:
            kept.append(ch)
    return "".join(kept), tuple(replaced)


def describe_replaced(replaced: tuple[int, ...]) -> str:
    """`note: 1 byte in this message is not UTF-8 (0xE9); it was sent as U+FFFD (�). ...`"""
    named = ", ".join(f"0x{byte:02X}" for byte in replaced[:MAX_NAMED_BYTES])
    more = ", …" if len(replaced) > MAX_NAMED_BYTES else ""
    count = "1 byte" if len(replaced) == 1 else f"{len(replaced)} bytes"
    verb = "is" if len(replaced) == 1 else "are"
    return (
        f"note: {count} in this message {verb} not UTF-8 ({named}{more}); sent as U+FFFD (\ufffd) "
        "in its place. Save the text as UTF-8 to send it as written."
    )


def tolerate_undecodable_stdin(stream: TextIO | None) -> None:
    """Make reading `stream` (stdin, before anything is read) never raise over its bytes.

    Why: with PYTHONIOENCODING=ascii (or any codec with the strict handler) a piped line
    holding `é` raised UnicodeDecodeError out of the line reader and ended the REPL (and
    `-p -`). A stream declared ASCII is read as UTF-8, as Python's own UTF-8 mode reads
    an ASCII locale: every ASCII byte reads the same, and UTF-8 text as written. Any
    other stream whose handler can raise gets `surrogateescape`: a byte it cannot decode
    arrives as a lone surrogate, which `replace_undecodable` sends as U+FFFD and names.
    A stream without `reconfigure` (a test's StringIO, no stdin at all) is left as it is.
    """
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None:
        return
    if _is_ascii(getattr(stream, "encoding", None)):
        reconfigure(encoding="utf-8", errors="surrogateescape")
    elif getattr(stream, "errors", None) not in LENIENT_HANDLERS:
        reconfigure(errors="surrogateescape")


def _is_ascii(encoding: object) -> bool:
    try:
        return isinstance(encoding, str) and codecs.lookup(encoding).name == "ascii"
    except LookupError:
        return False
