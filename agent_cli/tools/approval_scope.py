"""What one "always" answer covers: the exact command, a command prefix, or one file.

Contract: a call that needs permission names its `ApprovalTarget`: the shell command it
runs, or the resolved file it writes. `offered_scopes(target)` lists what an "always"
answer may cover, narrowest first, and `AlwaysScope.covers(target)` says whether a later
call falls under one:
- `EXACT_COMMAND`: that command, character for character; nothing else.
- `COMMAND_PREFIX` (offered only for a plain command, see below): any plain command whose
  first words are the prefix words, `npm test` covering `npm test --watch`. The prefix is
  the program and the one or two subcommand words after it (`git status`, `npm test`,
  `npm run test:unit`), stopping at the first option, path or other argument; a program
  that runs its arguments as a command (`sudo`, `env`, `bash`, `xargs`, ...) gets none,
  since its prefix would cover anything.
- `FILE`: any later write or edit of the same file (the same resolved path).
- `MCP_TOOL`: any later call of the same MCP server tool (`mcp__<server>__<tool>`), with
  any arguments; no other tool of that server.

A plain command is one line of words separated by spaces or tabs with no shell syntax
that could start another command or touch another file: no `;`, `&`, `|`, backtick,
`$(`, `${`, `$[`, `<`, `>`, `(`, `)`, backslash, line break or other control character. A
command with any of them is never covered by a prefix, so `npm test; rm -rf ~` is asked
about even after `npm test` was allowed by prefix. Quoting is not interpreted: a quoted
`;` also disqualifies (asking once more is the safe side).

Why: "always" once remembered the tool name, so approving `echo one` let
`echo two; rm -f tall.txt` run unasked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from itertools import takewhile
from pathlib import Path


class TargetKind(Enum):
    COMMAND = "command"
    FILE = "file"
    MCP_TOOL = "mcp_tool"


class ScopeKind(Enum):
    EXACT_COMMAND = "exact_command"
    COMMAND_PREFIX = "command_prefix"
    FILE = "file"
    MCP_TOOL = "mcp_tool"


@dataclass(frozen=True)
class ApprovalTarget:
    """What one call acts on: `value` is the command, or the file's resolved path;
    `shown` is how the user names it (the command, or the workspace-relative path)."""

    kind: TargetKind
    value: str
    shown: str


def command_target(command: str) -> ApprovalTarget:
    return ApprovalTarget(TargetKind.COMMAND, command, command)


def file_target(resolved: Path, shown: str) -> ApprovalTarget:
    return ApprovalTarget(TargetKind.FILE, str(resolved), shown)


def mcp_tool_target(offered_name: str, shown: str) -> ApprovalTarget:
    """One MCP server tool (`offered_name`), shown as `shown` (server and tool)."""
    return ApprovalTarget(TargetKind.MCP_TOOL, offered_name, shown)


@dataclass(frozen=True)
class AlwaysScope:
    """What one "always" covers; `value` is the command, the prefix words joined by one
    space, or the resolved path; `shown` is how the question names it."""

    kind: ScopeKind
    value: str
    shown: str

    def covers(self, target: ApprovalTarget) -> bool:
        if self.kind is ScopeKind.FILE:
            return target.kind is TargetKind.FILE and target.value == self.value
        if self.kind is ScopeKind.MCP_TOOL:
            return target.kind is TargetKind.MCP_TOOL and target.value == self.value
        if target.kind is not TargetKind.COMMAND:
            return False
        if self.kind is ScopeKind.EXACT_COMMAND:
            return target.value == self.value
        words = plain_command_words(target.value)
        prefix = self.value.split(" ")
        return words is not None and words[: len(prefix)] == prefix


# A program that runs (part of) its arguments as a command: a prefix of it covers anything.
COMMAND_RUNNERS = frozenset(
    {
        *("sudo", "doas", "su", "env", "eval", "exec", "command", "builtin", "source", "."),
        *("coproc", "trap", "let"),
        *("xargs", "parallel", "nohup", "nice", "ionice", "time", "timeout", "watch"),
        *("setsid", "stdbuf", "chroot", "unshare", "strace", "script", "ssh", "busybox"),
        *("sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"),
    }
)
MAX_SUBCOMMAND_WORDS = 2  # `npm run test:unit`, `docker compose up`
MAX_PREFIX_CHARS = 40  # a longer prefix is not offered: the question must show it whole
_PROGRAM = re.compile(r"[A-Za-z0-9_./+][A-Za-z0-9_./+-]*")
_SUBCOMMAND = re.compile(r"[A-Za-z][A-Za-z0-9_:+-]*")
# Shell syntax that could start another command, redirect, or substitute one.
_NOT_PLAIN = re.compile(r"[;&|`<>()\\\x00-\x08\x0a-\x1f\x7f-\x9f]|\$[({\[]")
_BLANKS = re.compile(r"[ \t]+")


def plain_command_words(command: str) -> list[str] | None:
    """The words of a plain command (see the module contract), or None if it is not one."""
    if _NOT_PLAIN.search(command):
        return None
    words = _BLANKS.split(command.strip(" \t"))
    return words if words != [""] else None


def command_prefix(command: str) -> str | None:
    """The prefix a prefix rule for `command` would cover (`npm test`), or None when no
    prefix is offered for it."""
    words = plain_command_words(command)
    if words is None or not _PROGRAM.fullmatch(words[0]):
        return None
    program = words[0]
    if program in COMMAND_RUNNERS or Path(program).name in COMMAND_RUNNERS:
        return None
    subcommands = list(takewhile(_SUBCOMMAND.fullmatch, words[1 : 1 + MAX_SUBCOMMAND_WORDS]))
    if not subcommands:
        return None
    prefix = " ".join([program, *subcommands])
    return prefix if len(prefix) <= MAX_PREFIX_CHARS else None


def offered_scopes(target: ApprovalTarget | None) -> tuple[AlwaysScope, ...]:
    """What an "always" answer may cover for `target`, narrowest first; () for none."""
    if target is None:
        return ()
    if target.kind is TargetKind.FILE:
        return (AlwaysScope(ScopeKind.FILE, target.value, target.shown),)
    if target.kind is TargetKind.MCP_TOOL:
        return (AlwaysScope(ScopeKind.MCP_TOOL, target.value, target.shown),)
    exact = AlwaysScope(ScopeKind.EXACT_COMMAND, target.value, target.shown)
    prefix = command_prefix(target.value)
    if prefix is None:
        return (exact,)
    return (exact, AlwaysScope(ScopeKind.COMMAND_PREFIX, prefix, prefix))
