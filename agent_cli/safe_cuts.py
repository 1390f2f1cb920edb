"""Where a text may be cut: never inside a secret, never inside a source pointer. Pure.

Every path that shortens text (grep lines, the bash cap, previews, L1's head and tail,
digest lines, the approval view, the REPL's clipped lines) asks here where to cut.

Contract:
- `safe_head_end(text, cut, secrets)`: where to end a kept head of `text` that should end
  at `cut`. A pointer (`transcript:`/`artifact:`, DESIGN.md section 4) the cut would
  split is kept whole: the head grows to its end (a pointer is at most
  `MAX_POINTER_CHARS` long), since half a pointer leads nowhere. An occurrence of a
  secret form the cut would split moves the cut back to where it starts, so no piece of
  it is kept (the whole of it, if kept, is redacted like any other). With
  `stream_stopped=True` the text is all that is known of a longer stream that stopped at
  its end, so an ending that could be the start of a secret counts as one too
  (`stopped_secret_start`). A long
  run of a token (`secret_runs`) is an occurrence like a form: a cut inside one moves
  to its start (its end, for a tail), so the run stays whole on one side and is
  redacted there. What a stream that stopped ends with, if shorter than the threshold,
  is kept: it is no occurrence (`open_match_start` knows a run only as a piece of the
  whole value, whose start it must be), and fewer than the threshold's characters of it
  stand on each side of any cut.
- `stopped_secret_start(text, secrets)`: where an ending of `text`, a stream that stopped
  at its end (a command interrupted, timed out or capped; a read limit), may begin a
  secret whose rest never came; None when none may. Inside a line, any start of a form
  counts, down to one character. After a line break (the stream stopped at a line's end)
  only a start holding at least `LINE_END_PIECE_CHARS` of a form's characters counts (a
  multi-line value's own line break counts as one): a form carries on past a line break
  only wrapped or when its value spans lines, so a line's end joins one only through the
  break, and one or two characters before it tell nothing of a secret, while about one
  line in fifteen ends with the first character of some form of a key (its base64,
  base32, hex...) and lost it (a command's `trapped` shown as `trappe`).
- `safe_tail_start(text, start, secrets)`: where to begin a kept tail that should begin
  at `start`: after a secret the cut would split, before a pointer it would split.
- `cut_head(text, limit, secrets, mark)`: `text` up to the safe end, `mark` appended when
  anything was left out; a `REDACTED_MARK` the end would split is left out whole (a
  tool may hide secrets before it cuts: grep's lines).
- `cut_around(text, position, limit, secrets, mark)`: `text` whole when it fits, else a
  window of about `limit` characters that holds `position` (a quarter of the room before
  it), each side cut as the two rules above say (a split `REDACTED_MARK` kept whole) and
  marked with `mark`: grep's match on a long minified line.
The result is always within `0..len(text)`.
"""

from __future__ import annotations

import re

from agent_cli.secret_forms import NO_SECRETS, REDACTED_MARK, SecretForms
from agent_cli.sources.pointers import MAX_POINTER_CHARS

# A pointer's scheme and everything after it that the grammar allows, not preceded by a
# character that would make the scheme part of another word.
POINTER_SPAN = re.compile(
    rf"(?<![A-Za-z0-9._:-])(?:transcript|artifact):[A-Za-z0-9._:-]{{1,{MAX_POINTER_CHARS}}}"
)
_LONGEST_POINTER = len("transcript:") + MAX_POINTER_CHARS
# The fewest of a form's characters an ending after a line break holds to count as the
# start of a secret in a stream that stopped there (module contract).
LINE_END_PIECE_CHARS = 3


def pointer_around(text: str, position: int) -> tuple[int, int] | None:
    """The pointer span that `position` falls strictly inside, if any."""
    low, high = max(0, position - _LONGEST_POINTER), min(len(text), position + _LONGEST_POINTER)
    if text.find("transcript:", low, high) < 0 and text.find("artifact:", low, high) < 0:
        return None  # every match holds its scheme, and a substring search runs in C
    for found in POINTER_SPAN.finditer(text, low, high):
        if found.start() < position < found.end():
            return found.start(), found.end()
        if found.start() >= position:
            break
    return None


def secret_start_across(text: str, position: int, secrets: SecretForms) -> int | None:
    """The earliest start of a secret occurrence that `position` falls strictly inside."""
    low = position - secrets.longest_match
    for start, end in secrets.occurrences(text, low, position):
        if end > position:
            return start
    return None


def secret_end_across(text: str, position: int, secrets: SecretForms) -> int | None:
    """The latest end of a secret occurrence that `position` falls strictly inside."""
    ends = [
        end
        for start, end in secrets.occurrences(text, position - secrets.longest_match, position)
        if end > position
    ]
    return max(ends, default=None)


def safe_head_end(
    text: str,
    cut: int,
    secrets: SecretForms = NO_SECRETS,
    *,
    stream_stopped: bool = False,
) -> int:
    """Where a head of `text` meant to end at `cut` may end (module contract)."""
    cut = min(max(cut, 0), len(text))
    if cut == len(text) and not stream_stopped:
        return cut
    pointer = pointer_around(text, cut)
    clear = cut if pointer is None else None  # a position known to split no pointer
    if pointer is not None:
        cut = pointer[1]
    if stream_stopped:
        open_start = stopped_secret_start(text, secrets)
        if open_start is not None:
            cut = min(cut, open_start)
    while True:
        moved = secret_start_across(text, cut, secrets) if secrets else None
        if moved is None:
            pointer = None if cut == clear else pointer_around(text, cut)
            if pointer is None:
                return cut
            moved = pointer[0]  # a secret's start inside a pointer: leave the pointer out
        cut = moved


def stopped_secret_start(text: str, secrets: SecretForms) -> int | None:
    """Where a secret may begin at the end of a stream that stopped there (module
    contract)."""
    least = LINE_END_PIECE_CHARS if text.endswith("\n") else 1
    return secrets.open_match_start(text, least)


def safe_tail_start(text: str, start: int, secrets: SecretForms = NO_SECRETS) -> int:
    """Where a tail of `text` meant to begin at `start` may begin (module contract)."""
    start = min(max(start, 0), len(text))
    if start == 0:
        return start
    pointer = pointer_around(text, start)
    clear = start if pointer is None else None  # a position known to split no pointer
    if pointer is not None:
        start = pointer[0]
    while True:
        moved = secret_end_across(text, start, secrets) if secrets else None
        if moved is None:
            pointer = None if start == clear else pointer_around(text, start)
            if pointer is None:
                return start
            moved = pointer[1]
        start = moved


def cut_head(text: str, limit: int, secrets: SecretForms = NO_SECRETS, mark: str = "…") -> str:
    """`text` whole when it fits `limit` characters, else its safe head and `mark`."""
    if len(text) <= limit:
        return text
    end = safe_head_end(text, limit, secrets)
    reach = len(REDACTED_MARK) - 1
    split = text.find(REDACTED_MARK, max(0, end - reach), end + reach)
    if 0 <= split < end:
        end = safe_head_end(text, split, secrets)
    return text if end == len(text) else text[:end] + mark


def cut_around(
    text: str, position: int, limit: int, secrets: SecretForms = NO_SECRETS, mark: str = "…"
) -> str:
    """A safe window of `text` around `position`, each cut side marked (module contract)."""
    if len(text) <= limit:
        return text
    begin = max(0, min(position - limit // 4, len(text) - limit))
    begin, end = safe_tail_start(text, begin, secrets), safe_head_end(text, begin + limit, secrets)
    reach = len(REDACTED_MARK) - 1
    split = text.find(REDACTED_MARK, max(0, begin - reach), begin + reach)
    if 0 <= split < begin:
        begin = safe_tail_start(text, split, secrets)
    split = text.find(REDACTED_MARK, max(0, end - reach), end + reach)
    if 0 <= split < end < split + len(REDACTED_MARK):
        end = safe_head_end(text, split, secrets)
    end = max(end, begin)
    return f"{mark if begin else ''}{text[begin:end]}{mark if end < len(text) else ''}"
