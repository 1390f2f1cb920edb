"""No tool answer repeats the model's input: the rule, and the check for words from elsewhere.

Why: every tool answer is redacted of the secrets agent-cli holds before the model sees it
(`tools.redaction`). An answer that repeated the model's own input (grep's pattern, a path
that is not there, a pointer, a key the schema does not know, a tool name) would come back
with `[REDACTED]` exactly where the input held a secret: one grep whose pattern listed
3,360 guesses of a password told which one was right, with no approval (a seventh outside
attack). The model knows what it sent; repeating it gains nothing. So no answer or error a
tool writes holds the input, or a number taken from it; it names only what exists (a file
read, a folder listed) and says what was wrong in fixed words. What other programs say
(ripgrep's refusals, an exception's text) is passed on only when it repeats none of the
input (`free_of_input`). Then what a tool says is the same for any two secrets of one
length, whatever the model sends (`tests/test_hostile_secret_echo.py`).

The one exception is a call the user approved: a command or an MCP tool can compute
anything from a secret (`[ "$DB_PASSWORD" = guess ]`), so what it prints promises nothing.

Contract: `repeats_input(text, given)` is True when `text` holds `ECHO_WINDOW` characters
in a row of any string in `given` (a shorter string is no secret and cannot be redacted
on its own); `free_of_input(text, given, instead)` is `text`, or `instead` when it
repeats any. Both look at `text` and `given` only, never at a secret, so what they decide
is the same whichever secret agent-cli holds. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_cli.secret_forms import MIN_SECRET_CHARS

ECHO_WINDOW = MIN_SECRET_CHARS


def repeats_input(text: str, given: Iterable[str]) -> bool:
    """True when `text` holds `ECHO_WINDOW` characters in a row of one of `given`."""
    for value in given:
        for start in range(len(value) - ECHO_WINDOW + 1):
            if value[start : start + ECHO_WINDOW] in text:
                return True
    return False


def free_of_input(text: str, given: Iterable[str], instead: str) -> str:
    """`text`, or `instead` when it repeats any of `given` (`repeats_input`)."""
    return instead if repeats_input(text, given) else text


def input_strings(value: object) -> list[str]:
    """Every string in a tool's input (keys and values, nested), to check words against."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [
            text
            for key, item in value.items()
            for text in (*input_strings(key), *input_strings(item))
        ]
    if isinstance(value, list | tuple):
        return [text for item in value for text in input_strings(item)]
    return [str(value)] if isinstance(value, int | float) and not isinstance(value, bool) else []
