"""The tool-running step of a turn: run the model's tool calls and record their results.

Contract of `run_tools`: exactly one tool_result answers every tool_use, in order, even
when a tool fails, is denied, or the user presses Ctrl-C (the interrupted call and the
unrun ones after it get error results, recorded before the turn ends "cancelled"; a
command stopped by Ctrl-C is answered with its output so far, marked interrupted, and
its `ToolFinished(interrupted=True)` follows once that is recorded). A
termination signal records the same way and is then re-raised. Results the disk refuses
are held (see `session.recording`). It returns None to go on, or (outcome, stop reason).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator, Sequence
from typing import Any

from agent_cli.errors import (
    PermissionQuestionInterrupted,
    PermissionQuestionTerminated,
    TerminationRequested,
)
from agent_cli.events import Notice, SessionEvent, ToolFinished, ToolStarted
from agent_cli.session.conversation import Conversation
from agent_cli.session.recording import Steps, collect_steps, record, record_results
from agent_cli.tools.output import ToolInterrupted, ToolOutcome

INTERRUPTED_TOOL_TEXT = "Interrupted by the user (Ctrl-C): the tool did not finish."
NOT_RUN_TOOL_TEXT = "Not run: the turn was interrupted before this tool started."
PERMISSION_CANCELLED = "permission_cancelled"  # the notice code
ASKING_INTERRUPTED_TEXT = (
    "Not run: the user pressed Ctrl-C when asked for permission, which cancelled the turn."
)
TERMINATED_TOOL_TEXT = (
    "Stopped: agent-cli was ended by {signal} while this tool ran; a running command "
    "and its whole process group were killed."
)
TERMINATED_ASKING_TEXT = (
    "Not run: agent-cli was ended by {signal} while asking the user for permission to run "
    "this tool."
)
CUT_TOOL_TEXT = "Not run: the answer was cut at max_tokens before the turn could go on."

Outcome = tuple[str, str | None] | None  # (turn outcome, stop reason) to end; None to go on


def run_tools(
    toolbox: Any, conversation: Conversation, tool_uses: list[dict[str, Any]]
) -> Steps[Outcome]:
    """Run `tool_uses` with `toolbox` and record their results (module contract)."""
    results: list[dict[str, Any]] = []
    try:
        for block in tool_uses:
            yield ToolStarted(block["id"], block["name"], dict(block.get("input") or {}))
            outcome = toolbox.run(block["name"], dict(block.get("input") or {}))
            results.append(
                result_block(block["id"], outcome.content, outcome.is_error, outcome.images)
            )
            yield build_finished_event(block, outcome)
    except KeyboardInterrupt as interrupt:
        yield from record_interrupted(conversation, tool_uses, results, interrupt)
        yield _cancel_notice(interrupt)
        return ("cancelled", "tool_use")
    except TerminationRequested as stop:  # recorded, then the process goes on ending
        asking = isinstance(stop, PermissionQuestionTerminated)
        template = TERMINATED_ASKING_TEXT if asking else TERMINATED_TOOL_TEXT
        text = template.format(signal=signal_name(stop.signal_number))
        yield from record_stopped(conversation, tool_uses, results, text)
        raise
    if not (yield from record_results(conversation, results)):
        return ("failed", "tool_use")
    return None


def build_finished_event(
    block: dict[str, Any], outcome: ToolOutcome, *, interrupted: bool = False
) -> ToolFinished:
    return ToolFinished(
        block["id"],
        block["name"],
        outcome.is_error,
        outcome.summary,
        outcome.size_bytes,
        outcome.artifact_pointer,
        outcome.content,
        interrupted=interrupted,
    )


def record_interrupted(
    conversation: Conversation,
    tool_uses: list[dict[str, Any]],
    results: list[dict[str, Any]],
    interrupt: KeyboardInterrupt,
) -> Steps[bool]:
    """Answer the calls Ctrl-C left without results. A tool that kept its output so far
    (`ToolInterrupted` with an outcome) is answered with it, and its panel is closed
    only once that is recorded: a second Ctrl-C while it is shown cannot lose it."""
    kept = interrupt.outcome if isinstance(interrupt, ToolInterrupted) else None
    if kept is None:
        text = INTERRUPTED_TOOL_TEXT
        if isinstance(interrupt, PermissionQuestionInterrupted):
            text = ASKING_INTERRUPTED_TEXT
        return (yield from record_stopped(conversation, tool_uses, results, text))
    block = tool_uses[len(results)]
    results.append(result_block(block["id"], kept.content, kept.is_error))
    notices, recorded = collect_steps(
        record_stopped(conversation, tool_uses, results, NOT_RUN_TOOL_TEXT)
    )
    yield build_finished_event(block, kept, interrupted=True)
    yield from notices
    return recorded


def _cancel_notice(interrupt: KeyboardInterrupt) -> Notice:
    """Nothing ran when Ctrl-C came at the permission question: say that, not 'interrupted'."""
    if isinstance(interrupt, PermissionQuestionInterrupted):
        return Notice("warning", PERMISSION_CANCELLED, {"tool": interrupt.tool})
    return Notice("warning", "cancelled", {"during": "tool"})


def record_stopped(
    conversation: Conversation,
    tool_uses: list[dict[str, Any]],
    results: list[dict[str, Any]],
    text: str,
) -> Steps[bool]:
    """Answer the call that was running with `text` and the ones after it as not run."""
    stopped_at = len(results)
    for index in range(stopped_at, len(tool_uses)):
        said = text if index == stopped_at else NOT_RUN_TOOL_TEXT
        results.append(result_block(tool_uses[index]["id"], said, True))
    return (yield from record_results(conversation, results))


def answer_without_running(
    conversation: Conversation, tool_uses: list[dict[str, Any]], text: str
) -> Iterator[SessionEvent]:
    results = [result_block(b["id"], text, True) for b in tool_uses]
    yield from record(conversation, {"role": "user", "content": results})


def result_block(
    tool_use_id: str, content: str, is_error: bool, images: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    """One tool_result: the text, and after it the images a tool returned (if any)."""
    text = content or "(no output)"
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [{"type": "text", "text": text}, *images] if images else text,
    }
    if is_error:
        block["is_error"] = True
    return block


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
