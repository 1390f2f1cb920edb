"""The offline demo model: a deterministic local stand-in that speaks the tool protocol.

Contract: `OfflineProvider` satisfies the `Provider` protocol with no network. It looks
at the last message of the request only:
- a user message carrying tool_results -> short sentences about those results
  (stop_reason "end_turn");
- a user text that maps to tool calls (see `offline_requests`) -> parallel tool_use
  blocks for advertised tools only (stop_reason "tool_use");
- anything else -> a help reply that says what it is and what it understands.
Same request, same response: tool_use ids are hashes of the conversation length, the
block index and the last message, skipping ids already in the view. It never claims to be
Claude. Its summarizer is the extractive one, so compaction works offline too.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from agent_cli.compaction.markers import is_digest_message, is_summary_message
from agent_cli.events import ModelRequest, ModelResponse, TextDelta, Usage
from agent_cli.provider.base import PlainSummarizer, ProviderEvent, ProviderSummarizer
from agent_cli.provider.offline_answers import (
    ToolResultView,
    quote_code,
    render_results_answer,
)
from agent_cli.provider.offline_requests import (
    RequestPlan,
    build_request_plan,
    parse_request,
    split_requests,
)

OFFLINE_MODEL = "offline-demo-1"
OFFLINE_CONTEXT_WINDOW = 200_000
_WORDS_PER_DELTA = 3
_ACTIONS = {
    "read_file": ("Reading", "path"),
    "list_dir": ("Listing", "path"),
    "grep": ("Searching for", "pattern"),
    "bash": ("Running", "command"),
    "write_file": ("Writing", "path"),
    "edit_file": ("Editing", "path"),
    "read_artifact": ("Reading the stored output", "pointer"),
    "recall": ("Recalling", "pointer"),
}
_HELP_FORMS = (
    ("read_file", "read FILE (or open / show / cat FILE)"),
    ("list_dir", "list DIR (or ls DIR)"),
    ("grep", "grep PATTERN [DIR] (or search for / find PATTERN [in DIR])"),
    ("bash", "run COMMAND (or $ COMMAND)"),
    ("write_file", "write FILE: TEXT"),
    ("edit_file", "edit FILE: OLD TEXT -> NEW TEXT"),
    ("read_artifact", "read artifact:... (a saved big output, by its pointer)"),
    ("recall", "recall transcript:... (something compaction removed, by its pointer)"),
    ("recall", "recall search WORDS (find such a pointer by the words of what was removed)"),
)


def describe_request_forms(tools: set[str] | None = None) -> list[str]:
    """The request forms the offline model understands (with `tools`, if given): what
    its help reply and the REPL's /help list."""
    return [form for tool, form in _HELP_FORMS if tools is None or tool in tools]


class OfflineProvider:
    """A local, deterministic model for demos and tests; labelled as such in its replies."""

    name = "offline"
    model = OFFLINE_MODEL
    context_window = OFFLINE_CONTEXT_WINDOW

    def prepare(self) -> None:
        """Nothing to build ahead: the offline model has no client and no SDK to load."""

    def stream(self, request: ModelRequest) -> Iterator[ProviderEvent]:
        """Yield the reply text in word chunks, then the whole message with its usage."""
        content, stop_reason = build_offline_reply(request)
        text = "".join(block["text"] for block in content if block["type"] == "text")
        for piece in split_into_stream_pieces(text):
            yield TextDelta(piece)
        message = {"role": "assistant", "content": content}
        usage = Usage(
            input_tokens=estimate_request_tokens(request),
            output_tokens=_estimate_message_tokens(message),
        )
        yield ModelResponse(message=message, stop_reason=stop_reason, usage=usage)

    def build_summarizer(self, focus: str | None = None) -> ProviderSummarizer:
        """The extractive summarizer: no model, deterministic, bounded."""
        from agent_cli.provider.extractive_summary import build_extractive_summarizer

        return PlainSummarizer(build_extractive_summarizer(focus))

    def list_models(self, timeout_seconds: float = 5.0) -> None:
        """None: the offline model has no Models API (`/model` shows the model table)."""
        return None


def build_offline_reply(request: ModelRequest) -> tuple[list[dict[str, Any]], str]:
    """The content blocks and stop reason the offline model answers `request` with."""
    tools = {str(tool.get("name")) for tool in request.tools}
    messages = request.messages
    last = messages[-1] if messages else {}
    if last.get("role") != "user":
        return [_text_block(render_help(tools))], "end_turn"
    results = [block for block in _blocks(last) if block.get("type") == "tool_result"]
    if results:
        return [_text_block(answer_from_results(messages, results))], "end_turn"
    plan = build_request_plan(_message_text(last), tools)
    if plan.calls:
        return build_tool_calls(plan, messages), "tool_use"
    return [_text_block(render_help(tools, plan.unavailable))], "end_turn"


def answer_from_results(
    messages: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]]
) -> str:
    """Describe `results`, naming each by the tool_use it answers in the view."""
    calls = {
        block.get("id"): block
        for message in messages
        if message.get("role") == "assistant"
        for block in _blocks(message)
        if block.get("type") == "tool_use"
    }
    views = []
    for result in results:
        call = calls.get(result.get("tool_use_id"), {})
        views.append(
            ToolResultView(
                tool=str(call.get("name", "")),
                arguments=dict(call.get("input") or {}),
                text=_result_text(result),
                is_error=bool(result.get("is_error")),
            )
        )
    return render_results_answer(views, _latest_questions(messages))


# Folder names that read as punctuation in a sentence ("Listing ..."), said in words.
_FOLDERS_IN_WORDS = {".": "the workspace folder (.)", "..": "the folder above the workspace (..)"}


def _name_target(target: str) -> str:
    return _FOLDERS_IN_WORDS.get(target.rstrip("/") or target) or quote_code(target, 80)


def build_tool_calls(plan: RequestPlan, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A short lead sentence, then one tool_use block per planned call."""
    taken = {
        block.get("id")
        for message in messages
        for block in _blocks(message)
        if block.get("type") == "tool_use"
    }
    seed = f"{len(messages)}:{_digest(messages[-1] if messages else {})}"
    lead = []
    blocks: list[dict[str, Any]] = []
    for index, call in enumerate(plan.calls):
        verb, key = _ACTIONS.get(call.tool, ("Calling " + call.tool, ""))
        target = str(call.arguments.get(key, ""))
        lead.append(f"{verb} {_name_target(target)}." if target else f"{verb}.")
        tool_use_id = build_tool_use_id(seed, index, taken)
        taken.add(tool_use_id)
        blocks.append(
            {
                "type": "tool_use",
                "id": tool_use_id,
                "name": call.tool,
                "input": dict(call.arguments),
            }
        )
    return [_text_block(" ".join(lead)), *blocks]


def build_tool_use_id(seed: str, index: int, taken: set[Any]) -> str:
    """`toolu_off_<hex>` from the seed and block index; the first one not in `taken`."""
    salt = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{index}:{salt}".encode()).hexdigest()[:24]
        candidate = f"toolu_off_{digest}"
        if candidate not in taken:
            return candidate
        salt += 1


def render_help(tools: set[str], unavailable: Sequence[str] = ()) -> str:
    """What the offline model is and the request forms it understands with these tools,
    as Markdown paragraphs (the REPL renders answers as Markdown)."""
    forms = describe_request_forms(tools)
    lines = [
        "I am the offline demo model (offline-demo-1): a small deterministic stand-in "
        "that runs locally with no network. I am not Claude and I only understand a few "
        "plain requests."
    ]
    if unavailable:
        lines.append("Not available in this session: " + ", ".join(unavailable) + ".")
    if forms:
        lines.append("I understand:\n" + "\n".join(f"- {form}" for form in forms))
        lines.append(
            'Join several with "and", e.g. "read README.md and tell me its first heading".'
        )
    else:
        lines.append("No tools are available in this session, so I can only show this help.")
    lines.append("Set ANTHROPIC_API_KEY to use Claude instead.")
    return "\n\n".join(lines)  # paragraphs: a line after the list is not read as its last item


def split_into_stream_pieces(text: str) -> list[str]:
    """`text` cut into chunks of a few words; joined they give `text` back exactly."""
    words = [word for word in re.split(r"(?<=\s)(?=\S)", text) if word]
    return [
        "".join(words[i : i + _WORDS_PER_DELTA]) for i in range(0, len(words), _WORDS_PER_DELTA)
    ]


def estimate_request_tokens(request: ModelRequest) -> int:
    """Our estimate of the request's prompt tokens (system, durable block, tools, messages)."""
    frame = {
        "role": "user",
        "content": "\n".join(
            (request.system, request.durable_context, json.dumps(list(request.tools)))
        ),
    }
    return _estimate_messages([frame, *request.messages])


def _estimate_message_tokens(message: dict[str, Any]) -> int:
    return _estimate_messages([message])


def _estimate_messages(messages: list[dict[str, Any]]) -> int:
    """`agent_cli.tokens` when present, otherwise about four characters per token."""
    try:
        from agent_cli.tokens import estimate_tokens
    except ImportError:
        return len(json.dumps(messages, ensure_ascii=False, default=str)) // 4
    return int(estimate_tokens(messages))


def _latest_questions(messages: Sequence[dict[str, Any]]) -> list[str]:
    """The non-tool parts of the latest plain user request ("tell me its first heading")."""
    for message in reversed(messages):
        if message.get("role") != "user" or is_summary_message(message):
            continue
        if is_digest_message(message) or any(
            block.get("type") == "tool_result" for block in _blocks(message)
        ):
            continue
        return [
            part for part in split_requests(_message_text(message)) if parse_request(part) is None
        ]
    return []


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return (
        [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
    )


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in _blocks(message) if b.get("type") == "text")


def _result_text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in _blocks(result) if b.get("type") == "text")


def _digest(message: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(message, sort_keys=True, default=str).encode()).hexdigest()[
        :16
    ]


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}
