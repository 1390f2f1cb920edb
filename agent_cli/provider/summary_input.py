"""What a model summarizer is given to read: the previous summary and a bounded transcript.

Contract: `render_summary_input(messages, max_chars)` renders old prompt-view messages as
plain text for the summary prompt. A previous summary (the first message, when it is
one) is passed as such and the messages it covers are never re-sent. Every block is
capped (tool results keep a short head), and when the whole transcript is still longer
than its budget the middle entries are left out with a marker, so the summarizer's own
input is bounded whatever the history holds: it can never be "too long to compact".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.markers import is_summary_message, summary_body
from agent_cli.safe_cuts import cut_head, safe_head_end

DEFAULT_MAX_INPUT_CHARS = 48_000
MIN_INPUT_CHARS = 4_000
RESULT_HEAD_CHARS = 800
TEXT_CHARS = 4_000
ARGUMENT_CHARS = 300
# Share of the transcript budget kept from the start (the goal); the rest is the newest.
_HEAD_SHARE = 0.3


def render_summary_input(
    messages: Sequence[dict[str, Any]], max_chars: int = DEFAULT_MAX_INPUT_CHARS
) -> str:
    """The user message text for a summary request; at most `max_chars` characters."""
    budget = max(MIN_INPUT_CHARS, max_chars)
    previous = ""
    if messages and is_summary_message(messages[0]):
        previous = summary_body(messages[0])
        messages = messages[1:]
    parts = []
    if previous:
        previous = _clip(previous, budget // 3)
        parts.append(
            "Previous summary (it already covers everything before the transcript "
            f"below; merge it, do not drop it):\n{previous}"
        )
    entries = render_transcript_entries(messages)
    transcript_budget = budget - sum(len(part) for part in parts) - 200
    transcript = "\n".join(bound_entries(entries, transcript_budget)) or "(no new messages)"
    label = "Transcript since the previous summary:" if previous else "Transcript:"
    parts.append(f"{label}\n{transcript}")
    return _clip("\n\n".join(parts), budget)


def render_transcript_entries(messages: Sequence[dict[str, Any]]) -> list[str]:
    """One entry per text block, tool call and tool result, in order, each capped."""
    tool_names: dict[str, str] = {}
    entries: list[str] = []
    for message in messages:
        speaker = "User" if message.get("role") == "user" else "Assistant"
        content = message.get("content")
        if isinstance(content, str):
            if content.strip():
                entries.append(f"{speaker}: {_clip(content.strip(), TEXT_CHARS)}")
            continue
        for block in content if isinstance(content, list) else []:
            entry = render_block(speaker, block, tool_names)
            if entry:
                entries.append(entry)
    return entries


def render_block(speaker: str, block: Any, tool_names: dict[str, str]) -> str:
    """One block as a transcript line: text, `name(args)` calls, shortened results."""
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text", "")).strip()
        return f"{speaker}: {_clip(text, TEXT_CHARS)}" if text else ""
    if kind == "tool_use":
        name = str(block.get("name", "?"))
        tool_names[str(block.get("id"))] = name
        arguments = json.dumps(block.get("input", {}), ensure_ascii=False, sort_keys=True)
        return f"Assistant called {name}({_clip(arguments, ARGUMENT_CHARS)})"
    if kind == "tool_result":
        name = tool_names.get(str(block.get("tool_use_id")), "a tool")
        label = f"Error from {name}" if block.get("is_error") else f"Result of {name}"
        return f"{label}: {render_result_head(block.get('content'))}"
    return ""


def render_result_head(content: Any) -> str:
    """The first `RESULT_HEAD_CHARS` of a tool result, saying how much was left out."""
    if isinstance(content, list):
        content = "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    text = str(content or "").strip()
    end = safe_head_end(text, RESULT_HEAD_CHARS)  # a pointer in the head stays whole
    if end == len(text):
        return text or "(empty)"
    return f"{text[:end]}\n[... {len(text) - end:,} more characters not shown]"


def bound_entries(entries: Sequence[str], budget: int) -> list[str]:
    """`entries` whole if they fit, else the first and newest ones with a gap marker."""
    if sum(len(entry) + 1 for entry in entries) <= budget:
        return list(entries)
    head: list[str] = []
    used = 0
    for entry in entries:
        if used + len(entry) + 1 > budget * _HEAD_SHARE:
            break
        head.append(entry)
        used += len(entry) + 1
    tail: list[str] = []
    for entry in reversed(entries[len(head) :]):
        if used + len(entry) + 1 > budget - 100:
            break
        tail.append(entry)
        used += len(entry) + 1
    omitted = len(entries) - len(head) - len(tail)
    return [
        *head,
        f"[... {omitted} transcript entries left out to bound this input ...]",
        *reversed(tail),
    ]


def _clip(text: str, limit: int) -> str:
    """`text` whole, or its head (never half a pointer) and a mark."""
    return cut_head(text, max(0, limit - 15), mark=" [... cut ...]") if len(text) > limit else text
