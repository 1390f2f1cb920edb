"""Which placeholders in the prompt's input the prompt made, and which only look like one.

Why: `[pasted 942 characters]` stands for a paste only where the prompt put it in place
of that paste. A question pasted short (`my screen showed: [pasted 942 characters] --
what does that bracket mean?`) or typed holds the same text, and was sent as the earlier
paste's 942 characters: a paste the user never meant to send again, and not the question.

Contract (pure: texts and positions in, spans out; a span is `(start, end)`):
`MadePlaceholders(pastes)` follows the text of one prompt buffer through its changes.
`start(text)` begins an input that shows `text`: its placeholders are made where a line
with exactly that text had them when it was last `remember`ed (an input given back to the
prompt), none otherwise. `follow(text, entry)` takes the text after each change; `entry`
is the history entry the buffer shows (0 the new line, 1 the newest entry, and so on).
`made_here(start, end)` says the prompt just put a paste's placeholder at
`text[start:end]`. `spans` are where the made placeholders of the current text stand.
- A change within one entry keeps the made placeholders outside the part it changed (moved
  with the text after it); those it touched are lost. A placeholder in the changed part is
  made only when the input lost one with the same text before (undo after Backspace took
  it out or broke it, Ctrl-Y after a kill): otherwise it is text that looks like one,
  typed, pasted short or held from typing ahead, and is sent as it is.
- Moving to another entry (Up, Down, Ctrl-R) shows that entry as it was left in this
  input, or, the first time, with the placeholders it was `remember`ed with.
- `remember()` keeps the current text's made placeholders (the latest line with a text
  wins): a line sent, or an input given back, that comes back whole.
"""

from __future__ import annotations

from collections import Counter

from agent_cli.repl.paste import PLACEHOLDER, PastedText

Spans = frozenset[tuple[int, int]]


class MadePlaceholders:
    """The placeholders the prompt made in one buffer's text; see the module contract."""

    def __init__(self, pastes: PastedText) -> None:
        self._pastes = pastes
        self._text = ""
        self._entry = 0
        self._spans: Spans = frozenset()
        self._lost: Counter[str] = Counter()  # made placeholders this input lost, by text
        self._left: dict[int, Spans] = {}  # entries this input moved away from
        self._remembered: dict[str, Spans] = {}  # lines of this reader, by text

    @property
    def spans(self) -> Spans:
        return self._spans

    def start(self, text: str = "") -> None:
        self._text, self._entry = text, 0
        self._spans = self._remembered.get(text, frozenset())
        self._lost.clear()
        self._left.clear()

    def remember(self) -> None:
        if PLACEHOLDER.search(self._text):
            self._remembered[self._text] = self._spans

    def made_here(self, start: int, end: int) -> None:
        if (start, end) in self._spans:  # `follow` took it for one put back: it is new
            self._lost[self._text[start:end]] += 1
        self._spans |= {(start, end)}

    def follow(self, text: str, entry: int) -> None:
        if entry != self._entry:
            self._left[self._entry] = self._spans
            self._spans = self._left.get(entry, self._remembered.get(text, frozenset()))
            self._entry = entry
        elif text != self._text:
            self._spans = self._carry(text)
        self._text = text

    def _carry(self, text: str) -> Spans:
        """The made spans of `text`, the old text changed into it (module contract)."""
        if not self._spans and not +self._lost:  # nothing made to keep or to put back
            return frozenset()
        old = self._text
        head = _common_head(old, text)
        tail = _common_head(old[head:][::-1], text[head:][::-1])
        shift = len(text) - len(old)
        kept: set[tuple[int, int]] = set()
        for start, end in self._spans:
            if end <= head:
                kept.add((start, end))
            elif start >= len(old) - tail:
                kept.add((start + shift, end + shift))
            else:
                self._lost[old[start:end]] += 1
        for found in PLACEHOLDER.finditer(text):
            start, end = found.span()
            changed = start < len(text) - tail and end > head
            if changed and self._lost[found[0]] > 0 and self._pastes.is_kept(found[0]):
                self._lost[found[0]] -= 1
                kept.add((start, end))
        return frozenset(kept)


def _common_head(one: str, other: str) -> int:
    """How many characters `one` and `other` begin with in common (halving the range:
    slices compare at C speed, and a held text can be 100,000 characters long)."""
    low, high = 0, min(len(one), len(other))
    while low < high:
        middle = (low + high + 1) // 2
        if one[:middle] == other[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
