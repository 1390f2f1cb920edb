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

from collections.abc import Callable, Sequence
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
    return _redact_where(
        blocks, "tool_result", "content", lambda content: _redact_result_content(content, secrets)
    )


def _redact_result_content(content: Any, secrets: SecretForms) -> tuple[Any, int]:
    """A tool_result's content (a string or a list of blocks), redacted."""
    if isinstance(content, str):
        return _redact_text(content, secrets)
    if not isinstance(content, list):
        return content, 0
    return _redact_where(content, "text", "text", lambda text: _redact_text(text, secrets))


def _redact_where(
    blocks: list[Any], kind: str, key: str, redact: Callable[[Any], tuple[Any, int]]
) -> tuple[list[Any], int]:
    """`blocks` with `key` of each block of type `kind` redacted by `redact` (a new dict
    only where something was), and how many occurrences in all."""
    out, total = [], 0
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == kind:
            value, count = redact(block.get(key))
            if count:
                block = {**block, key: value}
                total += count
        out.append(block)
    return out, total


def _redact_text(text: Any, secrets: SecretForms) -> tuple[Any, int]:
    pattern = secrets.pattern
    if not isinstance(text, str) or pattern is None or pattern.search(text) is None:
        return text, 0
    return pattern.subn(REDACTED_MARK, text)
