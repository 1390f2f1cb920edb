"""How a pointer reads on screen, and the form of it that still resolves.

Contract: an artifact pointer (`artifact:<session>:<file>:<digest>`) names its file by the
start of the same sha256 its digest gives, so written out it says one hash twice, in
about 130 characters nobody reads. `shorten_artifact_pointer` is the shortest form that
still resolves (the 12-hex digest the pointer format accepts): the key the REPL numbers
pointers by and what `/expand <number>` expands. `show_pointer` is what a person reads
where the REPL numbers pointers: `artifact 990df1b5…` (the start of the file's name,
enough to tell two apart), always followed by its `(/expand N)`. Every other pointer (a
`transcript:` one is short and says where it points) and any other text is shown as it
is. The full pointer stays in what the model sees and in the transcript: only the screen
changes.
"""

from __future__ import annotations

import re

_FULL_DIGEST = re.compile(r"[0-9a-f]{64}")
SHORT_DIGEST_LENGTH = 12  # the shortest sha256 prefix a pointer may carry
SHOWN_NAME_LENGTH = 8  # hex characters of the file's name that tell artifacts apart


def shorten_artifact_pointer(pointer: str) -> str:
    """`pointer` with the shortest digest the pointer format accepts (it still resolves
    to the same verified file); other text is returned unchanged."""
    scheme, _, rest = pointer.partition(":")
    head, _, digest = rest.rpartition(":")
    if scheme != "artifact" or not head or not _FULL_DIGEST.fullmatch(digest):
        return pointer
    return f"artifact:{head}:{digest[:SHORT_DIGEST_LENGTH]}"


def show_pointer(pointer: str) -> str:
    """`pointer` as a person reads it beside its number: `artifact 990df1b5…` for an
    artifact pointer, anything else unchanged."""
    parts = pointer.split(":")
    if len(parts) != 4 or parts[0] != "artifact" or not parts[2]:
        return pointer
    stem = parts[2].split(".", 1)[0] or parts[2]
    if len(stem) <= SHOWN_NAME_LENGTH:
        return f"artifact {stem}"
    return f"artifact {stem[:SHOWN_NAME_LENGTH]}…"
