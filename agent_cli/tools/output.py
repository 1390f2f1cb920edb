"""Turning what a tool produced into a `ToolOutcome`, spilling big outputs to artifacts.

Contract: nothing a tool produced is lost. When the full text is larger than the
threshold it is stored whole in the artifact store and the model gets a head/tail preview
plus the `artifact:` pointer and a hint to use `read_artifact`. If storing fails, the
result says so plainly: a preview marked as truncated and no pointer, never a silent cut.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol

from agent_cli.errors import AgentCliError, TerminationRequested
from agent_cli.safe_cuts import safe_head_end, safe_tail_start
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.recordable_text import make_recordable


class ArtifactRefLike(Protocol):
    pointer: str


class ArtifactSink(Protocol):
    """What the toolbox needs from an artifact store (`agent_cli.store.artifacts`)."""

    def put(self, session_id: str, data: bytes, suffix: str = ".txt") -> Any: ...

    def read_range(self, pointer: str, offset: int = 0, limit: int = ...) -> bytes: ...


@dataclass(frozen=True)
class ToolOutcome:
    """The result of one tool call, ready to become one tool_result block.

    `content` is what the model sees; `size_bytes` is the UTF-8 size of the full output
    the tool produced (before any preview); `artifact_pointer` is set when the full output
    was stored; `summary` is one short line for the REPL. `cause`: the typed error behind
    an error result whose words the REPL gives the user itself (`WorkspaceGone`: the
    model's words speak of "the user"); None, the user reads the model's.
    """

    content: str
    is_error: bool
    size_bytes: int
    artifact_pointer: str | None
    summary: str
    images: tuple[dict[str, Any], ...] = ()  # image blocks sent after the text (MCP tools)
    cause: AgentCliError | None = None


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns before spilling: a header line, a body, and a summary.

    The header is the first line of the content and survives every preview (for
    `read_file` it names the file, for `bash` it gives the exit code). `secrets_hidden`
    counts the secrets a tool hid itself before shaping its text (`secret_lines`), so
    that the result still says how many were redacted. `already_redacted` says the tool
    redacted what needed it and the rest is what the model was given as it is (`recall`'s
    pages of this run's own records): redacting the model's own words again would tell it
    which of them is a secret (`tools.echo`), so the toolbox leaves it as it is.
    """

    header: str
    body: str = ""
    is_error: bool = False
    summary: str = ""
    secrets_hidden: int = 0
    already_redacted: bool = False
    stopped_short: bool = False  # output cut where it was stopped (Ctrl-C, timeout, cap)

    @property
    def text(self) -> str:
        return f"{self.header}\n{self.body}" if self.body else self.header


class ToolInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a tool while it ran, and what it had produced is kept.

    A KeyboardInterrupt on purpose: every handler of Ctrl-C still ends the turn. The tool
    raises it with `result` (its output so far, marked as interrupted, after it ended
    whatever it started); the toolbox raises it again with `outcome` set, that result
    redacted and spilled like any other, so the session records it as the call's
    result and the REPL shows it. `outcome` is None until the toolbox has built it.
    """

    def __init__(self, result: ToolResult, outcome: ToolOutcome | None = None) -> None:
        self.result = result
        self.outcome = outcome
        super().__init__(result.summary)


class ToolTerminated(TerminationRequested):
    """A termination signal (SIGTERM, SIGHUP, SIGQUIT) stopped a tool while it ran, and
    what it had produced is kept, as `ToolInterrupted` keeps it for Ctrl-C.

    A TerminationRequested on purpose: the process still ends, with 128 + the signal's
    number. The tool raises it with `result` (its output so far, after it ended whatever
    it started); the toolbox raises it again with `outcome` set, that result redacted and
    spilled like any other, so the session records it as the call's result before the
    process exits. `outcome` is None until the toolbox has built it.
    """

    def __init__(
        self, signal_number: int, result: ToolResult, outcome: ToolOutcome | None = None
    ) -> None:
        self.result = result
        self.outcome = outcome
        super().__init__(signal_number)


def count_noun(count: int, singular: str, plural: str | None = None) -> str:
    """A count with its noun in the right number: "1 file", "3 files", "2 entries"."""
    word = singular if count == 1 else (plural or singular + "s")
    return f"{count:,} {word}"


def format_size(size_bytes: int) -> str:
    """A short human size: "512 B", "3.2 KB", "1.5 MB"."""
    if size_bytes < 1024:
        return f"{size_bytes} B"
    if size_bytes < 1024 * 1024:
        return f"{size_bytes / 1024:.1f} KB"
    return f"{size_bytes / (1024 * 1024):.1f} MB"


def build_error_outcome(message: str, summary: str) -> ToolOutcome:
    """An error result that the model reads and the REPL shows as one line (lone
    surrogates made visible: `recordable_text`)."""
    message, summary = make_recordable(message), make_recordable(summary)
    return ToolOutcome(message, True, len(message.encode("utf-8")), None, summary)


INTERRUPTED_TEXT = (
    "Interrupted by the user (Ctrl-C): {tool_name} was stopped before it finished, and "
    "any processes it started were ended. Its effects, if any, are incomplete."
)


def build_interrupted_outcome(tool_name: str) -> ToolOutcome:
    """The result to record when Ctrl-C stopped a tool: every tool_use still gets one."""
    return build_error_outcome(INTERRUPTED_TEXT.format(tool_name=tool_name), "interrupted")


def build_outcome(
    result: ToolResult,
    *,
    artifacts: ArtifactSink,
    session_id: str,
    threshold_bytes: int,
    may_spill: bool = True,
    secrets: SecretForms = NO_SECRETS,
) -> ToolOutcome:
    """Wrap `result` as an outcome, storing the full text as an artifact when it is big.
    The preview's cuts split no occurrence of `secrets` and no pointer (`safe_cuts`).
    This is where every tool's text is made recordable (`recordable_text`): a file name
    that is not UTF-8 must not end the session."""
    result = _recordable_result(result)
    full = result.text.encode("utf-8")
    summary = result.summary or format_size(len(full))
    if not may_spill or len(full) <= threshold_bytes:
        return ToolOutcome(result.text, result.is_error, len(full), None, summary)
    body_offset = len(result.header.encode("utf-8")) + 1
    preview = render_preview(result.body, max(1, threshold_bytes // 4), body_offset, secrets)
    try:
        pointer = str(artifacts.put(session_id, full, suffix=".txt").pointer)
    except Exception as error:  # any store failure: say so; never lose the call's result
        notice = (
            f"[Output was {len(full):,} bytes. Saving it as an artifact failed "
            f"({type(error).__name__}), so only this truncated head/tail preview exists; "
            "there is no artifact pointer. Re-run with a narrower request to see the rest.]"
        )
        content = f"{result.header}\n{notice}\n{preview}"
        return ToolOutcome(content, result.is_error, len(full), None, f"{summary}, truncated")
    notice = (
        f"[Output was {len(full):,} bytes; this is a head/tail preview. The full output is "
        f"saved as {pointer} - read any part of it with read_artifact(pointer, offset, limit).]"
    )
    content = f"{result.header}\n{notice}\n{preview}\n[Full output: {pointer}]"
    return ToolOutcome(
        content, result.is_error, len(full), pointer, f"{summary}, saved to artifact"
    )


def _recordable_result(result: ToolResult) -> ToolResult:
    return dataclasses.replace(
        result,
        header=make_recordable(result.header),
        body=make_recordable(result.body),
        summary=make_recordable(result.summary),
    )


def render_preview(
    text: str, side_bytes: int, base_offset: int = 0, secrets: SecretForms = NO_SECRETS
) -> str:
    """About the first and last `side_bytes` of `text`'s UTF-8 (cut at line ends where
    possible, never inside a secret's occurrence or a pointer: `safe_cuts`).

    The omitted middle is marked with its size, line count and start offset (plus
    `base_offset`, where `text` starts in the stored artifact) so the model knows what to
    ask `read_artifact` for.
    """
    data = text.encode("utf-8")
    if len(data) <= 2 * side_bytes:
        return text
    head_bytes = _cut_head_at_line_end(data[:side_bytes])
    tail_bytes = _cut_tail_at_line_start(data[len(data) - side_bytes :])
    # Decoding drops a character cut in half, so each stays a prefix / suffix of `text`.
    head_end = safe_head_end(text, len(head_bytes.decode("utf-8", errors="ignore")), secrets)
    tail_chars = len(tail_bytes.decode("utf-8", errors="ignore"))
    tail_start = max(safe_tail_start(text, len(text) - tail_chars, secrets), head_end)
    head, tail = text[:head_end], text[tail_start:]
    omitted = text[head_end:tail_start]
    omitted_lines = omitted.count("\n")
    marker = (
        f"[... {len(omitted.encode('utf-8')):,} bytes ({count_noun(omitted_lines, 'line')}) "
        "omitted; "
        f"they start at byte offset {base_offset + len(head.encode('utf-8')):,} of the "
        "artifact ...]"
    )
    head_text = head.rstrip("\n")
    return f"{head_text}\n{marker}\n{tail}"


def _cut_head_at_line_end(head: bytes) -> bytes:
    newline = head.rfind(b"\n")
    return head[: newline + 1] if newline >= len(head) // 2 else head


def _cut_tail_at_line_start(tail: bytes) -> bytes:
    newline = tail.find(b"\n")
    return tail[newline + 1 :] if 0 <= newline < len(tail) // 2 else tail
