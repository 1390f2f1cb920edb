"""Shell text as bash splits it into commands and words, never run. Pure: no I/O.

An `.envrc` is sourced by bash, which reads more than `NAME=value` lines: a heredoc
(`export PEM=$(cat <<'EOF'` ... `EOF` `)`), a default (`${KEY:-value}`), a word that
ends at `;`. To know what it assigns without running it (the file is the workspace's,
untrusted), the text is split as bash splits it, and `tools.shell_source` reads that.

Contract: `lex_script(text)` is every `Command` of the text, in order. A command ends
at an unquoted line break, `;`, `&`, `|`, `(` or `)`; a `#` at a word's start begins a
comment. A word ends at an unquoted blank or one of those or `<`, `>`, and is a tuple
of parts: `Literal` (quotes removed: `'...'`, `"..."` with `\\$ \\\\ \\" \\``, `$'...'` with
its C escapes, a backslash outside quotes), `Parameter` (`$NAME`, `${NAME}`, `${NAME
op word}` for `:- - := = :+ + :? ?`), `Substitution` (`$(...)`, backticks: the commands
inside) and `Opaque` (an expansion whose value is not worked out: `$((...))`,
`${#x}`, `${x/a/b}`, `$1`). A word that starts `NAME=` or `NAME+=` says so. A heredoc
(`<<`, `<<-`, `<<"EOF"`) is the lines after its command's line up to its delimiter
(`<<-` without leading tabs), expanded when the delimiter is unquoted; one never
closed runs to the end of the text, as bash reads it. A quote never closed runs to the
end of the text. Nesting deeper than `MAX_DEPTH` skips the rest of that line, so no
input can exhaust the stack; the work is linear in the text's length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from agent_cli.tools.shell_word import ansi_c_decoded

MAX_DEPTH = 40
_T = TypeVar("_T")


class Literal(NamedTuple):
    """Text taken as it is."""

    text: str


class Parameter(NamedTuple):
    """`$NAME` (operator ""), or `${NAME op word}` with the word's parts."""

    name: str
    operator: str = ""
    argument: tuple[Part, ...] = ()


class Substitution(NamedTuple):
    """`$(...)` or a backtick command: the commands inside."""

    commands: tuple[Command, ...]


class Opaque(NamedTuple):
    """An expansion whose value is not worked out here."""


Part = Literal | Parameter | Substitution | Opaque


class Word(NamedTuple):
    """One word: its parts, and the name it assigns (`NAME=`, `NAME+=`), if it does."""

    parts: tuple[Part, ...]
    assigns: str | None = None
    appends: bool = False


@dataclass
class Input:
    """What a command reads: a heredoc's body (filled in when its line ends) or a here
    string (`<<<`, a line break added)."""

    parts: tuple[Part, ...] = ()
    is_here_string: bool = False


class Command(NamedTuple):
    """A simple command: its words and the inputs given to it."""

    words: tuple[Word, ...]
    inputs: tuple[Input, ...] = ()


class _TooDeep(Exception):
    pass


_PLAIN = {
    "word": re.compile(r"[^ \t\n'\"\\$`;&|()<>]+"),
    "double": re.compile(r'[^"\\$`]+'),
    "brace": re.compile(r"[^}'\"\\$`]+"),
    "heredoc": re.compile(r"[^\\$`]+"),
}
_DOUBLE_ESCAPED = frozenset('$`"\\\n')
_ASSIGNMENT = re.compile(r"([A-Za-z_]\w*)(\+?)=")
_NAME = re.compile(r"[A-Za-z_]\w*|[0-9@*#?$!-]")
_OPERATOR = re.compile(r":[-=+?]|[-=+?]")
_REDIRECT = re.compile(r"<<<|<<-|<<|&>>?|[<>]&|<>|>>|>\||[<>]")
_SEPARATORS = re.compile(r"[;&| \t]+")
_BLANKS = re.compile(r"[ \t]+")  # bash's blanks: a \r or \f is part of a word
# to the closing quote; a backslash escapes the next character, if there is one
_ANSI_BODY = re.compile(r"'((?:\\.?|[^'\\])*)('|$)", re.DOTALL)
_BACKTICK_BODY = re.compile(r"(?:\\.?|[^`\\])*(`|$)", re.DOTALL)
_HEREDOC_LINE = re.compile(r"[^\n]*(?:\n|$)")


def lex_script(text: str) -> list[Command]:
    """Every command of `text` (module contract)."""
    return _Lexer(text).script(top=True)


@dataclass
class _Heredoc:
    delimiter: str
    strips_tabs: bool
    expands: bool
    target: Input


@dataclass
class _Lexer:
    text: str
    position: int = 0
    depth: int = 0
    parens: int = 0  # subshells opened inside the `$(` being read
    pending: list[_Heredoc] = field(default_factory=list)

    def script(self, top: bool = False, closer: str = "") -> list[Command]:
        """Commands up to the end, or to the unmatched `closer` (`)` of a `$(`)."""
        commands: list[Command] = []
        outer_parens, self.parens = self.parens, 0
        while self.position < len(self.text):
            start = self.position
            try:
                command, ended = self._command(closer)
            except _TooDeep:
                if not top:
                    raise
                self.pending.clear()
                self.depth = 0
                # from where reading stopped, past `start`: a heredoc read to the end of the
                # text is not read again line by line (which made such a text quadratic)
                line_end = self.text.find("\n", max(start, self.position))
                self.position = len(self.text) if line_end == -1 else line_end + 1
                continue
            if command.words or command.inputs:
                commands.append(command)
            if ended:
                break
        self.parens = outer_parens
        return commands

    def _command(self, closer: str) -> tuple[Command, bool]:
        """One simple command, and whether `closer` ended it."""
        words: list[Word] = []
        inputs: list[Input] = []
        text = self.text
        while self.position < len(text):
            blanks = _BLANKS.match(text, self.position)
            if blanks:
                self.position = blanks.end()
                continue
            char = text[self.position]
            if char == "\\" and text.startswith("\\\n", self.position):
                self.position += 2
            elif char == "#" and not words:
                line_end = text.find("\n", self.position)
                self.position = len(text) if line_end == -1 else line_end
            elif char == "\n":
                self.position += 1
                self._read_heredocs()
                return Command(tuple(words), tuple(inputs)), False
            elif char == ")" and closer and not self.parens:
                self.position += 1
                return Command(tuple(words), tuple(inputs)), True
            elif char in "()":
                self.position += 1
                self.parens += 1 if char == "(" else -1 if self.parens else 0
                return Command(tuple(words), tuple(inputs)), False
            elif char in ";&|":
                self.position = _SEPARATORS.match(text, self.position).end()  # type: ignore[union-attr]
                return Command(tuple(words), tuple(inputs)), False
            elif char in "<>" or text.startswith("&>", self.position):
                self._redirect(inputs)
            else:
                start = self.position
                words.append(self._word())
                self.position += self.position == start  # a `$` at the very end
        return Command(tuple(words), tuple(inputs)), False

    def _redirect(self, inputs: list[Input]) -> None:
        found = _REDIRECT.match(self.text, self.position)
        operator = found.group() if found else self.text[self.position]
        self.position += len(operator)
        blanks = _BLANKS.match(self.text, self.position)
        if blanks:
            self.position = blanks.end()
        if self.position >= len(self.text) or self.text[self.position] in "\n;&|()<>":
            return
        start = self.position
        target = self._word()
        if operator == "<<<":
            inputs.append(Input(target.parts, is_here_string=True))
        elif operator in ("<<", "<<-"):
            raw = self.text[start : self.position]
            delimiter = "".join(p.text for p in target.parts if isinstance(p, Literal))
            heredoc = _Heredoc(
                delimiter, operator == "<<-", not re.search(r"['\"\\]", raw), Input()
            )
            inputs.append(heredoc.target)
            self.pending.append(heredoc)

    def _read_heredocs(self) -> None:
        """The bodies of the heredocs its line opened, from the next line on."""
        for heredoc in self.pending:
            lines: list[str] = []
            while self.position < len(self.text):
                line = _HEREDOC_LINE.match(self.text, self.position)
                assert line is not None  # it matches anywhere, if only ""
                self.position = line.end()
                content = line.group()
                if heredoc.strips_tabs:
                    content = content.lstrip("\t")
                if content.rstrip("\n") == heredoc.delimiter:
                    break
                lines.append(content)
            body = "".join(lines)
            heredoc.target.parts = (
                _Lexer(body, depth=self.depth).parts("heredoc")
                if heredoc.expands
                else (Literal(body),)
            )
        self.pending.clear()

    def _word(self) -> Word:
        assignment = _ASSIGNMENT.match(self.text, self.position)
        if assignment is None:
            return Word(self.parts("word"))
        self.position = assignment.end()
        if self.text.startswith("(", self.position):  # an array: its value not worked out
            self._descend()
            self.position += 1
            self.script(closer=")")
            self.depth -= 1
            return Word((Opaque(),), assignment[1], bool(assignment[2]))
        return Word(self.parts("word"), assignment[1], bool(assignment[2]))

    def parts(self, mode: str) -> tuple[Part, ...]:
        """The parts up to the end of a word (`mode` "word"), a double-quoted text's
        closing quote ("double"), a `${...}`'s `}` ("brace") or the text ("heredoc")."""
        parts: list[Part] = []
        text, plain = self.text, _PLAIN[mode]
        while self.position < len(text):
            run = plain.match(text, self.position)
            if run:
                parts.append(Literal(run.group()))
                self.position = run.end()
                continue
            char = text[self.position]
            if char == "\\":
                parts.append(Literal(self._escaped(mode)))
            elif char == "$":
                parts.append(self._dollar())
            elif char == "`":
                parts.append(self._backticks())
            elif mode == "double" and char == '"':
                self.position += 1
                return tuple(parts)
            elif mode == "brace" and char == "}":
                return tuple(parts)
            elif mode in ("word", "brace") and char == "'":
                parts.append(Literal(self._until("'")))
            elif mode in ("word", "brace") and char == '"':
                self.position += 1
                self._descend()
                parts.extend(self.parts("double"))
                self.depth -= 1
            else:
                break  # a blank or an operator ends the word
        return tuple(parts)

    def _escaped(self, mode: str) -> str:
        """`\\x` at the position: what it stands for in `mode`."""
        pair = self.text[self.position : self.position + 2]
        self.position += len(pair)
        if pair == "\\\n":
            return ""
        if mode in ("double", "heredoc") and pair[1:] not in _DOUBLE_ESCAPED:
            return pair
        return pair[1:] or "\\"

    def _until(self, quote: str) -> str:
        """The text from after the quote at the position to the next `quote`."""
        close = self.text.find(quote, self.position + 1)
        close = len(self.text) if close == -1 else close
        body = self.text[self.position + 1 : close]
        self.position = close + 1
        return body

    def _dollar(self) -> Part:
        text, after = self.text, self.position + 1
        if text.startswith("'", after):
            self.position = after
            body, escaped = self._ansi_body()
            return Literal(ansi_c_decoded(body) if escaped else body)
        if text.startswith("((", after):
            self.position = after + 1
            self._nested(lambda: self.script(closer=")"))
            return Opaque()
        if text.startswith("(", after):
            self.position = after + 1
            return Substitution(tuple(self._nested(lambda: self.script(closer=")"))))
        if text.startswith("{", after):
            self.position = after + 1
            return self._nested(self._brace)
        name = _NAME.match(text, after)
        if name is None:
            self.position = after
            return Literal("$")
        self.position = name.end()
        return (
            Parameter(name.group())
            if name.group()[0].isalpha() or name.group() == "_"
            else Opaque()
        )

    def _ansi_body(self) -> tuple[str, bool]:
        found = _ANSI_BODY.match(self.text, self.position)
        assert found is not None
        self.position = found.end()
        return found[1], "\\" in found[1]

    def _brace(self) -> Part:
        """`${...}` after its `{`: a parameter, or opaque when it is not `${NAME}` or
        `${NAME op word}` (a length, a substring, a replacement)."""
        name = _NAME.match(self.text, self.position)
        operator = _OPERATOR.match(self.text, name.end()) if name else None
        if name and self.text.startswith("}", name.end()):
            self.position = name.end() + 1
            return (
                Parameter(name.group())
                if name.group()[0].isalpha() or name.group() == "_"
                else Opaque()
            )
        if name is None or operator is None:
            self.parts("brace")
            self.position += 1
            return Opaque()
        self.position = operator.end()
        argument = self.parts("brace")
        self.position += 1
        if not (name.group()[0].isalpha() or name.group() == "_"):
            return Opaque()
        return Parameter(name.group(), operator.group(), argument)

    def _backticks(self) -> Part:
        close = _BACKTICK_BODY.match(self.text, self.position + 1)
        assert close is not None
        self.position = close.end()
        inner = re.sub(r"\\([`$\\])", r"\1", close.group().removesuffix("`"))
        return Substitution(tuple(self._nested(lambda: _Lexer(inner, depth=self.depth).script())))

    def _nested(self, read: Callable[[], _T]) -> _T:
        self._descend()
        try:
            return read()
        finally:
            self.depth -= 1

    def _descend(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _TooDeep
