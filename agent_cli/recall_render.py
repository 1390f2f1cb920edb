"""How a recalled transcript record reads: the text `recall` pages through and searches.

Contract: `render_evidence(pointer, text)` turns a transcript record (its JSON line) into
readable text: a `message` record as its role and blocks (`render_message`), any other
record as its kind and payload; an artifact's text, or a record cut too short to parse,
comes back as it is. `render_blocks(message, hidden_ids)` is a message's content alone,
less the tool calls named in `hidden_ids` and their results: what a search looks through
(it leaves out its own calls that way).

`typed_text`, where given, is applied to what the user typed (the text of a user message
that is not compaction's digest or summary, in a message record or in the view a
compaction record holds) and to nothing else: `recall` shows a record this run wrote as
recorded but for the user's words, which it redacts (`agent_cli.recall`).

`secrets`, where given, are hidden where a record's tool results were cut before they
were known (`with_pieces_hidden`: `cut_pieces.hide_cut_pieces` on each result's text, in
a message record or a compaction record's view): a record of an earlier run may hold a
piece of a value named a secret since, which no redaction of whole forms finds. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

from agent_cli.compaction.markers import is_digest_message, is_summary_message
from agent_cli.cut_pieces import hide_cut_pieces
from agent_cli.secret_forms import NO_SECRETS, SecretForms

TextFilter = Callable[[str], str]


def render_evidence(
    pointer: str,
    text: str,
    typed_text: TextFilter | None = None,
    secrets: SecretForms = NO_SECRETS,
) -> str:
    """A transcript record as readable text (the user's typed text through `typed_text`,
    where given, and pieces of `secrets` at its results' cuts hidden: module contract);
    anything else (an artifact) as it is."""
    if not pointer.startswith("transcript:"):
        return text
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        return text  # a cut excerpt of a huge record, or one nested past the parser: raw
    if not isinstance(record, dict):
        return text
    payload = record.get("payload")
    message = payload.get("message") if isinstance(payload, dict) else None
    if record.get("kind") == "message" and isinstance(message, dict):
        return render_message(with_pieces_hidden(with_typed_text(message, typed_text), secrets))
    if isinstance(payload, dict):
        payload = _with_view(payload, lambda m: with_pieces_hidden(m, secrets))
    if typed_text is not None and isinstance(payload, dict):
        payload = _with_view(payload, lambda m: with_typed_text(m, typed_text))
    return f"{record.get('kind')} record:\n{json.dumps(payload, ensure_ascii=False, indent=1)}"


def with_typed_text(message: dict[str, Any], typed_text: TextFilter | None) -> dict[str, Any]:
    """`message` with what the user typed passed through `typed_text` (module contract);
    `message` itself when there is no filter or it is not the user's."""
    if typed_text is None or message.get("role") != "user":
        return message
    if is_digest_message(message) or is_summary_message(message):
        return message
    content = message.get("content")
    if isinstance(content, str):
        return {**message, "content": typed_text(content)}
    if not isinstance(content, list):
        return message
    blocks = [
        {**block, "text": typed_text(block["text"])}
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        else block
        for block in content
    ]
    return {**message, "content": blocks}


def with_pieces_hidden(message: dict[str, Any], secrets: SecretForms) -> dict[str, Any]:
    """`message` with the pieces of `secrets` at the cuts of its tool results' texts
    hidden (module contract); `message` itself when none is."""
    content = message.get("content")
    if not secrets or not isinstance(content, list):
        return message
    blocks = [
        {**block, "content": _result_pieces_hidden(block["content"], secrets)}
        if isinstance(block, dict) and block.get("type") == "tool_result" and "content" in block
        else block
        for block in content
    ]
    return {**message, "content": blocks}


def _result_pieces_hidden(content: Any, secrets: SecretForms) -> Any:
    if isinstance(content, str):
        return hide_cut_pieces(content, secrets)[0]
    if not isinstance(content, list):
        return content
    return [
        {**item, "text": hide_cut_pieces(item["text"], secrets)[0]}
        if isinstance(item, dict) and isinstance(item.get("text"), str)
        else item
        for item in content
    ]


def _with_view(
    payload: dict[str, Any], change: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    """A record's payload with each message of its `view` (a compaction's) changed."""
    view = payload.get("view")
    if not isinstance(view, list):
        return payload
    return {**payload, "view": [change(m) if isinstance(m, dict) else m for m in view]}


def render_message(message: dict[str, Any], hidden_ids: Collection[str] = ()) -> str:
    """`role message:` then each block as text (`render_blocks`)."""
    return "\n".join([f"{message.get('role')} message:", render_blocks(message, hidden_ids)])


def render_blocks(message: dict[str, Any], hidden_ids: Collection[str] = ()) -> str:
    """Each block as text, one after another; tool calls with their input as JSON. Calls
    whose id is in `hidden_ids`, and the results answering them, are left out."""
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return "\n".join(
        _render_block(block)
        for block in (blocks if isinstance(blocks, list) else ())
        if not _is_hidden(block, hidden_ids)
    )


def _is_hidden(block: Any, hidden_ids: Collection[str]) -> bool:
    if not hidden_ids or not isinstance(block, dict):
        return False
    call_id = block.get("id") if block.get("type") == "tool_use" else block.get("tool_use_id")
    return isinstance(call_id, str) and call_id in hidden_ids


def _render_block(block: Any) -> str:
    if not isinstance(block, dict):
        return str(block)
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        tool_input = json.dumps(block.get("input"), ensure_ascii=False)
        return f"[tool_use {block.get('id')}] {block.get('name')} {tool_input}"
    if kind == "tool_result":
        error = " (error)" if block.get("is_error") is True else ""
        return f"[tool_result for {block.get('tool_use_id')}{error}]\n{_result_text(block)}"
    return json.dumps(block, ensure_ascii=False)


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""
