"""What one "always" answer covers: the exact command, a command prefix, or one file.

Contract: a call that needs permission names its `ApprovalTarget`: the shell command it
runs, or the resolved file it writes. `offered_scopes(target)` lists what an "always"
answer may cover, narrowest first, and `AlwaysScope.covers(target)` says whether a later
call falls under one:
- `EXACT_COMMAND`: that command, character for character; nothing else.
- `COMMAND_PREFIX`: the command approved (word for word), and any plain command made of
  the prefix words followed only by plain operands (below): `git diff` covering
  `git diff HEAD~1 src/app.py`. The prefix is the program and the one or two words after
  it (`git diff`, `npm test`, `npm run test:unit`, `rm out`), stopping at the first
  option, path or other argument.
- `FILE`: any later write or edit of the same file (the same resolved path).
- `MCP_TOOL`: any later call of the same MCP server tool (`mcp__<server>__<tool>`), with
  any arguments; no other tool of that server.

What a careful user foresees from a prefix is more of the same act: more files read or
compared, other tests run, other files of the workspace removed. So a prefix never
covers a word that could change what the command does in kind:
- A prefix is offered only for a program agent-cli knows (`PREFIX_PROGRAMS`), named bare
  (not `./git`), whose plain operands only name what it reads, tests or removes in the
  workspace: `cat`, `ls`, `grep`, `rg`, `find`, `diff`, `echo`, ..., `rm`, `rmdir`; `git`
  only with a read-only subcommand (`status`, `diff`, `log`, `show`, ...);
  `npm`/`pnpm`/`yarn`/`bun` only `test` or `run <script>`; `cargo`
  `test`/`check`/`build`/`clippy`; `go` `test`/`vet`. Never one that runs its arguments
  (`sudo`, `env`, `bash`, `xargs`, interpreters), installs, fetches or pushes code
  (`npm install`, `pip install`, `git fetch`, `git push`, `uv run`), or whose operands can
  write elsewhere, configure or hook (`cp`, `mv`, `tee`, `touch`, `git config`).
- A plain operand (`is_plain_operand`) is one word of ASCII letters, digits and
  `_ . , / @ % ^ ~ + -` that starts with a letter, digit, `_` or `.`: never an option
  (`-x`, `--output=f`, `-exec`, `-delete`, `--pre`), a `+refspec`, an assignment (`=`),
  `host:path`, a glob, a brace, `$` or a quote; and, as a path, never absolute, never
  from home (`~`), never climbing (`..`) and never into `.git`. For a program that
  removes (`REMOVING_PROGRAMS`: `rm`, `rmdir`) only a name in the folder commands start
  in (no `/`): a linked folder inside the workspace cannot lead elsewhere.
- Where the call names the folder it starts in (`ApprovalTarget.start`, the workspace
  for bash), each operand (for a program without subcommands, every word after it; the
  approved command's too) is also followed there through every symbolic link on its
  way (`reaches_only_inside`): one that leads outside that folder or into `.git`, or
  that the system cannot follow, is not covered, so a link a cloned repository ships
  (`notes.md -> ~/.ssh/id_rsa`) cannot turn `cat LICENSE notes.md` into a read of
  another place unasked. For `diff`, which reads the files inside a folder it is given,
  only operands that are no folder are covered.
  So after `p` for `find src -name '*.py'`, `find src -exec ...` and `find src -delete`
  are asked about; after `p` for `rm out`, `rm out -rf x`, `rm out /elsewhere` and
  `rm out docs/x` are.
- Nor does a prefix cover a command that reaches agent-cli's own state folders
  (`ApprovalTarget.off_limits`: transcripts, memory, the prompt history), which the file
  tools refuse: an operand in one of them or holding one (`cat notes agent-home/history`,
  `tree src .` with the state folder below), or any command of a program that may walk
  the folder it starts in (`WALKING_PROGRAMS`: `rg needle`) where one lies below it (a
  fifteenth outside attack: after `p` for `cat`, `cat .local/share/agent-cli/transcripts/
  <id>.jsonl` ran unasked).

A plain command is one line of words separated by spaces or tabs with no shell syntax
that could start another command or touch another file: no `;`, `&`, `|`, backtick,
`$(`, `${`, `$[`, `<`, `>`, `(`, `)`, backslash, line break or other control character. A
command with any of them is never covered by a prefix, so `npm test; rm -rf ~` is asked
about even after `npm test` was allowed by prefix. Quoting is not interpreted: a quoted
`;` also disqualifies (asking once more is the safe side).

Why: "always" once remembered the tool name, so approving `echo one` let
`echo two; rm -f tall.txt` run unasked; then a prefix counted options as plain
arguments, so `p` for `find src -name '*.py'` let `find src -exec <anything> {} +` run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
    `shown` is how the user names it (the command, or the workspace-relative path);
    `start`: the resolved folder a command starts in, where its operands are followed
    (None: not known, operands are judged by their words alone); `off_limits`: resolved
    folders no prefix may reach (agent-cli's own state folders)."""

    kind: TargetKind
    value: str
    shown: str
    start: Path | None = None
    off_limits: tuple[Path, ...] = ()


def command_target(
    command: str, start: Path | None = None, off_limits: tuple[Path, ...] = ()
) -> ApprovalTarget:
    """A shell command run in `start` (a resolved folder; see `ApprovalTarget`)."""
    return ApprovalTarget(TargetKind.COMMAND, command, command, start, off_limits)


def file_target(resolved: Path, shown: str) -> ApprovalTarget:
    return ApprovalTarget(TargetKind.FILE, str(resolved), shown)


def mcp_tool_target(offered_name: str, shown: str) -> ApprovalTarget:
    """One MCP server tool (`offered_name`), shown as `shown` (server and tool)."""
    return ApprovalTarget(TargetKind.MCP_TOOL, offered_name, shown)


@dataclass(frozen=True)
class AlwaysScope:
    """What one "always" covers; `value` is the command, the prefix words joined by one
    space, or the resolved path; `shown` is how the question names it. A prefix scope
    keeps the command it was approved for (`approved`): that command stays covered
    whole, options and all."""

    kind: ScopeKind
    value: str
    shown: str
    approved: str = ""

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
        if words is None:
            return False
        prefix = self.value.split(" ")
        if words != plain_command_words(self.approved):  # (that one is covered whole)
            covered = operand_rule(prefix[0])
            if words[: len(prefix)] != prefix or not all(map(covered, words[len(prefix) :])):
                return False
        program = prefix[0]
        # the words that may name a place: after the prefix, or (a program without
        # subcommands, whose prefix words are operands too) every word after the program
        named = words[len(prefix) :] if PREFIX_PROGRAMS.get(program) else words[1:]
        files_only = program in READS_INSIDE_FOLDERS
        start = target.start
        if start is None:
            return True
        if program in WALKING_PROGRAMS:  # its pattern or a missing operand: the start
            named = [*named, "."]
        return all(
            reaches_only_inside(start, word, files_only, target.off_limits) for word in named
        )


_READ_TESTS = frozenset({"test", "t"})
_RUN_SCRIPT = frozenset({"run", "run-script"})  # the script's name is part of the prefix
# Program -> the subcommands a prefix may start with; an empty set: the program takes no
# subcommand, every word after it is an operand (see the module contract).
PREFIX_PROGRAMS: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        (
            *("cat", "ls", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "find"),
            *("tree", "du", "stat", "file", "diff", "cmp", "echo", "printf", "pwd"),
            *("which", "basename", "dirname", "realpath", "readlink", "nl", "cut", "sort"),
            *("md5sum", "sha1sum", "sha256sum", "sha512sum"),
            *("rm", "rmdir"),
        ),
        frozenset(),
    ),
    "git": frozenset(
        {
            *("status", "diff", "log", "show", "blame", "shortlog", "describe"),
            *("ls-files", "ls-tree", "grep", "whatchanged"),
        }
    ),
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), _READ_TESTS | _RUN_SCRIPT),
    "cargo": frozenset({"test", "check", "build", "clippy"}),
    "go": frozenset({"test", "vet"}),
}
# Programs that remove what their operands name: only names in the folder commands start
# in (the workspace's top), so no linked folder inside it can lead to another place.
REMOVING_PROGRAMS = frozenset({"rm", "rmdir"})
# Programs that, given a folder, read the files in it by name (`diff a b` compares the
# files the folders share, following their links): a prefix covers files only.
READS_INSIDE_FOLDERS = frozenset({"diff"})
# Programs that walk the folder they start in when given no folder (`rg needle`): where a
# state folder lies below it, a prefix covers none of their commands.
WALKING_PROGRAMS = frozenset({"rg", "find", "tree", "du"})
MAX_SUBCOMMAND_WORDS = 2  # `npm run test:unit`, `git diff HEAD`
MAX_PREFIX_CHARS = 40  # a longer prefix is not offered: the question must show it whole
_SUBCOMMAND = re.compile(r"[A-Za-z][A-Za-z0-9_:+-]*")
_OPERAND = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.,/@%^~+-]*")
_PLACES_NOT_COVERED = frozenset({"..", ".git"})  # climbing out; git's config and hooks
# Shell syntax that could start another command, redirect, or substitute one.
_NOT_PLAIN = re.compile(r"[;&|`<>()\\\x00-\x08\x0a-\x1f\x7f-\x9f]|\$[({\[]")
_BLANKS = re.compile(r"[ \t]+")


def plain_command_words(command: str) -> list[str] | None:
    """The words of a plain command (see the module contract), or None if it is not one."""
    if _NOT_PLAIN.search(command):
        return None
    words = _BLANKS.split(command.strip(" \t"))
    return words if words != [""] else None


def is_plain_operand(word: str) -> bool:
    """True for a word a prefix may cover after its prefix words (the module contract):
    no option, no shell expansion, no path outside the workspace or into `.git`."""
    if not _OPERAND.fullmatch(word):
        return False
    return not any(part.lower() in _PLACES_NOT_COVERED for part in word.split("/"))


def reaches_only_inside(
    start: Path, word: str, files_only: bool = False, off_limits: tuple[Path, ...] = ()
) -> bool:
    """True when `word`, taken as a path from the resolved folder `start` with every
    symbolic link on its way followed, stays in `start` and out of `.git`, neither in
    nor above any folder of `off_limits`; with `files_only`, also when it is no folder
    (`READS_INSIDE_FOLDERS`). Any error on the way (a link loop, a path the system finds
    too long, a folder it may not read) is False; a name that does not exist is taken as
    it would be made (nothing is below it)."""
    joined = start / word
    try:
        resolved = joined.resolve(strict=True)
    except FileNotFoundError:  # every existing part resolved without error: the rest is text
        resolved = joined.resolve(strict=False)
    except (OSError, RuntimeError):
        return False
    if resolved != start and not resolved.is_relative_to(start):
        return False
    below = resolved.relative_to(start).parts
    if any(part.lower() in _PLACES_NOT_COVERED for part in below):
        return False
    if any(resolved.is_relative_to(f) or f.is_relative_to(resolved) for f in off_limits):
        return False
    return not (files_only and resolved.is_dir())


def is_plain_name(word: str) -> bool:
    """A plain operand that names something in the folder itself: no `/` at all."""
    return "/" not in word and is_plain_operand(word)


def operand_rule(program: str) -> Callable[[str], bool]:
    """Which operands a prefix of `program` covers after its prefix words."""
    return is_plain_name if program in REMOVING_PROGRAMS else is_plain_operand


def command_prefix(command: str) -> str | None:
    """The prefix a prefix rule for `command` would cover (`npm test`), or None when no
    prefix is offered for it."""
    words = plain_command_words(command)
    if words is None or words[0] not in PREFIX_PROGRAMS:
        return None
    program, rest = words[0], words[1:]
    subcommands = list(takewhile(_SUBCOMMAND.fullmatch, rest[:MAX_SUBCOMMAND_WORDS]))
    if not subcommands or not _offers_prefix(program, subcommands):
        return None
    prefix = " ".join([program, *subcommands])
    return prefix if len(prefix) <= MAX_PREFIX_CHARS else None


def _offers_prefix(program: str, subcommands: list[str]) -> bool:
    """Whether a prefix of `program` may go on with `subcommands`: operands it covers
    (a program without subcommands), or a known subcommand, naming its script when it
    runs one."""
    known = PREFIX_PROGRAMS[program]
    if not known:
        return all(map(operand_rule(program), subcommands))
    if subcommands[0] not in known:
        return False
    return subcommands[0] not in _RUN_SCRIPT or len(subcommands) > 1


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
    return (exact, AlwaysScope(ScopeKind.COMMAND_PREFIX, prefix, prefix, target.value))
