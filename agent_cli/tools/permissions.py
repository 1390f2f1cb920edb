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

An "always" answer for a command that runs git (`is_bound_to_git_files`: exact or prefix,
`git_program_files.runs_git`) holds only while the files that can make git run programs
(`git_program_files`) hold what they held when the question was put: read again for each
call it would cover, in the folder that call starts in. After any change (an edit, a
command, another program) the call is asked about again, its request carrying
`git_changed` (the answer and the files that changed) so the question can say why; an
"always" answer given then holds for the files as they are now. Without this, after `p`
for `git status` an edit of `.git/config` adding `core.fsmonitor` made the next
`git status` run that program unasked.

A call writing a file git reads its programs from (`is_git_program_file`: `.git/config`, a
`.gitattributes`, the hooks folder the configuration names, ...) reaches the asker with
`writes_git_file` set, so its question can warn before the write is approved.

`question_watcher` (if set) is told when a question is put (`asking`, before the asker
runs) and what came of it (`answered(allowed)`, before the call may start), so the
session's transcript can tell a call that was never approved from one that may have
run. `answered` may raise a `ToolError` (`CallStartUnrecorded`): the call then does not
run. Nothing is told for a call allowed without asking (`--yes`, an "always" answer).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Protocol, runtime_checkable

from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.approval import Approval
from agent_cli.tools.approval_scope import (
    AlwaysScope,
    ApprovalTarget,
    ScopeKind,
    TargetKind,
    offered_scopes,
)
from agent_cli.tools.git_program_files import (
    GitProgramFiles,
    changed_files,
    is_git_program_file,
    read_git_program_files,
    runs_git,
)


@dataclass(frozen=True)
class GitFilesChanged:
    """Why a call an "always" answer's words cover is asked again: the files that can
    make git run programs changed since it was given (`files`, as a person names them)."""

    scope: AlwaysScope
    files: tuple[str, ...]


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
    # Set by the gate: an "always" answer whose words cover this call no longer holds.
    git_changed: GitFilesChanged | None = field(default=None, compare=False)
    # Set by the gate: the file written is one git reads its programs from
    # (`git_program_files.is_git_program_file`), which the question warns of.
    writes_git_file: bool = field(default=False, compare=False)
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


@dataclass(frozen=True)
class StandingAnswer:
    """An "always" answer in force: its scope and, for one bound to git's files
    (`is_bound_to_git_files`), what they held when it was given (else None)."""

    scope: AlwaysScope
    git_files: GitProgramFiles | None = None


class PermissionGate:
    """Holds the approval policy and the scopes the user has already allowed for good.
    `environ`: where git's files are looked for (`HOME`, `GIT_CONFIG_GLOBAL`, ...); None,
    this process's environment at each check (the one commands run with)."""

    def __init__(
        self,
        ask: PermissionAsker | None,
        auto_approve: bool,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._ask = ask
        self._auto_approve = auto_approve
        self._environ = environ
        self._answers: list[StandingAnswer] = []
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
        request = dataclasses.replace(request, writes_git_file=self._writes_git_file(request))
        covering, changed = self._standing_answer_for(request.target)
        if covering is not None:
            if isinstance(self._ask, ShowingAsker):
                self._ask.show_unasked(request, covering)
            return True
        if self._ask is None:
            self.last_refusal_unasked = True
            return False
        request = dataclasses.replace(request, git_changed=changed)
        git_files = self._git_files_for(request.target)  # as the user sees them asked
        watcher = self.question_watcher
        if watcher is not None:
            watcher.asking()
        decision = self._ask(request)
        self.last_refusal_unasked = decision is PermissionDecision.DENY_UNASKED
        if watcher is not None:
            watcher.answered(decision in _ALLOWING)
        scope = chosen_scope(request, decision)
        if scope is not None:
            bound = git_files if is_bound_to_git_files(scope) else None
            self._remember(StandingAnswer(scope, bound))
        return decision in _ALLOWING

    def _remember(self, answer: StandingAnswer) -> None:
        """Keep `answer`, in the place of one for the same scope (its files as now)."""
        places = [i for i, kept in enumerate(self._answers) if kept.scope == answer.scope]
        if places:
            self._answers[places[0]] = answer
        else:
            self._answers.append(answer)

    @property
    def always_allowed(self) -> tuple[AlwaysScope, ...]:
        """The "always" answers in force, oldest first."""
        return tuple(answer.scope for answer in self._answers)

    def revoke(self, scope: AlwaysScope | None = None) -> int:
        """Take back the "always" answer `scope` (None: every one); how many were taken
        back (0 when `scope` is not in force)."""
        kept = [a for a in self._answers if scope is not None and a.scope != scope]
        taken = len(self._answers) - len(kept)
        self._answers = kept
        return taken

    def is_covered(self, request: PermissionRequest) -> bool:
        """True when an earlier "always" covers what `request` acts on."""
        return self.covering_scope(request) is not None

    def covering_scope(self, request: PermissionRequest) -> AlwaysScope | None:
        """The earlier "always" scope that covers what `request` acts on now, if any."""
        return self._standing_answer_for(request.target)[0]

    def _standing_answer_for(
        self, target: ApprovalTarget | None
    ) -> tuple[AlwaysScope | None, GitFilesChanged | None]:
        """The scope in force that covers `target`, else (None, why one whose words
        cover it no longer holds: git's files changed, or None)."""
        if target is None:
            return None, None
        changed: GitFilesChanged | None = None
        now: GitProgramFiles | None = None  # read once, only when needed
        for answer in self._answers:
            if not answer.scope.covers(target):
                continue
            if answer.git_files is None:
                return answer.scope, None
            now = now if now is not None else self._read_git_files(target.start)
            if now == answer.git_files:
                return answer.scope, None
            files = changed_files(answer.git_files, now, target.start)
            changed = changed or GitFilesChanged(answer.scope, files)
        return None, changed

    def _git_files_for(self, target: ApprovalTarget | None) -> GitProgramFiles | None:
        """git's files for a command that runs git (None for any other call)."""
        if target is None or target.kind is not TargetKind.COMMAND or not runs_git(target.value):
            return None
        return self._read_git_files(target.start)

    def _read_git_files(self, start: Path | None) -> GitProgramFiles:
        return read_git_program_files(start, self._environ_now())

    def _writes_git_file(self, request: PermissionRequest) -> bool:
        """True for a call writing a file git reads its programs from."""
        target = request.target
        if target is None or target.kind is not TargetKind.FILE:
            return False
        return is_git_program_file(Path(target.value), self._environ_now())

    def _environ_now(self) -> Mapping[str, str]:
        return os.environ if self._environ is None else self._environ


def is_bound_to_git_files(scope: AlwaysScope) -> bool:
    """True for an "always" answer that holds only while git's files are unchanged: one
    for a command (exact or prefix) that runs git (module contract)."""
    commands = (ScopeKind.EXACT_COMMAND, ScopeKind.COMMAND_PREFIX)
    return scope.kind in commands and runs_git(scope.approved or scope.value)


def chosen_scope(request: PermissionRequest, decision: PermissionDecision) -> AlwaysScope | None:
    """The offered scope `decision` names, or None (once, deny, or not offered)."""
    offered = request.always_scopes()
    if decision is PermissionDecision.ALLOW_ALWAYS and offered:
        return offered[0]
    if decision is PermissionDecision.ALLOW_PREFIX:
        prefixes = [s for s in offered if s.kind is ScopeKind.COMMAND_PREFIX]
        return prefixes[0] if prefixes else None
    return None
