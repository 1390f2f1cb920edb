"""The payload of a transcript's `file_seen` record, written and read back.

Contract: `seen_payload(record)` is what `SessionLog.append_file_seen` writes of a
`tools.seen_roots.SeenRecord`: `{root, root_id: [device, inode], path, fingerprint}`,
`path` relative to `root` (`path_text.path_fields` keeps a name that is not UTF-8).
`read_seen_record(payload)` gives the record back, or None for one that cannot be used
(the file's next write is then asked about as for one never seen): a fingerprint of
other than strings and whole numbers, a `root` that is not absolute, or a `path` that is
absolute, empty or climbs with `..`. A record without `root` was written before records
were rooted: its `path` must be absolute. A `root_id` that is not two whole numbers is
read as unknown (the root is then matched by its path alone, `seen_roots.is_same_root`).

Why: a record of an absolute path matched nothing once the project folder was moved, so
a resume there let the model's stale write replace the user's edit (`seen_roots`).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from agent_cli.store.path_text import path_fields, read_path
from agent_cli.tools.seen_files import Fingerprint
from agent_cli.tools.seen_roots import SeenRecord, SeenRoot


def seen_payload(record: SeenRecord) -> dict[str, Any]:
    """The `file_seen` payload of `record` (module contract)."""
    payload: dict[str, Any] = {}
    if record.root is not None:
        payload.update(path_fields("root", str(record.root.path)))
        if record.root.identity is not None:
            payload["root_id"] = list(record.root.identity)
    payload.update(path_fields("path", str(record.path)))
    payload["fingerprint"] = list(record.fingerprint)
    return payload


def read_seen_record(payload: dict[str, Any]) -> SeenRecord | None:
    """The record `payload` holds, or None when it cannot be used (module contract)."""
    path, fingerprint = read_path(payload, "path"), _fingerprint(payload.get("fingerprint"))
    if path is None or fingerprint is None:
        return None
    root = read_path(payload, "root")
    if root is None:
        return SeenRecord(Path(path), fingerprint) if Path(path).is_absolute() else None
    relative = PurePosixPath(path)
    if not Path(root).is_absolute() or relative.is_absolute() or _is_not_below(relative):
        return None
    seen_root = SeenRoot(Path(root), _identity(payload.get("root_id")))
    return SeenRecord(Path(path), fingerprint, seen_root)


def _is_not_below(relative: PurePosixPath) -> bool:
    return not relative.parts or ".." in relative.parts


def _fingerprint(value: object) -> Fingerprint | None:
    if not isinstance(value, list) or not value:
        return None
    if not all(type(part) in (str, int) for part in value):
        return None
    return tuple(value)


def _identity(value: object) -> tuple[int, int] | None:
    if not isinstance(value, list) or len(value) != 2:
        return None
    if not all(type(part) is int for part in value):
        return None
    return value[0], value[1]
