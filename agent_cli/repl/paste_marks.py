"""Pastes told apart from typing in what the terminal sent, by its bracketed-paste marks.

Why: with bracketed paste on, the terminal wraps a paste in `ESC[200~` … `ESC[201~`. Between
prompts the terminal's input is read in raw pieces (`terminal_modes`), and a paste came as
plain lines: each of its Enters sent a line as a request of its own when the turn ended.
And a paste's own text may hold an end mark (some terminals, and tmux's `paste-buffer -p`,
pass ESC through): what followed it was read as typed, so a paste of `see the notes
below ESC[201~ LF a LF` answered "always" to a permission question, and at an idle prompt
sent two requests nobody reviewed, leaving `[201~` in the prompt. And a start mark whose
end never came took every key after it (Enter, Ctrl-C) into the paste.

Contract (pure: text in, parts out): `PasteMarks.split(text)` takes the next piece read and
returns its parts in order, each `(is_paste, text)`: typed text as it came (keys, escape
sequences and all) and each paste's text (`paste_text`: no marks, no control bytes, no
escape sequences: they are no text a message can hold). When a paste ends:
- `bursts=True` (a prompt reading the terminal as input comes: each piece is one burst, as
  the terminal delivers one paste): a paste ends at an end mark that nothing follows, not
  in the same piece and not waiting to be read (`more_waiting`); an end mark with more
  after it in the same burst is part of the paste, and so is what follows it, until a
  burst ends on an end mark (the terminal's own: it ends every paste with one).
- `bursts=False` (a drain between prompts, which may hold what was typed over a whole
  turn, words typed after a paste among it): a paste ends at the last end mark before the
  next start mark in the same piece; an end mark with another after it is the paste's own.
Either way a start mark inside a paste is its text, and what a piece holds before an end
mark that comes with no paste open is the tail of a paste whose end was read too early (its
text held an end mark where a read stopped): a paste too, the mark dropped. A paste whose
end has not come yet is kept and continued by the next piece (a long paste arrives in
several; an end mark cut between two pieces is found); `is_open` says one is. With
`bursts=True` a piece's last characters that may begin a mark (`ESC`, `ESC[20`) are held
until the next piece tells, so a mark cut in two is still a mark. A terminal's cursor
position report (`ESC[n;mR`, its answer to the prompt's question) that comes inside a
paste is no text of it: it is given as typed text, where it came, for the prompt to take.
`close()` (the terminal has gone quiet) ends an open paste where it stands and returns the
parts still kept: the paste's text so far (nothing is lost when its end never comes), and
typed text held; [] when none. When the open paste had an end mark with more after it, and
no end mark came since, it ends at that mark and what followed is typed text: the terminal
ends a paste with its own mark, so nothing came after the paste but keys typed right after
it, in the same burst (a test's pipe, a slow read).
"""

from __future__ import annotations

import re

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
CURSOR_REPORT = re.compile(r"\x1b\[[0-9]{1,4};[0-9]{1,4}R")
# CSI and SS3 sequences whole, ESC with the one printable character after it, a lone ESC; then the C0
# controls other than tab, line feed and carriage return, DEL, and the C1 controls
_NOT_TEXT = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|O[ -~]?|[ -~])?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)

Parts = list[tuple[bool, str]]


def paste_text(raw: str) -> str:
    """`raw` (what came between a paste's marks) as the text it pastes: without marks,
    escape sequences (a cursor report among them) or control bytes other than tab and
    line breaks, none of which a message can hold."""
    return _NOT_TEXT.sub("", raw)


class PasteMarks:
    """Splits terminal input into typed text and pastes; see the module contract."""

    def __init__(self, *, bursts: bool = False) -> None:
        self._bursts = bursts
        self._open: str | None = None  # the raw text of a paste whose end has not come
        self._held = ""  # bursts: typed characters at a piece's end that may begin a mark

    @property
    def is_open(self) -> bool:
        return self._open is not None

    def split(self, text: str, *, more_waiting: bool = False) -> Parts:
        """The parts of the next piece read; `more_waiting`: the terminal holds more
        already (the burst goes on past this piece; only with `bursts`)."""
        parts: Parts = []
        text, self._held = self._held + text, ""
        while text:
            if self._open is None:
                text = self._take_typed(text, parts)
                continue
            joined = self._open + _reports_out(text, parts)
            if self._bursts:
                text = self._end_burst(joined, parts, more_waiting)
            else:
                text = self._end_drained(joined, parts)
        return parts

    def close(self) -> Parts:
        """End an open paste here and give up what is held; see the module contract."""
        parts: Parts = []
        if self._open is not None:
            # a paste's end mark with more after it, and no end mark since: no terminal
            # ends a paste without one, so what came after that mark was typed
            pasted, end, typed = self._open.rpartition(PASTE_END)
            _add_paste(parts, pasted if end else typed)
            if end and typed:
                parts.append((False, typed))
        if self._held:
            parts.append((False, self._held))
        self._open, self._held = None, ""
        return parts

    def _take_typed(self, text: str, parts: Parts) -> str:
        """Typed text up to a start mark (a paste opens) or an end mark with no paste open
        (what came before it is a paste's tail); the rest of `text` to split."""
        start, end = text.find(PASTE_START), text.find(PASTE_END)
        if end != -1 and (start == -1 or end < start):
            _add_paste(parts, text[:end])
            return text[end + len(PASTE_END) :]
        if start == -1:
            typed = text
            if self._bursts:
                typed, self._held = _cut_mark_start(text)
            if typed:
                parts.append((False, typed))
            return ""
        if start:
            parts.append((False, text[:start]))
        self._open = ""
        return text[start + len(PASTE_START) :]

    def _end_burst(self, joined: str, parts: Parts, more_waiting: bool) -> str:
        """The open paste (`joined`: all of it so far) goes on to the burst's end; it ends
        there when the burst's last characters are an end mark (the terminal's own, which
        ends what it pastes). Nothing of the piece is left to split."""
        if joined.endswith(PASTE_END) and not more_waiting:
            self._open = None
            _add_paste(parts, joined[: -len(PASTE_END)])
        else:
            self._open = joined
        return ""

    def _end_drained(self, joined: str, parts: Parts) -> str:
        """The open paste (`joined`: all of it so far) ends at the last end mark before the
        next start mark; what follows that mark is left to split."""
        first_end = joined.find(PASTE_END)
        if first_end == -1:
            self._open = joined
            return ""
        next_start = joined.find(PASTE_START, first_end)
        last_end = joined.rfind(PASTE_END, 0, len(joined) if next_start == -1 else next_start)
        self._open = None
        _add_paste(parts, joined[:last_end])
        return joined[last_end + len(PASTE_END) :]


def _add_paste(parts: Parts, raw: str) -> None:
    pasted = paste_text(raw)
    if pasted:
        parts.append((True, pasted))


def _reports_out(text: str, parts: Parts) -> str:
    """`text` of an open paste without the cursor reports in it; each goes to `parts` as
    typed text (the terminal's answer, for the prompt that asked)."""
    for report in CURSOR_REPORT.findall(text):
        parts.append((False, report))
    return CURSOR_REPORT.sub("", text)


def _cut_mark_start(typed: str) -> tuple[str, str]:
    """(`typed` without its last characters that may begin a mark, those characters)."""
    escape = typed.rfind("\x1b")
    if escape == -1:
        return typed, ""
    tail = typed[escape:]
    if any(mark.startswith(tail) for mark in (PASTE_START, PASTE_END)):
        return typed[:escape], tail
    return typed, ""
