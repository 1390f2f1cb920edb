"""Secrets in a resumed view's tool results, redacted before any request.

Why: a tool result is redacted of the secrets known when it ran. A value the user names
a secret later (`AGENT_CLI_SECRET_NAMES=SIGNING_SEED agent-cli --continue`) was recorded
whole in an earlier result, and every request of the resumed session would send it
again. The transcript stays as written (append-only and lossless, DESIGN.md); what is
sent comes from the view, which is disposable, so the view is redacted, as read-backs of
artifacts are (`Session.read_tool_output`).

Contract: `redact_tool_results(view, secrets)` returns the view with the text of every
tool_result (string content, or its text blocks) redacted with `secrets`, and how many
occurrences were replaced. A message whose results hold no secret is the same object;
each text is searched once first, so resuming a long session without secrets costs one
plain scan of its results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.secret_forms import REDACTED_MARK, SecretForms

Message = dict[str, Any]


def redact_tool_results(view: Sequence[Message], secrets: SecretForms) -> tuple[list[Message], int]:
    """`view` with secrets redacted from its tool results, and how many (module contract)."""
    if secrets.pattern is None:
        return list(view), 0
    redacted, total = [], 0
    for message in view:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            redacted.append(message)
            continue
        blocks, count = _redact_blocks(content, secrets)
        redacted.append(message if count == 0 else {**message, "content": blocks})
        total += count
    return redacted, total


def _redact_blocks(blocks: list[Any], secrets: SecretForms) -> tuple[list[Any], int]:
    """The blocks with their tool results' texts redacted, and how many occurrences."""
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
    """A tool_result's content (a string or a list of blocks), redacted."""
    if isinstance(content, str):
        return _redact_text(content, secrets)
    if not isinstance(content, list):
        return content, 0
    out, total = [], 0
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text, count = _redact_text(block.get("text"), secrets)
            if count:
                block = {**block, "text": text}
                total += count
        out.append(block)
    return out, total


def _redact_text(text: Any, secrets: SecretForms) -> tuple[Any, int]:
    pattern = secrets.pattern
    if not isinstance(text, str) or pattern is None or pattern.search(text) is None:
        return text, 0
    return pattern.subn(REDACTED_MARK, text)
