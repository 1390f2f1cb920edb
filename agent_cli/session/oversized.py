"""No message blocks a session for good: an oversized text becomes an artifact.

Contract: a user text, or a model answer's text block or string in a tool call's input,
over `policy.max_message_tokens` (a quarter of the soft threshold unless set) is stored
whole in the artifact store, and the view (and the transcript record of a new message)
holds a preview instead: a header with its size and `artifact:` pointer, its head and its
tail. A tool call runs with its whole input (the answer as it arrived); only what later
requests carry is the preview. Thinking blocks, which the API checks by signature, stay
as they are. Nothing is lost (the artifact holds every
byte, content-addressed, and `recall` or `read_artifact` read it back), and no later
request can be blocked by it, message 0 included, since the preview fits the budget.
A resumed view that already holds such a message (an older session) is shrunk the same
way when the session opens; the artifact's name is its digest, so doing it again on the
next resume gives the same pointer. Storing failures raise the store's typed error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_cli.compaction import CompactionPolicy
from agent_cli.compaction.markers import is_digest_message, is_summary_message
from agent_cli.safe_cuts import safe_head_end, safe_tail_start
from agent_cli.secret_forms import NO_SECRETS, SecretForms

if TYPE_CHECKING:
    from agent_cli.store.artifacts import ArtifactStore
    from agent_cli.tokens import TokenCounter

MIN_PREVIEW_CHARS = 64


@dataclass(frozen=True)
class MessageShrinker:
    """Stores oversized user texts of one session in `artifacts` and previews them, by
    the limit and secret forms of `policy`, counted with `counter`."""

    artifacts: ArtifactStore
    session_id: str
    counter: TokenCounter
    policy: CompactionPolicy

    def shrink(self, message: dict[str, Any]) -> dict[str, Any]:
        """`message` itself, or a copy whose oversized texts are stored and previewed."""
        if message.get("role") not in ("user", "assistant") or (
            is_summary_message(message) or is_digest_message(message)
        ):
            return message  # compaction's own messages are bounded by their own budgets
        content = message.get("content")
        if isinstance(content, str):
            shrunk = self._shrink_text(content)
            return message if shrunk is content else {**message, "content": shrunk}
        if not isinstance(content, list):
            return message
        blocks = [self.shrink_block(block) for block in content]
        if all(new is old for new, old in zip(blocks, content, strict=True)):
            return message
        return {**message, "content": blocks}

    def shrink_view(self, view: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The view with every oversized user text previewed (see the module contract)."""
        return [self.shrink(message) for message in view]

    def shrink_block(self, block: Any) -> Any:
        """A text block's text, or every string of a tool call's input, previewed where
        oversized (a user message holds no tool call; a tool result is L1's to cut)."""
        kind = block.get("type") if isinstance(block, dict) else None
        key = {"text": "text", "tool_use": "input"}.get(str(kind))
        if key is None or key not in block:
            return block
        shrunk = self._shrink_value(block[key])
        return block if shrunk is block[key] else {**block, key: shrunk}

    def _shrink_value(self, value: Any) -> Any:
        """`value` (a JSON value) with its oversized strings previewed; itself when none is."""
        if isinstance(value, str):
            return self._shrink_text(value)
        if isinstance(value, dict):
            items = {key: self._shrink_value(item) for key, item in value.items()}
            same = all(items[key] is item for key, item in value.items())
            return value if same else items
        if isinstance(value, list):
            shrunk = [self._shrink_value(item) for item in value]
            return value if all(a is b for a, b in zip(shrunk, value, strict=True)) else shrunk
        return value

    def _shrink_text(self, text: str) -> str:
        limit = self.policy.max_message_tokens
        if len(text) <= limit // 4 or self.counter.count_text(text) <= limit:
            return text
        ref = self.artifacts.put(self.session_id, text.encode("utf-8"), suffix=".txt")
        secrets = self.policy.secret_forms
        return build_preview(text, ref.pointer, limit // 2, self.counter.count_text, secrets)


def build_preview(
    text: str,
    pointer: str,
    budget_tokens: int,
    count: Callable[[str], int],
    secrets: SecretForms = NO_SECRETS,
) -> str:
    """Header, head and tail of `text` within `budget_tokens` (head twice the tail), cut
    where no secret and no pointer is split (`safe_cuts`)."""
    chars = max(MIN_PREVIEW_CHARS, budget_tokens)
    while True:
        head_end = safe_head_end(text, chars * 2 // 3, secrets)
        tail_start = max(safe_tail_start(text, len(text) - chars // 3, secrets), head_end)
        head, tail = text[:head_end], text[tail_start:]
        preview = (
            f"[Large message: {len(text):,} characters, stored whole as {pointer}. Its "
            "beginning and end follow; read any part with read_artifact or recall.]\n"
            f"{head}\n[… {len(text) - len(head) - len(tail):,} characters not shown …]\n{tail}"
        )
        if chars <= MIN_PREVIEW_CHARS or count(preview) <= budget_tokens:
            return preview
        chars //= 2
