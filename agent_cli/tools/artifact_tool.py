"""read_artifact: read back a byte range of a tool output that was stored as an artifact.

Contract: only artifacts of the session the toolbox works for are shown; a well-formed
pointer of another session is refused before the store is asked anything (the model of
one session has no business with the tool output of another), with one answer whether
that artifact exists or not, so the refusal tells nothing of it. The range
is at most `ToolLimits.artifact_read_bytes`, so its own result never needs spilling again. A range that would end inside a UTF-8 character ends before it, and
the result says exactly which offset to continue at, so paging never garbles text.

No range gives part of a secret (`ToolContext.secrets`, in any form the toolbox redacts),
even from an artifact that holds one whole (written before the secret was known, or by
an older version): a range that would begin inside an occurrence begins at its start, one
that would end inside it ends before it (or after it, when the occurrence is all the
range would hold), and the bytes read are redacted before they are decoded. The model
chooses the offsets, so it would otherwise choose where the secret is cut, and two
halves are each too short to be recognised.

A pointer that cannot be read, or an offset past the end, is not repeated in the error
(`tools.echo`); a range read names its artifact, which exists.
"""

from __future__ import annotations

from typing import Any

from agent_cli.errors import AgentCliError, SourcePointerError, ToolError
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.sources.pointers import parse_source_pointer
from agent_cli.tools.context import PreparedCall, ToolContext
from agent_cli.tools.echo import free_of_input
from agent_cli.tools.output import ArtifactSink, ToolResult, format_size

FOREIGN_POINTER_MESSAGE = (
    "That pointer names an artifact of another session; read_artifact reads only this "
    "session's artifacts. Use a pointer from a tool result of this session."
)


def prepare_read_artifact(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    pointer = arguments["pointer"].strip()
    if not pointer.startswith("artifact:"):
        raise ToolError(
            "pointer must start with 'artifact:'; copy it exactly from the tool "
            "result that mentioned it."
        )
    is_foreign = bool(context.session_id) and _session_of(pointer) not in (
        None,
        context.session_id,
    )
    offset = arguments.get("offset", 0)
    cap = context.limits.artifact_read_bytes
    limit = min(arguments.get("limit", cap), cap)

    def execute() -> ToolResult:
        if is_foreign:  # before the store is asked: its answer would tell existence
            raise ToolError(FOREIGN_POINTER_MESSAGE)
        return read_artifact_range(context.artifacts, pointer, offset, limit, context.secrets)

    return PreparedCall(f"read {pointer}", execute)


def _session_of(pointer: str) -> str | None:
    """The session a well-formed artifact pointer names; None if it does not parse (the
    store then refuses it with its own reason)."""
    try:
        return parse_source_pointer(pointer).session_id
    except SourcePointerError:
        return None


def read_artifact_range(
    artifacts: ArtifactSink,
    pointer: str,
    offset: int,
    limit: int,
    secrets: SecretForms = NO_SECRETS,
) -> ToolResult:
    """Bytes [offset, offset + limit) of the artifact, decoded, with where to continue;
    moved so that no secret is cut (module contract)."""
    margin = secrets.longest_byte_match  # an occurrence across a bound lies within it
    low = max(0, offset - margin)
    try:
        window = artifacts.read_range(pointer, offset=low, limit=offset - low + limit + 1 + margin)
    except AgentCliError as error:
        said = free_of_input(str(error), (pointer,), "no reason given")
        raise ToolError(
            f"That artifact cannot be read ({type(error).__name__}: {said}). It may be "
            "missing or damaged; check the pointer against the tool result that gave it."
        ) from error
    start = offset - low
    if start >= len(window):
        raise ToolError(
            f"offset is at or past the end of the artifact ({low + len(window):,} bytes); use "
            "a smaller offset."
        )
    end = start + limit
    if len(window) > end:
        end = start + len(_trim_partial_character(window[start:end]))
    else:
        end = len(window)
    start, end = _bounds_around_secrets(window, start, end, secrets)
    has_more = end < len(window)
    data, _ = secrets.redact_bytes(window[start:end])
    header = f"Artifact {pointer} (bytes {low + start}-{low + end - 1})"
    body = data.decode("utf-8", errors="replace")
    body += (
        f"\n[more follows; continue with offset={low + end}]" if has_more else "\n[end of artifact]"
    )
    return ToolResult(header, body, summary=f"read {format_size(end - start)} of artifact")


def _bounds_around_secrets(
    data: bytes, start: int, end: int, secrets: SecretForms
) -> tuple[int, int]:
    """`start` moved back to the start of any occurrence it falls inside, `end` back
    before any it falls inside (or past them, when nothing would be left)."""
    start = _back_out_of(data, start, secrets)
    moved = _back_out_of(data, end, secrets)
    if moved > start:
        return start, moved
    while (after := _past(data, end, secrets)) > end:
        end = after
    return start, end


def _back_out_of(data: bytes, position: int, secrets: SecretForms) -> int:
    """`position`, moved back until no occurrence has it strictly inside."""
    while True:
        low = position - secrets.longest_byte_match
        starts = [s for s, e in secrets.byte_occurrences(data, low, position) if e > position]
        if not starts:
            return position
        position = min(starts)


def _past(data: bytes, position: int, secrets: SecretForms) -> int:
    """The end of the occurrences `position` falls strictly inside (`position` if none)."""
    low = position - secrets.longest_byte_match
    ends = [e for s, e in secrets.byte_occurrences(data, low, position) if e > position]
    return max(ends, default=position)


def _trim_partial_character(data: bytes) -> bytes:
    """`data` without a trailing, incomplete UTF-8 sequence (if any)."""
    start = len(data) - 1
    while start > 0 and len(data) - start < 4 and data[start] & 0xC0 == 0x80:
        start -= 1
    lead = data[start]
    expected = 1 if lead < 0x80 else 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4
    is_incomplete = lead >= 0xC0 and start + expected > len(data)
    return data[:start] if is_incomplete and start > 0 else data
