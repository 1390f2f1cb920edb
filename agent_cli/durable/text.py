"""Value checks shared by the durable-state types: text, ids, timestamps, scores, ranks,
evidence digests.

Contract: every check either returns the normalised value or raises `DurableStateError`
naming the field and a short reason code. Text is normalised once, at construction, so
the rendered durable block can rely on it: no character that any line splitter treats
as a line break (``\\n``, ``\\r``, ``\\v``, ``\\f``, U+0085, U+2028, U+2029, the C0/C1
controls) survives, and runs of whitespace become one space. Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import datetime

from agent_cli.errors import DurableStateError

# ISO-8601 date, a `T` or space, a time, then a zone (its absence is reported on its own). `datetime.fromisoformat`
# alone is too lenient (it accepts any separator, even a newline), so the shape is checked
# first with ASCII-only classes, then the values are checked by parsing.
_TIMESTAMP_SHAPE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]{1,6})?)?"
    r"(Z|[+-][0-9]{2}(:?[0-9]{2}(:[0-9]{2}([.][0-9]{1,6})?)?)?)?"
)
_FOLDED_CATEGORIES = frozenset({"Cc", "Zl", "Zp", "Zs"})
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def _fold_char(ch: str) -> str:
    category = unicodedata.category(ch)
    if ch.isspace() or category in _FOLDED_CATEGORIES:
        return " "
    if category == "Cs":
        # A lone surrogate cannot be encoded for the wire; keep a visible stand-in.
        return "\ufffd"
    return ch


def normalize_text(text: str) -> str:
    """Fold every whitespace or control character run into one space and trim the ends."""
    # Printable text holds no control, separator or surrogate character but the plain
    # space, so only the per-character pass is needed for the rest.
    folded = text if text.isprintable() else "".join(_fold_char(ch) for ch in text)
    return " ".join(part for part in folded.split(" ") if part)


def require_text(field: str, value: object) -> str:
    """A non-empty piece of text after normalisation; `None` and non-strings are refused."""
    if value is None:
        raise DurableStateError(field, "none")
    if not isinstance(value, str):
        raise DurableStateError(field, "not_text")
    text = normalize_text(value)
    if not text:
        raise DurableStateError(field, "empty")
    return text


def require_optional_text(field: str, value: object) -> str | None:
    """Like `require_text`, but `None` means "absent" and is kept as `None`."""
    return None if value is None else require_text(field, value)


def require_optional_sha256(field: str, value: object) -> str | None:
    """A full sha256 in lower-case hex, or `None` ("not recorded": items saved before
    hashes were kept, or whose source could not be read when they were made)."""
    if value is None:
        return None
    if not isinstance(value, str) or not _SHA256_HEX.fullmatch(value):
        raise DurableStateError(field, "not_a_sha256")
    return value


def parse_timestamp(field: str, value: object) -> datetime:
    """Parse an ISO-8601 timestamp that carries a time zone; naive or odd shapes are refused."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        if not _TIMESTAMP_SHAPE.fullmatch(value):
            raise DurableStateError(field, "not_iso8601")
        try:
            moment = datetime.fromisoformat(value)
        except ValueError as exc:
            raise DurableStateError(field, "not_iso8601") from exc
    elif value is None:
        raise DurableStateError(field, "none")
    else:
        raise DurableStateError(field, "not_text")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise DurableStateError(field, "no_time_zone")
    return moment


def require_timestamp(field: str, value: object) -> str:
    """An ISO-8601 string with a zone; an aware `datetime` is accepted and written out."""
    moment = parse_timestamp(field, value)
    return moment.isoformat() if isinstance(value, datetime) else str(value)


def require_score(field: str, value: object) -> float:
    """A finite number in [0, 1]; booleans are not numbers here."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DurableStateError(field, "not_a_number")
    score = float(value)
    if not math.isfinite(score):
        raise DurableStateError(field, "not_finite")
    if not 0.0 <= score <= 1.0:
        raise DurableStateError(field, "out_of_range")
    return score


def require_rank(field: str, value: object) -> int:
    """A positive integer; booleans and floats are refused rather than rounded."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise DurableStateError(field, "not_an_integer")
    if value < 1:
        raise DurableStateError(field, "not_positive")
    return value
