"""The command lines a command's arguments hand to a shell, and their words. Pure.

An MCP server is often started through a shell (`command = "sh"`, `args = ["-c", "exec
srv --api-key X"]`, or `docker run ... sh -c "..."`): its credentials are then inside
one argument, written as a command line, and read as separate words only once the shell
has split it. To find them without running anything, the line is split here as the
shell would split it.

Contract:
- `command_lines(args)` yields `(index, line)` for each command line in `args`: after a
  word naming a POSIX-style shell (`POSIX_SHELLS`: `sh`, `bash`, `zsh`, `dash`, ...; a
  path and `.exe` are passed over) told by its options to run one (`-c` alone or among
  other letters, `-lc`, `-ec`; `--command`, `--command=line`), the first argument after
  its options (`-o`/`-O` and `--rcfile`/`--init-file` take one); after `cmd` and its
  switches, `/c`, `/k` or `/r` (any case): the rest of the arguments joined by blanks;
  after `powershell` or `pwsh`, its `-Command` (`-c`, a prefix of it, `/` for `-`, any
  case) wherever it stands among the options: the rest joined by blanks, with `$env:NAME = value` read as `NAME=value`, and
  `-EncodedCommand` (`-e`, `-ec`, `-enc`...): its base64 of UTF-16LE decoded; the
  arguments after such a line are part of it, read with it only. `index` is
  the argument where the line starts. At most `MAX_OPTIONS` words after a shell's name
  are read as its options.
- `command_words(line)` yields the words of each simple command of `line` as the shell
  passes them on (`tools.shell_lexer` splits, `tools.shell_expansion` expands, with the
  names assigned earlier in the line): quotes removed, a `NAME=value` assignment kept
  as that word (`GITHUB_TOKEN=X exec srv`: `GITHUB_TOKEN=X`, `exec`, `srv`). Nothing
  is run; the work is bounded by the line's length and `EXPANSION_BUDGET`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Sequence

from agent_cli.tools.shell_expansion import Budget, BudgetSpent, Expansion, ValueTooLong
from agent_cli.tools.shell_lexer import lex_script

POSIX_SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh"}
)
EXPANSION_BUDGET = 1024 * 1024  # characters, over one line's reading
_SHELL_OPTIONS_WITH_VALUE = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_CMD_RUNS = frozenset({"/c", "/k", "/r"})
# the options read after a shell's name: real ones have a few, and each shell word of
# `args` scans at most this many, so the work stays linear in the arguments
MAX_OPTIONS = 32
_POWERSHELL_ENV = re.compile(r"(?i)\$env:([A-Za-z_]\w*)\s*=\s*")


def command_lines(args: Sequence[str]) -> Iterator[tuple[int, str]]:
    """The command lines `args` hand to a shell (module contract)."""
    for index, word in enumerate(args):
        program = re.split(r"[\\/]", word)[-1].lower().removesuffix(".exe")
        if program in POSIX_SHELLS:
            found = _posix_line(args, index + 1)
            if found is not None:
                yield found
            continue
        if program == "cmd":
            found = _cmd_line(args, index + 1)
        elif program in ("powershell", "pwsh"):
            found = _powershell_line(args, index + 1)
        else:
            continue
        if found is not None:
            yield found
            return  # the rest of `args` is that line, read as one


def _posix_line(args: Sequence[str], start: int) -> tuple[int, str] | None:
    """After a shell's name: the line its `-c` runs, if it is told to run one."""
    runs_a_line = False
    index = start
    while index < min(len(args), start + MAX_OPTIONS):
        word = args[index]
        if word in _SHELL_OPTIONS_WITH_VALUE:
            index += 2
        elif word == "--command" and index + 1 < len(args):
            return index + 1, args[index + 1]
        elif word.startswith("--command="):
            return index, word.partition("=")[2]
        elif word == "--":
            index += 1
            break
        elif len(word) > 1 and word[0] in "-+":
            runs_a_line = runs_a_line or (word[0] == "-" and word[1] != "-" and "c" in word)
            index += 1
        else:
            break
    if runs_a_line and index < len(args):
        return index, args[index]
    return None


def _cmd_line(args: Sequence[str], start: int) -> tuple[int, str] | None:
    """After `cmd`: the rest of the arguments after its `/c`, `/k` or `/r`."""
    for index in range(start, min(len(args), start + MAX_OPTIONS)):
        switch = args[index].lower()
        if switch in _CMD_RUNS and index + 1 < len(args):
            return index + 1, " ".join(args[index + 1 :])
        if not switch.startswith("/"):
            return None
    return None


def _powershell_line(args: Sequence[str], start: int) -> tuple[int, str] | None:
    """After `powershell` or `pwsh`: the line its `-Command` or `-EncodedCommand` runs."""
    for index in range(start, min(len(args) - 1, start + MAX_OPTIONS)):
        option = args[index].lower()
        if option[:1] not in ("-", "/"):
            continue  # a value of an option before (`-ExecutionPolicy Bypass`)
        name = option[1:]
        if name and "command".startswith(name):
            return index + 1, _POWERSHELL_ENV.sub(r"\1=", " ".join(args[index + 1 :]))
        if name in ("e", "ec") or (len(name) > 1 and "encodedcommand".startswith(name)):
            return index + 1, _POWERSHELL_ENV.sub(r"\1=", _decoded(args[index + 1]))
    return None


def _decoded(encoded: str) -> str:
    """PowerShell's `-EncodedCommand`: base64 of UTF-16LE; nothing if it is not."""
    try:
        return base64.b64decode(encoded, validate=True).decode("utf-16-le")
    except (binascii.Error, ValueError):
        return ""


def command_words(line: str) -> Iterator[tuple[str, ...]]:
    """The words of each simple command of `line`, as the shell passes them on (module
    contract)."""
    expansion = Expansion({}, Budget(EXPANSION_BUDGET))
    try:
        for command in lex_script(line):
            words: list[str] = []
            for word in command.words:
                try:
                    text = expansion.word(word)
                except ValueTooLong:
                    continue
                if word.assigns is not None and not word.appends:
                    expansion.variables[word.assigns] = text.partition("=")[2]
                words.append(text)
            if words:
                yield tuple(words)
    except BudgetSpent:
        return
