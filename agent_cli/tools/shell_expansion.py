"""A lexed shell word's value, as bash expands it, from the names assigned so far. Pure.

Contract: `Expansion(variables, budget)` expands the parts of `tools.shell_lexer`:
`$NAME` and `${NAME}` are the value assigned earlier (unset: empty, as under `env -i`);
`${NAME:-word}`, `-`, `:=`, `=`, `:+`, `+`, `:?`, `?` as bash defines them, `:=` and `=`
also assigning (kept in `assigned`, in order, and in `variables`); `$(...)` is the
output of what it runs when that is `cat` of a heredoc or here string, `echo` or
`printf` (`printf_output`), trailing line breaks removed; any other command and an
`Opaque` part give nothing. Nothing is ever run. A value over `MAX_VALUE_CHARS` raises
`ValueTooLong` (no credential is so long; the name's value is unknown after it), and
the whole reading's expansions together over `budget.chars` raise `BudgetSpent`, so
`A=$A$A` repeated, or nested defaults, cost bounded time and memory.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from agent_cli.tools.shell_lexer import (
    Command,
    Input,
    Literal,
    Parameter,
    Part,
    Substitution,
    Word,
)

MAX_VALUE_CHARS = 32_768
_CONVERSION = re.compile(r"%%|%[-+ #0]*\d*(?:\.\d*)?([a-zA-Z])")
_PRINTF_ESCAPES = re.compile(r"\\(?:[\\abefnrtv\"']|[0-7]{1,3}|x[0-9a-fA-F]{1,2})")
MAX_FORMAT_ROUNDS = 64


class ValueTooLong(Exception):
    """A value would be longer than `MAX_VALUE_CHARS`."""


class BudgetSpent(Exception):
    """The reading has expanded as many characters as it may."""


@dataclass
class Budget:
    """Characters the expansions of one reading may still produce."""

    chars: int

    def spend(self, count: int) -> None:
        self.chars -= count
        if self.chars < 0:
            raise BudgetSpent


@dataclass
class Expansion:
    """Expands words against `variables`, recording what `:=` assigns (contract)."""

    variables: dict[str, str]
    budget: Budget
    assigned: list[tuple[str, str]] = field(default_factory=list)

    def word(self, word: Word) -> str:
        """The value of a word, with the `NAME=` it starts with (an argument of `eval`)."""
        if word.assigns is None:
            return self.parts(word.parts)
        return f"{word.assigns}{'+' if word.appends else ''}={self.parts(word.parts)}"

    def parts(self, parts: tuple[Part, ...]) -> str:
        """The value of a sequence of parts."""
        pieces: list[str] = []
        length = 0
        for part in parts:
            piece = self._part(part)
            length += len(piece)
            if length > MAX_VALUE_CHARS:
                raise ValueTooLong
            pieces.append(piece)
        self.budget.spend(length)
        return "".join(pieces)

    def input_text(self, given: Input) -> str:
        """What a command reads from a heredoc or here string."""
        text = self.parts(given.parts)
        return text + "\n" if given.is_here_string else text

    def _part(self, part: Part) -> str:
        if isinstance(part, Literal):
            return part.text
        if isinstance(part, Parameter):
            return self._parameter(part)
        if isinstance(part, Substitution):
            return self.output(part.commands).rstrip("\n")
        return ""

    def _parameter(self, parameter: Parameter) -> str:
        name, operator = parameter.name, parameter.operator
        value = self.variables.get(name)
        is_set = value is not None and (value != "" or not operator.startswith(":"))
        if operator.endswith(("-", "=")):
            if is_set:
                return value or ""
            default = self.parts(parameter.argument)
            if operator.endswith("="):
                self.variables[name] = default
                self.assigned.append((name, default))
            return default
        if operator.endswith("+"):
            return self.parts(parameter.argument) if is_set else ""
        return value or ""

    def output(self, commands: tuple[Command, ...]) -> str:
        """What the commands print, as far as it is known without running them."""
        printed = []
        for command in commands:
            if not command.words:
                continue
            head, *args = (self.word(word) for word in command.words)
            if head == "cat" and all(arg == "-" for arg in args) and command.inputs:
                printed.append(self.input_text(command.inputs[-1]))
            elif head == "echo":
                printed.append(_echo_output(args))
            elif head == "printf" and args:
                printed.append(printf_output(args[0], args[1:]))
        return "".join(printed)


def _echo_output(args: list[str]) -> str:
    flags = ""
    while args and re.fullmatch(r"-[neE]+", args[0]):
        flags += args.pop(0)
    text = " ".join(args)
    if "e" in flags:
        text = _PRINTF_ESCAPES.sub(_decode_escape, text)
    return text if "n" in flags else text + "\n"


def printf_output(form: str, args: list[str]) -> str:
    """What bash's `printf form args...` prints: `%s`, `%b` and the other conversions
    take the next argument as text (`%b` with its escapes decoded), `%%` is `%`, the
    form's escapes are decoded and the form is used again while arguments are left."""
    remaining = list(args)
    form = _PRINTF_ESCAPES.sub(_decode_escape, form)
    printed = []
    for _ in range(MAX_FORMAT_ROUNDS):
        printed.append(_CONVERSION.sub(lambda found: _converted(found, remaining), form))
        if not remaining or not _CONVERSION.search(form.replace("%%", "")):
            break
    return "".join(printed)


def _converted(found: re.Match[str], remaining: list[str]) -> str:
    if found.group() == "%%":
        return "%"
    argument = remaining.pop(0) if remaining else ""
    return _PRINTF_ESCAPES.sub(_decode_escape, argument) if found[1] == "b" else argument


def _decode_escape(found: re.Match[str]) -> str:
    escape = found.group()
    if escape[1] in "01234567":
        return chr(int(escape[1:], 8))
    if escape == "\\e":
        return "\x1b"
    return codecs.decode(escape, "unicode-escape")
