"""Source pointers: parse them (pure), and re-verify them against the stores (I/O).

Pure: `pointers` (the grammar, parsing and formatting) and `resolution` (the five
statuses of a re-verified pointer). I/O: `resolver` (`SourcePointerResolver`, the public
face re-exported here), `files` (opening beneath a trusted root without following
links), `index` (transcript offsets), `transcript_check` and `artifact_check` (verifying
one record or artifact). `from agent_cli.sources import ...` is the supported way in.
"""

from __future__ import annotations

from agent_cli.sources.resolver import *  # noqa: F403 - the public face, named by its __all__
from agent_cli.sources.resolver import __all__ as _public_names

__all__ = list(_public_names)
