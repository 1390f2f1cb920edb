"""Transcript record format: building a record line and checking one read back.

A record is one JSON object on one line:
`{"schema_version": 1, "session_id", "sequence", "event_id": "transcript:<sid>:<seq>",
"recorded_at": ISO-8601-with-zone, "kind", "payload"}`. Sequences start at 1 and have no
gaps. Reading checks every field against what the position in the file says it must be,
so a record that lies about its sequence or event id is caught, not trusted.
"""

from __future__ import annotations

import json
import math
import re
import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from agent_cli.errors import InvalidStoreInput
from agent_cli.store.home_layout import is_reserved_home_name

SCHEMA_VERSION = 1
SESSION_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def is_valid_session_id(session_id: object) -> bool:
    """True when `session_id` is a str in the pointer component grammar (ASCII only)."""
    return (
        isinstance(session_id, str)
        and session_id.isascii()
        and SESSION_ID_PATTERN.fullmatch(session_id) is not None
    )


def is_usable_session_id(session_id: object) -> bool:
    """True when `session_id` fits the grammar and names none of the home's own entries
    (see `home_layout`): only such an id can have a transcript and an artifacts folder."""
    return is_valid_session_id(session_id) and not is_reserved_home_name(str(session_id))


def require_session_id(session_id: object) -> str:
    """Return `session_id` if usable, else raise `InvalidStoreInput` before any path is
    built: reason "bad_grammar", or "reserved_name" for an id that names one of the home's
    own folders or files (`memory`, `Transcripts`, ...)."""
    if not is_valid_session_id(session_id):
        raise InvalidStoreInput("session_id", "bad_grammar")
    if is_reserved_home_name(str(session_id)):
        raise InvalidStoreInput("session_id", "reserved_name")
    return str(session_id)


def build_session_id(now: datetime, random_hex: str | None = None) -> str:
    """A sortable id like `20261202-145601-ab12cd` from a moment and 6 random hex digits."""
    suffix = random_hex if random_hex is not None else secrets.token_hex(3)
    return require_session_id(f"{now:%Y%m%d-%H%M%S}-{suffix}")


def event_id_for(session_id: str, sequence: int) -> str:
    return f"transcript:{session_id}:{sequence}"


def build_record(
    session_id: str, sequence: int, kind: str, payload: Mapping[str, Any], recorded_at: datetime
) -> tuple[dict[str, Any], bytes]:
    """The record dict and its exact line bytes (compact JSON, UTF-8, one trailing newline).

    Raises `InvalidStoreInput` for a naive timestamp, an empty kind, a payload that is not
    a mapping or not plain JSON (NaN and infinities are refused: strict readers reject them).
    """
    if not isinstance(recorded_at, datetime) or recorded_at.utcoffset() is None:
        raise InvalidStoreInput("recorded_at", "needs_time_zone")
    if not isinstance(kind, str) or not kind.strip():
        raise InvalidStoreInput("kind", "empty")
    if not isinstance(payload, Mapping):
        raise InvalidStoreInput("payload", "not_a_mapping")
    record = {
        "schema_version": SCHEMA_VERSION,
        "session_id": session_id,
        "sequence": sequence,
        "event_id": event_id_for(session_id, sequence),
        "recorded_at": recorded_at.isoformat(),
        "kind": kind,
        "payload": dict(payload),
    }
    try:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        line = (text + "\n").encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates: would read back as invalid UTF-8
        raise InvalidStoreInput("payload", "not_utf8") from exc
    except (TypeError, ValueError) as exc:
        raise InvalidStoreInput("payload", "not_json") from exc
    return record, line


class LineUnparsable(ValueError):
    """A line that is not UTF-8 JSON at all (at the end of a file: a torn write)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def parse_line(line: bytes) -> Any:
    """Decode one line (without its newline) as strict UTF-8 JSON (no NaN, no infinity,
    written or read from a number past the float range), or raise `LineUnparsable`."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LineUnparsable("invalid_utf8") from exc
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except ValueError as exc:
        raise LineUnparsable("invalid_json") from exc
    except RecursionError as exc:  # nesting deeper than the parser can follow
        raise LineUnparsable("too_deeply_nested") from exc


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def _finite_float(text: str) -> float:
    """`text` as a float, refusing one past the float range (`1e400` reads as infinity):
    no writer here makes one, and a record holding it (a hand-edited transcript) would
    make every request of the resumed session fail in the SDK's strict JSON encoder."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range {text[:20]}")
    return value


def check_record(record: Any, session_id: str, expected_sequence: int) -> str | None:
    """Return None if `record` is the valid record number `expected_sequence`, else a reason."""
    if not isinstance(record, dict):
        return "not_an_object"
    version = record.get("schema_version")
    if type(version) is not int or version != SCHEMA_VERSION:  # 1.0 and True are not 1
        return "bad_schema_version"
    if record.get("session_id") != session_id:
        return "session_id_mismatch"
    sequence = record.get("sequence")
    if type(sequence) is not int:
        return "bad_sequence"
    if sequence != expected_sequence:
        return "sequence_gap"
    if record.get("event_id") != event_id_for(session_id, sequence):
        return "event_id_mismatch"
    if not _is_zoned_timestamp(record.get("recorded_at")):
        return "bad_recorded_at"
    kind = record.get("kind")
    if not isinstance(kind, str) or not kind.strip():
        return "bad_kind"
    if not isinstance(record.get("payload"), dict):
        return "bad_payload"
    return None


def _is_zoned_timestamp(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return False
    return moment.utcoffset() is not None
