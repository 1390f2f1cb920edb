"""Source pointers: parse them (pure), and re-verify them against the stores (I/O).

Pure: `pointers` (the grammar, parsing and formatting) and `resolution` (the five
statuses of a re-verified pointer). I/O: `resolver` (`SourcePointerResolver`), `files` (opening beneath a trusted root without following
links), `index` (transcript offsets), `transcript_check` and `artifact_check` (verifying
one record or artifact). `from agent_cli.sources import ...` is the supported way in.

The re-exports are lazy (PEP 562 module `__getattr__`): each public name loads only the
submodule that defines it, on first use. So importing this package, or the pure pointer
parser through it, does not pull the file-reading half in; a pure module (the durable
renderer needs `resolution`) can depend on the parsing half and stay pure.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# Load order, not a re-export: `resolution` needs `agent_cli.durable.text`, and the durable
# package's face imports its renderer, which needs `resolution`. With the durable package
# complete before any submodule here starts, either side can be imported first.
import agent_cli.durable  # noqa: F401

if TYPE_CHECKING:  # what type checkers see of the lazy names in _HOME_OF (`X as X`: exported)
    from agent_cli.errors import (
        SourcePointerError as SourcePointerError,
    )
    from agent_cli.errors import (
        UnknownSourceSchemeError as UnknownSourceSchemeError,
    )
    from agent_cli.sources.pointers import (
        ARTIFACT_SCHEME as ARTIFACT_SCHEME,
    )
    from agent_cli.sources.pointers import (
        TRANSCRIPT_SCHEME as TRANSCRIPT_SCHEME,
    )
    from agent_cli.sources.pointers import (
        ParsedSourcePointer as ParsedSourcePointer,
    )
    from agent_cli.sources.pointers import (
        format_artifact_pointer as format_artifact_pointer,
    )
    from agent_cli.sources.pointers import (
        format_transcript_pointer as format_transcript_pointer,
    )
    from agent_cli.sources.pointers import (
        parse_source_pointer as parse_source_pointer,
    )
    from agent_cli.sources.resolution import (
        SourceResolution as SourceResolution,
    )
    from agent_cli.sources.resolution import (
        SourceResolutionStatus as SourceResolutionStatus,
    )
    from agent_cli.sources.resolver import (
        SourcePointerResolver as SourcePointerResolver,
    )
    from agent_cli.sources.resolver import (
        resolve_durable_sources as resolve_durable_sources,
    )
    from agent_cli.sources.transcript_check import (
        MAX_RECORD_BYTES as MAX_RECORD_BYTES,
    )

_HOME_OF: dict[str, str] = {
    "ARTIFACT_SCHEME": "agent_cli.sources.pointers",
    "TRANSCRIPT_SCHEME": "agent_cli.sources.pointers",
    "ParsedSourcePointer": "agent_cli.sources.pointers",
    "format_artifact_pointer": "agent_cli.sources.pointers",
    "format_transcript_pointer": "agent_cli.sources.pointers",
    "parse_source_pointer": "agent_cli.sources.pointers",
    "SourcePointerError": "agent_cli.errors",
    "UnknownSourceSchemeError": "agent_cli.errors",
    "SourceResolution": "agent_cli.sources.resolution",
    "SourceResolutionStatus": "agent_cli.sources.resolution",
    "MAX_RECORD_BYTES": "agent_cli.sources.transcript_check",
    "SourcePointerResolver": "agent_cli.sources.resolver",
    "resolve_durable_sources": "agent_cli.sources.resolver",
}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> object:
    """Load a public name from its home module on first access, then cache it here."""
    home = _HOME_OF.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME_OF))
