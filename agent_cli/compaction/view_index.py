"""The index of one prompt view: its token count, tool ids and message facts, kept by
whoever owns the view.

Contract:
- `ViewIndex(counter)` indexes one view at a time. `measure(messages, policy)` validates
  the tool protocol of `messages` and returns their tokens. When the view indexed last is
  a prefix of `messages` (every message of it still equal to what was indexed), only the
  messages after it are validated, counted and given facts: a conversation that appends
  a turn pays for the turn. Any other view is indexed again from the start: the index is
  rebuilt, never patched. ToolProtocolError for an invalid view, which leaves the index
  as it was (a call whose results are still running is not a reason to forget the
  history); any failure while the index is being extended empties it instead.
- "Still equal" is exact: each indexed message is kept with a structural snapshot
  (`token_memo.build_snapshot`; a frozen message, `agent_cli.frozen`, is its own
  snapshot), so a plain dict edited in place after it was indexed no longer matches and
  the view is indexed again; no stale count survives.
- `facts()` gives the message facts of the view measured last, for one compaction run
  (`facts_index.FactsIndex`): each message's user texts, tool blocks, pointer, largest
  result, answered calls with their digest entries, and file reads keyed by the policy
  it was measured under. A policy whose read rule or secret forms differ from the ones
  the index was built under rebuilds it.
- `count(messages, policy)`: `measure`, also for a view that is not valid yet (a call
  whose results are still running), which is counted message by message and not indexed.
- The index holds one view: it is the owner's (`session.conversation.Conversation`
  keeps the session's), not shared state. Not thread-safe.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.facts_index import Cutter, FactsIndex, RecordedFacts, record_facts
from agent_cli.compaction.layers.read_keys import read_rule
from agent_cli.compaction.layers.truncate import cut_message
from agent_cli.compaction.policy import CompactionPolicy, ReadRule
from agent_cli.errors import ToolProtocolError
from agent_cli.protocol import ProtocolScan
from agent_cli.secret_forms import SecretForms
from agent_cli.token_memo import build_snapshot
from agent_cli.tokens import TokenCounter

Message = dict[str, Any]
Terms = tuple[ReadRule, SecretForms]  # what recorded facts depend on of a policy
DEFAULT_POLICY = CompactionPolicy()


class ViewIndex:
    """What is known of one view (module doc)."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._snapshots: list[Any] = []
        self._messages: Sequence[Message] = ()
        self._tokens = 0
        self._tool_ids: set[str] = set()
        self._facts = RecordedFacts()
        self._terms: Terms | None = None

    @property
    def tokens(self) -> int:
        """Tokens of the view measured last (0 before any)."""
        return self._tokens

    @property
    def length(self) -> int:
        """How many messages the index holds."""
        return len(self._snapshots)

    def measure(self, messages: Sequence[Message], policy: CompactionPolicy | None = None) -> int:
        """Validate `messages` and return their tokens, extending or rebuilding the index
        (module doc). Raises ToolProtocolError for an invalid view."""
        policy = DEFAULT_POLICY if policy is None else policy
        terms = (read_rule(policy), policy.secret_forms)
        if terms != self._terms or not self._is_prefix_of(messages):
            self._clear(terms)
        start = len(self._snapshots)
        added = messages[start:]
        scan = ProtocolScan(known=self._tool_ids)
        scan.feed(added, start)
        answered = scan.finish()  # an invalid view raises here and leaves the index as it was
        try:
            tokens = self.counter.count_messages(added)
            record_facts(
                self._facts, added, start, answered, self.counter, policy, self._cutter(policy)
            )
        except BaseException:  # a bad view or Ctrl-C: never leave a half-extended index
            self._clear(None)
            raise
        self._tool_ids.update(answered)
        self._snapshots.extend(build_snapshot(message) for message in added)
        self._tokens += tokens
        self._messages = messages
        return self._tokens

    def count(self, messages: Sequence[Message], policy: CompactionPolicy | None = None) -> int:
        """Tokens of `messages`, valid or not yet (module doc)."""
        try:
            return self.measure(messages, policy)
        except ToolProtocolError:
            return self.counter.count_messages(messages)

    def facts(self) -> FactsIndex:
        """The facts of the view measured last, for one compaction run."""
        return FactsIndex(self.counter, self._facts, self._messages)

    def _cutter(self, policy: CompactionPolicy) -> Cutter:
        """L1 on one message under `policy`, for the facts recorded under it."""
        budget, counter, secrets = policy.max_tool_result_tokens, self.counter, policy.secret_forms
        return lambda message, found: cut_message(message, found, budget, counter, secrets)

    def _is_prefix_of(self, messages: Sequence[Message]) -> bool:
        """True when `messages` starts with messages equal to the indexed snapshots.

        The last indexed message is compared first, so a view that diverged is refused
        cheaply; then the whole prefix in one C-level list comparison (identity first)."""
        known = self._snapshots
        if len(known) > len(messages):
            return False
        if not known:
            return True
        last = messages[len(known) - 1]
        if last is not known[-1] and last != known[-1]:
            return False
        prefix = messages[: len(known)]
        return (prefix if isinstance(prefix, list) else list(prefix)) == known

    def _clear(self, terms: Terms | None) -> None:
        self._snapshots, self._messages, self._tokens = [], (), 0
        self._tool_ids, self._facts, self._terms = set(), RecordedFacts(), terms


def measure_view(messages: Sequence[Message], counter: TokenCounter) -> int:
    """Validate the tool protocol of `messages` and return their tokens (a fresh index:
    a caller that measures a growing view keeps a `ViewIndex` instead)."""
    return ViewIndex(counter).measure(messages)


def count_view(
    messages: Sequence[Message], counter: TokenCounter, policy: CompactionPolicy | None = None
) -> int:
    """Tokens of `messages`, valid or not yet (`ViewIndex.count` on a fresh index)."""
    return ViewIndex(counter).count(messages, policy)
