"""Asking the user before a tool writes or executes.

Contract: a tool that needs permission runs only when `PermissionGate.is_allowed` says so.
With `auto_approve` (`--yes`) everything is allowed; with no asker everything is denied
(a toolbox nobody can ask must not act on its own). An "always" answer is remembered for
the life of the gate (one session's toolbox) as the `AlwaysScope` the question offered
(`approval_scope`): `ALLOW_ALWAYS` the narrowest (that exact command, or that file),
`ALLOW_PREFIX` the command prefix. A later call is allowed unasked only when a remembered
scope covers its target; a request without a target (or an answer naming a scope that was
not offered) is allowed once and remembers nothing. Unasked is not unseen: an asker that
can show things (`ShowingAsker`, the REPL's) is handed each call an "always" lets through,
with the scope that covers it, to show what it does as the question would have.
`always_allowed` lists the scopes in force, oldest first (what `stats` and `/permissions`
show); `revoke` takes one back, or all of them: the calls they covered are asked about
again.

`question_watcher` (if set) is told when a question is put (`asking`, before the asker
runs) and what came of it (`answered(allowed)`, before the call may start), so the
session's transcript can tell a call that was never approved from one that may have
run. `answered` may raise a `ToolError` (`CallStartUnrecorded`): the call then does not
run. Nothing is told for a call allowed without asking (`--yes`, an "always" answer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, runtime_checkable

from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.approval import Approval
from agent_cli.tools.approval_scope import (
    AlwaysScope,
    ApprovalTarget,
    ScopeKind,
    offered_scopes,
)


@dataclass(frozen=True)
class PermissionRequest:
    """What the user is asked to approve: the tool, a short description of the act,
    `approval`: the full text to show before the question (the new file's content, the
    diff of an edit, the whole command; see `approval.py`), and `target`: what the call
    acts on, from which the "always" choices are made (`always_scopes`).

    For `bash` the description is the whole command: a user must see everything they
    approve, so it is never shortened. Two requests are equal when tool and description
    are (the approval text is what is shown, not who is asking).
    """

    tool: str
    description: str
    approval: Approval | None = field(default=None, compare=False)
    target: ApprovalTarget | None = field(default=None, compare=False)
    # The secrets the toolbox redacts: a view that shortens a line cuts none of them.
    secrets: SecretForms = field(default=NO_SECRETS, compare=False, repr=False)
    # The folder the call runs in (the toolbox's workspace): a resumed session's tools run
    # in its own folder, which the question names when it is not the user's (`repl`).
    folder: str | None = field(default=None, compare=False)

    def always_scopes(self) -> tuple[AlwaysScope, ...]:
        """What "always" may cover here, narrowest first (see `approval_scope`)."""
        return offered_scopes(self.target)


class PermissionDecision(Enum):
    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"  # the narrowest scope offered: that command, that file
    ALLOW_PREFIX = "allow_prefix"  # the command prefix offered
    DENY = "deny"
    DENY_UNASKED = "deny_unasked"  # nobody could be asked (-p, input not a terminal)


_ALLOWING = frozenset(
    {
        PermissionDecision.ALLOW_ONCE,
        PermissionDecision.ALLOW_ALWAYS,
        PermissionDecision.ALLOW_PREFIX,
    }
)

PermissionAsker = Callable[[PermissionRequest], PermissionDecision]


@runtime_checkable
class ShowingAsker(Protocol):
    """A `PermissionAsker` that also shows the calls it is not asked about: `show_unasked`
    gets each request an earlier "always" answer (`scope`) allows, before it runs."""

    def __call__(self, request: PermissionRequest) -> PermissionDecision: ...

    def show_unasked(self, request: PermissionRequest, scope: AlwaysScope) -> None: ...


class QuestionWatcher(Protocol):
    """Told about the permission question of one call (see the module contract)."""

    def asking(self) -> None:
        """The question is about to be put; must not raise."""

    def answered(self, allowed: bool) -> None:
        """The user answered; raises a `ToolError` when the call must not start."""


class PermissionGate:
    """Holds the approval policy and the scopes the user has already allowed for good."""

    def __init__(self, ask: PermissionAsker | None, auto_approve: bool) -> None:
        self._ask = ask
        self._auto_approve = auto_approve
        self._always_allowed: list[AlwaysScope] = []
        self.last_refusal_unasked = False
        self.question_watcher: QuestionWatcher | None = None

    def is_allowed(self, request: PermissionRequest) -> bool:
        """True when the tool may run now. KeyboardInterrupt from the asker propagates, and
        so does a `ToolError` from the `question_watcher` (the call must not run; an
        "always" answer is then not remembered). After a refusal, `last_refusal_unasked`
        says whether nobody was asked (no asker, or one that answered `DENY_UNASKED`)
        rather than a person saying no."""
        if self._auto_approve:
            return True
        covering = self.covering_scope(request)
        if covering is not None:
            if isinstance(self._ask, ShowingAsker):
                self._ask.show_unasked(request, covering)
            return True
        if self._ask is None:
            self.last_refusal_unasked = True
            return False
        watcher = self.question_watcher
        if watcher is not None:
            watcher.asking()
        decision = self._ask(request)
        self.last_refusal_unasked = decision is PermissionDecision.DENY_UNASKED
        if watcher is not None:
            watcher.answered(decision in _ALLOWING)
        scope = chosen_scope(request, decision)
        if scope is not None and scope not in self._always_allowed:
            self._always_allowed.append(scope)
        return decision in _ALLOWING

    @property
    def always_allowed(self) -> tuple[AlwaysScope, ...]:
        """The "always" answers in force, oldest first."""
        return tuple(self._always_allowed)

    def revoke(self, scope: AlwaysScope | None = None) -> int:
        """Take back the "always" answer `scope` (None: every one); how many were taken
        back (0 when `scope` is not in force)."""
        kept = [s for s in self._always_allowed if scope is not None and s != scope]
        taken = len(self._always_allowed) - len(kept)
        self._always_allowed = kept
        return taken

    def is_covered(self, request: PermissionRequest) -> bool:
        """True when an earlier "always" covers what `request` acts on."""
        return self.covering_scope(request) is not None

    def covering_scope(self, request: PermissionRequest) -> AlwaysScope | None:
        """The earlier "always" scope that covers what `request` acts on, if any."""
        target = request.target
        if target is None:
            return None
        return next((s for s in self._always_allowed if s.covers(target)), None)


def chosen_scope(request: PermissionRequest, decision: PermissionDecision) -> AlwaysScope | None:
    """The offered scope `decision` names, or None (once, deny, or not offered)."""
    offered = request.always_scopes()
    if decision is PermissionDecision.ALLOW_ALWAYS and offered:
        return offered[0]
    if decision is PermissionDecision.ALLOW_PREFIX:
        prefixes = [s for s in offered if s.kind is ScopeKind.COMMAND_PREFIX]
        return prefixes[0] if prefixes else None
    return None
