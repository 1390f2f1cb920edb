"""What bash assigns when it sources a text (`set -a; . ./.envrc`), never run. Pure.

direnv sources `.envrc` with bash, and a project's `.env` is often sourced the same
way; what bash assigns is not always what is written: a heredoc's body
(`export PEM=$(cat <<'EOF'` ...), a default (`${KEY:-value}`), the expansion of a name
set earlier (`postgres://user:${P}@host`), a word that ends at `;`. Each such value is
a credential on disk as much as the text it comes from.

Contract: `read_sourced_assignments(text)` is every `(name, value)` bash would assign
sourcing `text` in an empty environment, in order, empty values left out: the
`NAME=value` and `NAME+=value` words that start a command (for `+=`, the appended part
too, and the whole), those after `export`, `declare`, `typeset`, `local` and
`readonly` (options passed over: `export -n X=1 TOKEN=...`), `eval`'s words read
again as a script (at most `MAX_EVAL_DEPTH` deep), `printf -v NAME form args`, `read
[-r] [-d delim] NAME...` of a heredoc or here string, and `${NAME:=value}` in any
word. Reserved words (`if`, `then`, `{`, ...) before a command are passed over, so an
assignment inside a block is read. Expansion is `tools.shell_expansion`'s; a value too
long to be a credential is left out and its name is unknown after it; once the
`EXPANSION_BUDGET` is spent the reading stops. Nothing is run and nothing is read but
`text`; the work is bounded by the text's length and the budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_cli.tools.shell_expansion import (
    MAX_VALUE_CHARS,
    Budget,
    BudgetSpent,
    Expansion,
    ValueTooLong,
    printf_output,
)
from agent_cli.tools.shell_lexer import Command, Word, lex_script

MAX_EVAL_DEPTH = 4
EXPANSION_BUDGET = 16 * 1024 * 1024  # characters, over a whole reading
DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly"})
RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "time"}
)
_READ_OPTIONS_WITH_VALUE = frozenset("dpanNtui")
_NAME = re.compile(r"[A-Za-z_]\w*")


def read_sourced_assignments(text: str) -> Iterator[tuple[str, str]]:
    """What bash assigns sourcing `text` (module contract)."""
    expansion = Expansion({}, Budget(EXPANSION_BUDGET))
    try:
        yield from _script(text, expansion, 0)
    except BudgetSpent:
        return


def _script(text: str, expansion: Expansion, depth: int) -> Iterator[tuple[str, str]]:
    for command in lex_script(text):
        try:
            found = list(_command(command, expansion, depth))
        except ValueTooLong:
            found = []
        # what `${NAME:=value}` assigned, then the command's own assignments
        yield from ((name, value) for name, value in expansion.assigned if value)
        expansion.assigned.clear()
        yield from found


def _command(command: Command, expansion: Expansion, depth: int) -> Iterator[tuple[str, str]]:
    """The assignments of one simple command, in the order bash makes them."""
    words = list(command.words)
    while words and not words[0].assigns and _is_reserved(words[0]):
        words.pop(0)
    while words and words[0].assigns:
        yield from _assign(words.pop(0), expansion)
    if not words:
        return
    head = expansion.word(words[0])
    if head in DECLARATIONS:
        for word in words[1:]:
            if word.assigns:
                yield from _assign(word, expansion)
            else:
                expansion.word(word)
    elif head == "eval" and depth < MAX_EVAL_DEPTH:
        again = " ".join(expansion.word(word) for word in words[1:])
        yield from _script(again, expansion, depth + 1)
    elif head in ("printf", "read"):
        args = [expansion.word(word) for word in words[1:]]
        reader = _printf if head == "printf" else _read
        yield from reader(args, command, expansion)
    else:
        for word in words[1:]:
            expansion.word(word)  # for what `${NAME:=value}` assigns


def _is_reserved(word: Word) -> bool:
    return len(word.parts) == 1 and getattr(word.parts[0], "text", None) in RESERVED


def _assign(word: Word, expansion: Expansion) -> Iterator[tuple[str, str]]:
    assert word.assigns is not None
    name = word.assigns
    try:
        value = expansion.parts(word.parts)
    except ValueTooLong:
        expansion.variables.pop(name, None)
        return
    if word.appends:
        if value:
            yield name, value  # the appended part on its own too
        value = expansion.variables.get(name, "") + value
    yield from _set(name, value, expansion)


def _set(name: str, value: str, expansion: Expansion) -> Iterator[tuple[str, str]]:
    if value and len(value) <= MAX_VALUE_CHARS:
        expansion.variables[name] = value
        yield name, value


def _printf(args: list[str], command: Command, expansion: Expansion) -> Iterator[tuple[str, str]]:
    """`printf -v NAME form args...`: NAME holds what it would print."""
    del command
    if len(args) >= 3 and args[0] == "-v" and _NAME.fullmatch(args[1]):
        yield from _set(args[1], printf_output(args[2], args[3:]), expansion)


def _read(args: list[str], command: Command, expansion: Expansion) -> Iterator[tuple[str, str]]:
    """`read NAME... <<EOF` or `<<< word`: the input up to the delimiter (a line; all of
    it with `-d ''`), backslashes taken as escapes unless `-r`, split over the names."""
    if not command.inputs:
        return
    delimiter, raw = "\n", False
    names: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg.startswith("-") and len(arg) > 1 and not names:
            raw = raw or "r" in arg
            if arg[-1] in _READ_OPTIONS_WITH_VALUE:
                index += 1
                if arg[-1] == "d" and index < len(args):
                    delimiter = args[index][:1] or "\0"
        elif _NAME.fullmatch(arg):
            names.append(arg)
        index += 1
    text = expansion.input_text(command.inputs[-1]).partition(delimiter)[0]
    if not raw:
        text = re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.DOTALL)
    names = names or ["REPLY"]
    fields = text.strip(" \t\n").split(None, len(names) - 1) if len(names) > 1 else [text]
    for name, value in zip(names, fields, strict=False):
        yield from _set(name, value.strip(" \t\n") if name != "REPLY" else value, expansion)
