"""What every tool receives (`ToolContext`) and what it hands back before running.

A tool is split in two steps so permission can sit between them: `prepare` checks the
input and the paths (cheap, no side effects) and returns a `PreparedCall` whose
`description` is what the user approves and whose `execute` does the work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.approval import Approval
from agent_cli.tools.approval_scope import ApprovalTarget
from agent_cli.tools.output import ArtifactSink, ToolResult
from agent_cli.tools.seen_files import SeenFiles
from agent_cli.tools.workspace import Workspace

OutputWatcher = Callable[[bytes], None]


def ignore_output(chunk: bytes) -> None:
    """The default watcher: nobody looks at output while it is produced."""


@dataclass(frozen=True)
class RecallPage:
    """One page `recall` read by pointer. `as_recorded`: a record this run wrote, shown as
    the model was given it (the user's typed words already redacted), which the toolbox
    must not redact again; else the toolbox redacts the whole page (`agent_cli.recall`)."""

    text: str
    as_recorded: bool = False


class RecallReader(Protocol):
    """The session's reader of its own past (`agent_cli.recall.Recall`): a pointer's page,
    or a page of search matches, whose excerpts the search redacted itself; both raise
    `ToolError` with what to do instead."""

    def answer(self, pointer: str, offset: int = 0) -> RecallPage: ...

    def search(self, query: str, *, regex: bool = False, offset: int = 0) -> str: ...


@dataclass(frozen=True)
class ToolLimits:
    """Caps that keep one tool call from flooding memory, disk or the context."""

    max_output_bytes: int = 1_048_576
    bash_timeout_seconds: int = 120
    max_bash_timeout_seconds: int = 600
    read_window_lines: int = 2000
    max_read_file_bytes: int = 20 * 1024 * 1024
    grep_max_matches: int = 200
    grep_max_line_chars: int = 300
    list_max_entries: int = 1000
    search_timeout_seconds: float = 30.0
    artifact_read_bytes: int = 16_384


@dataclass(frozen=True)
class ToolContext:
    """What a tool may reach: the workspace, the artifact store, its caps, the id of the
    session it works for (`read_artifact` reads only that session's artifacts) and the
    session's reader of its own past (`recall`; None where the session offers none).
    `secrets` are the forms of the secrets the result will be redacted of: a tool that
    shortens text cuts where none of them is split (`safe_cuts`). `seen` is what the
    model last saw of each file (`seen_files`): the file tools note there what they read
    and write, and write_file checks it before anyone is asked.
    `watch_output` sees a running command's output as it arrives, so the REPL can show it
    live; it is called on the tool's own thread and must return quickly."""

    workspace: Workspace
    artifacts: ArtifactSink
    limits: ToolLimits
    session_id: str = ""
    watch_output: OutputWatcher = ignore_output
    recall: RecallReader | None = None
    secrets: SecretForms = NO_SECRETS
    seen: SeenFiles = field(default_factory=SeenFiles)


@dataclass(frozen=True)
class PreparedCall:
    """A checked tool call: `description` for the permission prompt, `execute` to run it,
    and for tools that write or execute, `approval`: everything the user must see, and
    `target`: the command or file it acts on (what an "always" answer is scoped to)."""

    description: str
    execute: Callable[[], ToolResult]
    approval: Approval | None = None
    target: ApprovalTarget | None = None
