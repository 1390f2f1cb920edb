"""Asking the user before a tool writes or executes.

Contract: a tool that needs permission runs only when `PermissionGate.is_allowed` says so.
With `auto_approve` (`--yes`) everything is allowed; with no asker everything is denied
(a toolbox nobody can ask must not act on its own). `ALLOW_ALWAYS` is remembered per tool
name for the life of the gate, which is one session's toolbox.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.approval import Approval


@dataclass(frozen=True)
class PermissionRequest:
    """What the user is asked to approve: the tool, a short description of the act, and
    `approval`: the full text to show before the question (the new file's content, the
    diff of an edit, the whole command; see `approval.py`).

    For `bash` the description is the whole command: a user must see everything they
    approve, so it is never shortened. Two requests are equal when tool and description
    are (the approval text is what is shown, not who is asking).
    """

    tool: str
    description: str
    approval: Approval | None = field(default=None, compare=False)
    # The secrets the toolbox redacts: a view that shortens a line cuts none of them.
    secrets: SecretForms = field(default=NO_SECRETS, compare=False, repr=False)


class PermissionDecision(Enum):
    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    DENY = "deny"


PermissionAsker = Callable[[PermissionRequest], PermissionDecision]


class PermissionGate:
    """Holds the approval policy and what the user has already allowed for good."""

    def __init__(self, ask: PermissionAsker | None, auto_approve: bool) -> None:
        self._ask = ask
        self._auto_approve = auto_approve
        self._always_allowed: set[str] = set()

    def is_allowed(self, request: PermissionRequest) -> bool:
        """True when the tool may run now. KeyboardInterrupt from the asker propagates."""
        if self._auto_approve or request.tool in self._always_allowed:
            return True
        if self._ask is None:
            return False
        decision = self._ask(request)
        if decision is PermissionDecision.ALLOW_ALWAYS:
            self._always_allowed.add(request.tool)
            return True
        return decision is PermissionDecision.ALLOW_ONCE
