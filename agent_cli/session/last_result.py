"""The newest tool result a transcript recorded, as the `ToolFinished` `/last` shows.

Why: `/last` showed only what ran in this run of agent-cli, so after `--continue` (or
`/resume`) it said "no tool has run in this session yet" of a session whose last command
was recorded, output and all, when a signal or Ctrl-C ended the run that ran it.

Contract: `read_last_tool_result(records, session_id, secrets)` gives the result of the newest call
in `records` (a transcript's records, oldest first) that ran, or was stopped or refused
once it was asked to run (`call_outcome`: not one that never started, nor one whose
result was never recorded); None when there is none. Its `output` is the recorded text
redacted of `secrets` as a resumed view is (`resumed_secrets`); `artifact_pointer` is the
one the result names where its whole output was stored, and only when it is an artifact of
session `session_id` (a command's own output can end with a line of that shape: it never
makes `/last` read another session's artifact); `summary` says the size, and for
a command its exit code or signal as a live run says it (so `/last` calls a non-zero exit
failed either way).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from agent_cli.errors import SourcePointerError
from agent_cli.events import ToolFinished
from agent_cli.secret_forms import SecretForms
from agent_cli.session.call_outcome import ASKED, NOT_RUN, UNKNOWN, read_call_outcome
from agent_cli.session.catalog import recorded_messages
from agent_cli.sources.pointers import parse_source_pointer
from agent_cli.tools.output import format_size

_NEVER_RAN = frozenset({ASKED, NOT_RUN, UNKNOWN})
# The last line of a result whose whole output is an artifact (`tools.output.build_outcome`)
_STORED_AT = re.compile(r"\n\[Full output: (artifact:[A-Za-z0-9._:-]+)\]\Z")
_STORED_SIZE = re.compile(r"\[Output was ([\d,]+) bytes")
# A command's first line when it ran to its end (`tools.shell.render_command_run`)
_COMMAND_ENDED = re.compile(r"\A(?:Exit code: (-?\d+)|Killed by signal (\d+)\.)(?:\n|\Z)")


def read_last_tool_result(
    records: Iterable[dict[str, Any]], session_id: str, secrets: SecretForms | None = None
) -> ToolFinished | None:
    """See the module contract."""
    from agent_cli.session.resumed_secrets import redact_resumed_view

    names: dict[str, str] = {}  # call id -> tool name
    last: tuple[dict[str, Any], str] | None = None
    for message in recorded_messages(records):
        if message.get("role") == "assistant":
            names.update((str(b.get("id")), str(b.get("name"))) for b in _blocks(message))
            continue
        for block in _blocks(message, "tool_result"):
            name = names.get(str(block.get("tool_use_id")))
            if name is not None and read_call_outcome(block) not in _NEVER_RAN:
                last = block, name
    if last is None:
        return None
    block, name = last
    if secrets is not None:
        [shown], _ = redact_resumed_view([{"role": "user", "content": [block]}], secrets)
        block = shown["content"][0]
    return build_recorded_finished(block, name, session_id)


def build_recorded_finished(block: dict[str, Any], name: str, session_id: str) -> ToolFinished:
    """A recorded tool_result `block` of tool `name`, a call of session `session_id`, as a
    finished call."""
    text = _text_of(block.get("content"))
    stored = _STORED_AT.search(text)
    pointer = stored.group(1) if stored and _is_artifact_of(stored.group(1), session_id) else None
    size = len(text.encode("utf-8"))
    stored_size = _STORED_SIZE.search(text) if stored else None
    if stored_size is not None:
        size = int(stored_size.group(1).replace(",", ""))
    summary = format_size(size)
    ended = _COMMAND_ENDED.match(text) if name == "bash" else None
    if ended is not None:
        code, signal_number = ended.groups()
        summary = (
            f"exit {code}, {summary}" if code is not None else f"signal {signal_number}, {summary}"
        )
    is_error = block.get("is_error") is True
    return ToolFinished(str(block.get("tool_use_id")), name, is_error, summary, size, pointer, text)


def _blocks(message: dict[str, Any], kind: str = "tool_use") -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


def _is_artifact_of(pointer: str, session_id: str) -> bool:
    """Whether `pointer` is a well-formed artifact pointer of session `session_id`."""
    try:
        parsed = parse_source_pointer(pointer)
    except SourcePointerError:
        return False
    return parsed.is_artifact and parsed.session_id == session_id


def _text_of(content: Any) -> str:
    """A result's text: its string content, or its text blocks' joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""
