"""The "always" answers in force: the `stats` approvals line and `/permissions`.

Contract: `describe_approvals_in_force(approvals_off_by, scopes)` is the `stats` line:
approvals off (and where that came from), all asked for, or asked for except what the
"always" answers in force allow, each named. `describe_scope(scope)` names one answer on
one line (controls shown as letters, long commands clipped with their length said).
`build_permissions_view(scopes)` lists them numbered, with how to take them back
(`/permissions revoke <number>`, `/permissions reset`); `describe_revoked` says what was
taken back. The numbers are the order the answers were given (`always_allowed`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from agent_cli.repl.banner import describe_approvals
from agent_cli.repl.safe_text import clip_line
from agent_cli.tools.approval_scope import AlwaysScope, ScopeKind
from agent_cli.tools.output import count_noun
from agent_cli.written_out import reveal_controls

MAX_SCOPE_CHARS = 100
HOW_TO_REVOKE = "/permissions revoke <number> takes one back, /permissions reset takes all back"


def describe_scope(scope: AlwaysScope) -> str:
    """One "always" answer in words: what it lets run without asking."""
    if scope.kind is ScopeKind.EXACT_COMMAND:
        return f"the exact command {_shown(scope.value)}"
    if scope.kind is ScopeKind.COMMAND_PREFIX:
        approved = f" (approved for {_shown(scope.approved)})" if scope.approved else ""
        return f'commands "{_shown(scope.shown)} …" with plain words after it{approved}'
    if scope.kind is ScopeKind.MCP_TOOL:
        return f"calls of the MCP tool {_shown(scope.shown)}"
    return f"writes and edits of {_shown(scope.shown)}"


def _shown(text: str) -> str:
    """`text` on one line, controls written out, clipped with its length said."""
    revealed = "".join(part for part, _ in reveal_controls(text))
    flat = clip_line(revealed, MAX_SCOPE_CHARS)
    if flat == " ".join(revealed.split()):
        return flat
    return f"{flat} ({count_noun(len(text), 'character')})"


def describe_approvals_in_force(approvals_off_by: str | None, scopes: Sequence[AlwaysScope]) -> str:
    """The `stats` line for approvals, naming every "always" answer in force."""
    if approvals_off_by is not None or not scopes:
        return describe_approvals(approvals_off_by)
    listed = "; ".join(f"{number}. {describe_scope(s)}" for number, s in enumerate(scopes, 1))
    answers = count_noun(len(scopes), '"always" answer')
    verb = "lets" if len(scopes) == 1 else "let"
    return (
        f"on: writes, commands and MCP calls are asked for, except what {answers} of this "
        f"session {verb} run unasked (/permissions takes them back): {listed}"
    )


def build_permissions_view(scopes: Sequence[AlwaysScope], approvals_off: bool) -> Text:
    """`/permissions`: the "always" answers in force, numbered, and how to take them back."""
    if approvals_off:
        return Text(
            "Approvals are off for this run: everything runs without asking, so there is "
            "nothing to take back.",
            style="yellow",
        )
    if not scopes:
        return Text(
            'No "always" answers in this session: every write, command and MCP call is asked for.',
            style="dim",
        )
    text = Text('Allowed without asking for the rest of this session ("always" answers):\n')
    for number, scope in enumerate(scopes, 1):
        text.append(f"  {number}. {describe_scope(scope)}\n")
    text.append(HOW_TO_REVOKE + ".", style="dim")
    return text


def describe_revoked(scopes: Sequence[AlwaysScope]) -> Text:
    """What `/permissions revoke` or `reset` took back: it is asked about again."""
    if not scopes:
        return Text('No "always" answers to take back.', style="dim")
    if len(scopes) == 1:
        return Text(f"Taken back: {describe_scope(scopes[0])}; asked about again.", style="green")
    return Text(
        f'Taken back: all {len(scopes)} "always" answers; everything is asked about again.',
        style="green",
    )
