"""Terminal escape sequences in outside text, and the secrets they split. Pure: no I/O.

Why: `grep --color=always` (and `ls`, `git`, test runners forced to colour) wraps what it
highlights in escape sequences: `\\x1b[01;31m\\x1b[Kghp_\\x1b[m\\x1b[KZq7...`. A token
split so is no longer whole in the text, so redaction, which finds whole forms, let all
of it but the highlighted start through; a reader who drops the escapes (the REPL's
screen does) has the token back.

Contract:
- `ESCAPE_SEQUENCE` matches one ANSI/VT escape sequence (CSI, OSC, DCS/SOS/PM/APC, the
  short forms, 8-bit CSI); the REPL removes these from everything it shows.
- `without_escapes(text)`: `text` with every escape sequence removed.
- `unfinished_escape_start(text)`: where an escape sequence begins that the end of
  `text` leaves unfinished, so that a stream can wait for the rest before removing it.
- `unsplit_secrets(text, secrets)`: `text` as it is, unless escape sequences hide a
  secret: when `text` without them holds more occurrences of a form of `secrets` than
  `text` does (or as many, covering more of the text: a long run of a token is one
  occurrence, split or not), the escape-free text, so that redaction then finds the secret whole.
  Escapes stay otherwise, because they may be what a command was run to show (`cat -v`,
  a test of a colour library); a secret holding an escape character itself is found in
  the raw text and keeps it. A command's output is made whole here before it is cut or
  redacted (`tools.shell`); the live view drops escapes from the start
  (`tools.redaction.StreamRedactor`), as the screen would.
"""

from __future__ import annotations

import re

from agent_cli.secret_forms import SecretForms
from agent_cli.secret_runs import SecretPattern

ESCAPE_SEQUENCE = re.compile(
    r"""
      \x1b\[[0-?]*[ -/]*[@-~]?                 # CSI: colours, cursor moves, clears
    | \x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)  # OSC: titles, hyperlinks, clipboard
    | \x1b[PX^_][^\x1b]{0,4096}\x1b\\          # DCS, SOS, PM, APC strings
    | \x1b[ -/]*[0-~]                          # the other escape forms (and unterminated
                                               # strings: only their introducer goes)
    | \x9b[0-?]*[ -/]*[@-~]?                   # 8-bit CSI
    """,
    re.VERBOSE,
)
_INTRODUCERS = ("\x1b", "\x9b")
# What the end of a text may be when more is to come that finishes an escape sequence.
_UNFINISHED = re.compile(
    r"(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]{0,4096}|[PX^_][^\x1b]{0,4096}|[ -/]*)"
    r"|\x9b[0-?]*[ -/]*)\Z"
)
_LONGEST_UNFINISHED = 4096 + 2


def without_escapes(text: str) -> str:
    """`text` with every escape sequence removed."""
    return ESCAPE_SEQUENCE.sub("", text) if _has_escapes(text) else text


def unfinished_escape_start(text: str) -> int | None:
    """Where an escape sequence starts that the end of `text` leaves unfinished (a
    stream cut it between two reads), or None."""
    start = max(text.rfind(introducer, -_LONGEST_UNFINISHED) for introducer in _INTRODUCERS)
    if start >= 0 and _UNFINISHED.match(text, start):
        return start
    return None


def unsplit_secrets(text: str, secrets: SecretForms) -> str:
    """`text`, or `text` without escape sequences when that shows more secret
    occurrences (module contract)."""
    if secrets.pattern is None or not _has_escapes(text):
        return text
    stripped = ESCAPE_SEQUENCE.sub("", text)
    if secrets.pattern.search(stripped) is None:  # the usual case: one scan
        return text
    hidden = _hidden(stripped, secrets.pattern) > _hidden(text, secrets.pattern)
    return stripped if hidden else text


def _has_escapes(text: str) -> bool:
    return any(introducer in text for introducer in _INTRODUCERS)


def _hidden(text: str, pattern: SecretPattern) -> tuple[int, int]:
    """How many occurrences `pattern` finds in `text`, and how many characters they
    cover: escapes that split a token leave a long run of it (`secret_runs`), one
    occurrence either way, but less of it hidden."""
    spans = [found.span() for found in pattern.finditer(text)]
    return len(spans), sum(end - start for start, end in spans)
