"""The names the state home keeps for itself, which no session may take.

Contract: artifacts live in `<home>/<session_id>/`, beside the home's own entries
(`transcripts/`, `memory/`, the prompt `history`, `config.toml`). A session id equal to one
of those names would make that entry look like the session's artifacts folder (and
`/sessions delete` remove it), so `is_reserved_home_name` refuses them, in any case
(`Memory` is `memory` on a case-insensitive disk) and with trailing dots (which some file
systems drop). Pure: no file is touched here.
"""

from __future__ import annotations

TRANSCRIPTS_FOLDER = "transcripts"
MEMORY_FOLDER = "memory"
HISTORY_FILE_NAME = "history"
CONFIG_FILE_NAME = "config.toml"

RESERVED_HOME_NAMES = frozenset(
    name.casefold()
    for name in (TRANSCRIPTS_FOLDER, MEMORY_FOLDER, HISTORY_FILE_NAME, CONFIG_FILE_NAME)
)


def is_reserved_home_name(name: str) -> bool:
    """True when `name` would name one of the home's own entries on some file system."""
    return name.rstrip(".").casefold() in RESERVED_HOME_NAMES
