"""A path in a JSON record, when its name is not UTF-8.

Why: a folder named by bytes that are not UTF-8 (`b'proj\\xe9'`) reaches Python with lone
surrogates (surrogateescape), which a UTF-8 record cannot carry: agent-cli refused to
start in such a folder. The path is kept exactly, in a second field.

Contract: `path_fields(name, path)` is `{name: path}` for a path that encodes as UTF-8
(records are unchanged for every ordinary path); otherwise `{name: shown, name + "_bytes":
hex}`, where `shown` writes the bad bytes as `\\xNN` and `hex` is the path's exact bytes.
`read_path(payload, name)` gives the path back as Python names it (surrogates and all),
None when the payload holds none. `path_key(path)` is a UTF-8-safe text that names the
path (its bad bytes as `\\xNN`), for keys and hashes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any


def path_key(path: str) -> str:
    """`path`, with each byte that is not UTF-8 written `\\xNN`; see the module contract."""
    return os.fsencode(path).decode("utf-8", errors="backslashreplace")


def path_fields(name: str, path: str) -> dict[str, str]:
    """The record fields that keep `path`; see the module contract."""
    shown = path_key(path)
    if shown == path:
        return {name: path}
    return {name: shown, f"{name}_bytes": os.fsencode(path).hex()}


def read_path(payload: Mapping[str, Any], name: str) -> str | None:
    """The path `path_fields(name, ...)` recorded, or None."""
    exact = payload.get(f"{name}_bytes")
    if isinstance(exact, str):
        try:
            return os.fsdecode(bytes.fromhex(exact))
        except ValueError:
            pass  # a damaged field: the shown form is the best there is
    shown = payload.get(name)
    return shown if isinstance(shown, str) else None
