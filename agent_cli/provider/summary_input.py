"""What a model summarizer is given to read: the previous summary and the transcript since.

Contract: `build_summary_input(messages, max_chars)` renders old prompt-view messages as
plain text for the summary prompt, at most `max_chars` characters (`render_summary_input`
is that text alone). The model summarizer's budget is `summary_input_chars(window)`: a
quarter of the model's context window, at about four characters a token, never under
`DEFAULT_MAX_INPUT_CHARS`, so the older part of a view at the thresholds a session
compacts at fits whole. A previous summary (the first message, when it is one) is passed
as such and the messages it covers are never re-sent.

What only the summary can keep goes first. The assistant's own words (what it found,
concluded, decided) are sent whole up to `Detail.answer_chars`, a long one as its head
and its end; the user's words and the tool calls are also named in the digest, with
their pointers, and tool results are whole in the transcript, so those are shortened
first. A transcript longer than the budget is rendered at less detail, one step at a
time (`DETAILS`: shorter result heads, then none, shorter user texts and arguments, then
long answers cut to 4,000 characters). Only where the least detail is still too long are
entries left out of the middle (the oldest 30% of the budget and the newest are kept):
the marker in the input names how many and their transcript range, and so does
`SummaryInput.left_out`, which the summarizer appends to the summary as a note
(`left_out_note`). A previous summary's notes are carried into the next one
(`with_left_out_notes`), so what no summary covers keeps a pointer `recall` follows
however often the view is summarized again: nothing leaves it without a trace.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.compaction.markers import SOURCE_KEY, is_summary_message, summary_body
from agent_cli.safe_cuts import cut_head, safe_head_end, safe_tail_start

DEFAULT_MAX_INPUT_CHARS = 48_000
MIN_INPUT_CHARS = 4_000
CHARS_PER_TOKEN = 4
WINDOW_SHARE = 4  # the summary input may take a quarter of the model's window
# Share of the transcript budget kept from the start (the goal) when entries must be left
# out; the rest is the newest.
_HEAD_SHARE = 0.3
LEFT_OUT_HEAD = "[Not covered by this summary:"


@dataclass(frozen=True)
class Detail:
    """How much of each kind of block the transcript shows, in characters."""

    answer_chars: int  # the assistant's text: only the summary keeps it
    user_chars: int  # the user's text: the digest keeps it too
    result_chars: int  # a tool result's head (0: its size only); the transcript has it whole
    argument_chars: int  # a tool call's arguments (the digest names the call)


DETAILS = (
    Detail(answer_chars=16_000, user_chars=4_000, result_chars=800, argument_chars=300),
    Detail(answer_chars=16_000, user_chars=2_000, result_chars=200, argument_chars=120),
    Detail(answer_chars=4_000, user_chars=1_000, result_chars=0, argument_chars=60),
)


@dataclass(frozen=True)
class LeftOut:
    """Messages with entries left out of the input: how many, and the transcript
    pointers of the first and the last of them that have one."""

    messages: int
    first: str | None
    last: str | None


@dataclass(frozen=True)
class SummaryInput:
    """The user message text for a summary request, what of the transcript it left out
    (None: nothing), and the notes of the previous summary on what it did not cover."""

    text: str
    left_out: LeftOut | None = None
    previous_notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """One transcript line and the index of the message it came from."""

    message: int
    text: str


def summary_input_chars(context_window: int) -> int:
    """The summary input's budget for a model with `context_window` tokens."""
    return max(DEFAULT_MAX_INPUT_CHARS, context_window * CHARS_PER_TOKEN // WINDOW_SHARE)


def render_summary_input(
    messages: Sequence[dict[str, Any]], max_chars: int = DEFAULT_MAX_INPUT_CHARS
) -> str:
    """The user message text for a summary request; at most `max_chars` characters."""
    return build_summary_input(messages, max_chars).text


def build_summary_input(
    messages: Sequence[dict[str, Any]], max_chars: int = DEFAULT_MAX_INPUT_CHARS
) -> SummaryInput:
    """The summary request's input and what it left out (module contract)."""
    budget = max(MIN_INPUT_CHARS, max_chars)
    previous = ""
    if messages and is_summary_message(messages[0]):
        previous = summary_body(messages[0])
        messages = messages[1:]
    notes = find_left_out_notes(previous)
    parts = []
    if previous:
        previous = _clip(previous, budget // 3)
        parts.append(
            "Previous summary (it already covers everything before the transcript "
            f"below; merge it, do not drop it):\n{previous}"
        )
    transcript_budget = budget - sum(len(part) for part in parts) - 200
    lines, left_out = fit_transcript(messages, transcript_budget)
    transcript = "\n".join(lines) or "(no new messages)"
    label = "Transcript since the previous summary:" if previous else "Transcript:"
    parts.append(f"{label}\n{transcript}")
    return SummaryInput(_clip("\n\n".join(parts), budget), left_out, notes)


def fit_transcript(
    messages: Sequence[dict[str, Any]], budget: int
) -> tuple[list[str], LeftOut | None]:
    """The transcript's lines at the most detail that fits `budget`; at the least detail,
    with entries of the middle left out (and said to be) when even that does not fit."""
    entries: list[Entry] = []
    for detail in DETAILS:
        entries = render_transcript_entries(messages, detail)
        if sum(len(entry.text) + 1 for entry in entries) <= budget:
            return [entry.text for entry in entries], None
    return leave_out_middle(entries, budget, messages)


def leave_out_middle(
    entries: Sequence[Entry], budget: int, messages: Sequence[dict[str, Any]]
) -> tuple[list[str], LeftOut]:
    """The first entries (up to `_HEAD_SHARE` of `budget`) and the newest, and a marker
    naming the messages of those left out between them by their transcript range."""
    head: list[Entry] = []
    used = 200  # room for the marker
    for entry in entries:
        if used + len(entry.text) + 1 > budget * _HEAD_SHARE:
            break
        head.append(entry)
        used += len(entry.text) + 1
    tail: list[Entry] = []
    for entry in reversed(entries[len(head) :]):
        if used + len(entry.text) + 1 > budget:
            break
        tail.append(entry)
        used += len(entry.text) + 1
    gone = entries[len(head) : len(entries) - len(tail)]
    left_out = describe_left_out(sorted({entry.message for entry in gone}), messages)
    span = f" ({left_out.first} to {left_out.last})" if left_out.first else ""
    marker = (
        f"[... {len(gone)} transcript entries left out to bound this input{span}; "
        "the summary will say so ...]"
    )
    return [*(e.text for e in head), marker, *(e.text for e in reversed(tail))], left_out


def describe_left_out(indexes: Sequence[int], messages: Sequence[dict[str, Any]]) -> LeftOut:
    """How many messages `indexes` name, and the first and last of their pointers."""
    pointers = [messages[i].get(SOURCE_KEY) for i in indexes]
    found = [p for p in pointers if isinstance(p, str) and p]
    return LeftOut(len(indexes), found[0] if found else None, found[-1] if found else None)


def left_out_note(left_out: LeftOut) -> str:
    """The line the summary carries about messages its input left out."""
    count = f"{left_out.messages:,} message{'' if left_out.messages == 1 else 's'}"
    where = (
        f"recall by pointer from {left_out.first} to {left_out.last} or find one by its "
        "words with recall search"
        if left_out.first and left_out.last
        else "find them by their words with recall search"
    )
    return (
        f"{LEFT_OUT_HEAD} {count} of the conversation were left out of its input to bound "
        f"it, the assistant's own findings in them included; {where}.]"
    )


def find_left_out_notes(summary: str) -> tuple[str, ...]:
    """The notes on what a summary did not cover, as it carries them."""
    return tuple(line for line in summary.splitlines() if line.startswith(LEFT_OUT_HEAD))


def with_left_out_notes(summary: str, notes: Sequence[str]) -> str:
    """`summary` with the notes the caller knows of at its end, each once: a copy of one
    that the model wrote into its text is taken out first."""
    if not notes:
        return summary
    kept = [line for line in summary.splitlines() if not line.startswith(LEFT_OUT_HEAD)]
    return "\n".join([*kept, "", *dict.fromkeys(notes)]).strip()


def render_transcript_entries(
    messages: Sequence[dict[str, Any]], detail: Detail = DETAILS[0]
) -> list[Entry]:
    """One entry per text block, tool call and tool result, in order, at `detail`."""
    tool_names: dict[str, str] = {}
    entries: list[Entry] = []
    for index, message in enumerate(messages):
        speaker = "User" if message.get("role") == "user" else "Assistant"
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks if isinstance(blocks, list) else []:
            text = render_block(speaker, block, tool_names, detail)
            if text:
                entries.append(Entry(index, text))
    return entries


def render_block(speaker: str, block: Any, tool_names: dict[str, str], detail: Detail) -> str:
    """One block as a transcript line: text, `name(args)` calls, shortened results."""
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text", "")).strip()
        limit = detail.user_chars if speaker == "User" else detail.answer_chars
        return f"{speaker}: {_clip_middle(text, limit)}" if text else ""
    if kind == "tool_use":
        name = str(block.get("name", "?"))
        tool_names[str(block.get("id"))] = name
        arguments = json.dumps(block.get("input", {}), ensure_ascii=False, sort_keys=True)
        return f"Assistant called {name}({_clip(arguments, detail.argument_chars)})"
    if kind == "tool_result":
        name = tool_names.get(str(block.get("tool_use_id")), "a tool")
        label = f"Error from {name}" if block.get("is_error") else f"Result of {name}"
        return f"{label}: {render_result_head(block.get('content'), detail.result_chars)}"
    return ""


def render_result_head(content: Any, chars: int) -> str:
    """The first `chars` of a tool result, saying how much was left out."""
    if isinstance(content, list):
        content = "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    text = str(content or "").strip()
    if not text:
        return "(empty)"
    end = safe_head_end(text, chars) if chars > 0 else 0  # a pointer stays whole
    if end == len(text):
        return text
    if end == 0:
        return f"[{len(text):,} characters not shown]"
    return f"{text[:end]}\n[... {len(text) - end:,} more characters not shown]"


def _clip(text: str, limit: int) -> str:
    """`text` whole, or its head (never half a pointer) and a mark."""
    return cut_head(text, max(0, limit - 15), mark=" [... cut ...]") if len(text) > limit else text


def _clip_middle(text: str, limit: int) -> str:
    """`text` whole, or its head and its end (where an answer's conclusion usually is),
    never half a pointer, with a mark saying how much was left out between them."""
    if len(text) <= limit:
        return text
    head_end = safe_head_end(text, limit * 2 // 3)
    tail_start = max(head_end, safe_tail_start(text, len(text) - limit // 3))
    gone = tail_start - head_end
    return f"{text[:head_end]} [... {gone:,} characters left out ...] {text[tail_start:]}"
