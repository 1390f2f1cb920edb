"""Secrets in a resumed view, redacted before any request.

Why: a tool result is redacted of the secrets known when it ran. A value the user names
a secret later (`AGENT_CLI_SECRET_NAMES=SIGNING_SEED agent-cli --continue`) was recorded
whole in an earlier result, and from there in whatever was made of it: the model's
answers that repeat it and its later tool inputs, the digest's lines and the summary.
Every request of the resumed session would send it again. The transcript stays as
written (append-only and lossless, DESIGN.md); what is sent comes from the view, which
is disposable, so the view is redacted, as read-backs of artifacts are
(`Session.read_tool_output`). A live view is redacted the same way of a value learned
mid-session (a dotenv file a command wrote: `Conversation.redact_view`).

Contract: `redact_resumed_view(view, secrets)` returns the view with every string that
came from a tool or the model redacted with `secrets`, and how many occurrences were
replaced: tool_result blocks (their whole content), assistant messages (text and tool
inputs; thinking blocks, which the API checks by signature, are left as they are), and
the digest and summary messages compaction made (their text and the structured entries
a digest is rendered from again). The user's own words are sent as typed, as in a live
session. A message that holds no secret is the same object.

What an earlier session cut holds no whole form where the cut fell inside the value: in
a tool result's text and in the digest's (its text, its requests and interaction lines),
the pieces at cut edges are hidden too (`cut_pieces.hide_cut_pieces`: a preview's head
ending inside a token, a window in the middle of a key). An image in a tool result that
holds a secret (an MCP tool's) is replaced by a text block saying it was withheld, by the
live path's own test (`call_results.image_holds_secret`): redacting its base64 would
send an image the API refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent_cli.compaction.markers import DIGEST_KEY, is_digest_message, is_summary_message
from agent_cli.cut_pieces import hide_cut_pieces
from agent_cli.mcp_servers.call_results import IMAGE_WITHHELD, image_holds_secret
from agent_cli.secret_forms import REDACTED_MARK, SecretForms

Message = dict[str, Any]
SIGNED_BLOCKS = frozenset({"thinking", "redacted_thinking"})


def redact_resumed_view(view: Sequence[Message], secrets: SecretForms) -> tuple[list[Message], int]:
    """`view` with secrets redacted where the module contract says, and how many."""
    if secrets.pattern is None:
        return list(view), 0
    redacted, total = [], 0
    for message in view:
        changed, count = _redact_message(message, secrets)
        redacted.append(changed)
        total += count
    return redacted, total


def _redact_message(message: Message, secrets: SecretForms) -> tuple[Message, int]:
    """One message of the view, redacted (module contract), and how many occurrences."""
    if is_digest_message(message):
        return _redact_digest(message, secrets)
    if is_summary_message(message):
        return _redact_value(message, secrets)
    content = message.get("content")
    if not isinstance(content, list):
        return message, 0
    if message.get("role") == "assistant":
        blocks, count = _redact_blocks(content, secrets, lambda kind: kind not in SIGNED_BLOCKS)
    else:
        blocks, count = _redact_tool_results(content, secrets)
    return (message, 0) if count == 0 else ({**message, "content": blocks}, count)


def _redact_tool_results(blocks: list[Any], secrets: SecretForms) -> tuple[list[Any], int]:
    """A user message's blocks with each tool_result's content redacted, pieces at its
    cuts hidden and images that hold a secret withheld; the user's own blocks as they are."""
    out, total = [], 0
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            content, count = _redact_result_content(block.get("content"), secrets)
            if count:
                block = {**block, "content": content}
                total += count
        out.append(block)
    return out, total


def _redact_result_content(content: Any, secrets: SecretForms) -> tuple[Any, int]:
    """A tool_result's content (a string or a list of blocks), redacted (module contract)."""
    if isinstance(content, str):
        return _redact_cut_text(content, secrets)
    if not isinstance(content, list):
        return _redact_value(content, secrets)
    items, total = [], 0
    for item in content:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "text" and isinstance(item.get("text"), str):
            text, count = _redact_cut_text(item["text"], secrets)
            changed = {**item, "text": text} if count else item
        elif kind == "image":
            changed, count = _withheld_if_secret(item, secrets)
        else:
            changed, count = _redact_value(item, secrets)
        items.append(changed)
        total += count
    return (content, 0) if total == 0 else (items, total)


def _redact_cut_text(text: str, secrets: SecretForms) -> tuple[str, int]:
    """`text` with the pieces at its cut edges hidden, then redacted; how many of both."""
    hidden, pieces = hide_cut_pieces(text, secrets)
    redacted, count = _redact_value(hidden, secrets)
    return redacted, count + pieces


def _withheld_if_secret(image: dict[str, Any], secrets: SecretForms) -> tuple[Any, int]:
    """An image block, or a text block in its place when its base64 data holds a secret."""
    source = image.get("source")
    data = source.get("data") if isinstance(source, dict) else None
    if not isinstance(data, str) or not image_holds_secret(data, secrets):
        return image, 0
    kind = source.get("media_type") if isinstance(source, dict) else None
    named = f"image {kind}" if isinstance(kind, str) else "image"
    return {"type": "text", "text": f"[{named}: {IMAGE_WITHHELD}]"}, 1


def _redact_digest(message: Message, secrets: SecretForms) -> tuple[Message, int]:
    """The digest message with the pieces at cuts hidden in its text and in the request
    texts and interaction lines it is rendered from (never in its pointers, which are no
    cut text), then redacted whole."""
    content, total = message.get("content"), 0
    if isinstance(content, str):
        content, total = hide_cut_pieces(content, secrets)
    data = message.get(DIGEST_KEY)
    entries: dict[str, Any] = dict(data) if isinstance(data, dict) else {}
    for key, field in (("requests", "text"), ("interactions", "line")):
        items = entries.get(key)
        if isinstance(items, list):
            entries[key], count = _hide_in_entries(items, field, secrets)
            total += count
    hidden = {**message, "content": content, DIGEST_KEY: entries} if total else message
    redacted, count = _redact_value(hidden, secrets)
    return (message, 0) if total + count == 0 else (redacted, total + count)


def _hide_in_entries(items: list[Any], field: str, secrets: SecretForms) -> tuple[list[Any], int]:
    """Digest entries with the pieces at cuts hidden in each one's `field`."""
    out, total = [], 0
    for item in items:
        text = item.get(field) if isinstance(item, dict) else None
        if isinstance(text, str):
            hidden, count = hide_cut_pieces(text, secrets)
            if count:
                item, total = {**item, field: hidden}, total + count
        out.append(item)
    return out, total


def _redact_blocks(
    blocks: list[Any], secrets: SecretForms, is_redacted: Callable[[Any], bool]
) -> tuple[list[Any], int]:
    """`blocks` with each block whose type `is_redacted` approves redacted whole, and how
    many occurrences in all."""
    out, total = [], 0
    for block in blocks:
        if isinstance(block, dict) and is_redacted(block.get("type")):
            block, count = _redact_value(block, secrets)
            total += count
        out.append(block)
    return out, total


def _redact_value(value: Any, secrets: SecretForms) -> tuple[Any, int]:
    """A JSON value with every string in it redacted (a new container only where
    something was), and how many occurrences."""
    if isinstance(value, str):
        pattern = secrets.pattern
        if pattern is None or pattern.search(value) is None:
            return value, 0
        return pattern.subn(REDACTED_MARK, value)
    if isinstance(value, dict):
        pairs = [(key, _redact_value(item, secrets)) for key, item in value.items()]
        total = sum(count for _, (_, count) in pairs)
        return (value, 0) if total == 0 else ({key: item for key, (item, _) in pairs}, total)
    if isinstance(value, list | tuple):
        items = [_redact_value(item, secrets) for item in value]
        total = sum(count for _, count in items)
        return (value, 0) if total == 0 else (type(value)(item for item, _ in items), total)
    return value, 0
