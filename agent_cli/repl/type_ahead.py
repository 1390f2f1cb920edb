"""Keys typed while no prompt was shown (the model thinking, a tool running).

Why: between prompts the terminal holds what is typed until something reads it
(`terminal_modes` keeps it unechoed, unedited, and not flushed by Ctrl-C). A permission
question asked then would read it as its answer: a request typed ahead was lost, and a
stray Enter answered a question never seen.

Contract:
- `TypeAhead` keeps those keys for the line prompt: `add(data)` appends them,
  `take_line()` returns the keys up to and including the first Enter (all of them when
  none was pressed) and keeps the rest for the prompt after. A paste the terminal marked
  (bracketed, `paste_marks`) is one `Keys.BracketedPaste` key, never an Enter, however many
  lines it holds: it waits in the prompt whole, a placeholder when long, and the words
  typed around it stay keys of their own; one not yet ended when `take_line()` hands
  everything over goes as far as it came. `hold()` (after Ctrl-C cancelled the turn they
  were typed during) turns every Enter kept so far into a line break, those at the end
  dropped, so the next `take_line()` gives all of it to one prompt to edit, and nothing is
  sent by itself; keys added after it are held too, until `take_line()` has handed
  everything to a prompt; a hold that keeps nothing (a bare Enter) is none, and the keys
  added after it are sent as ever. Held typed text goes to the prompt in one step, as it
  is (`TypedText`), pastes as they came. `hold(before_question=True)` is the hold when a
  question is asked: what was typed before it was meant neither for the question nor for
  what comes after it (the model's next words may end in a question of their own, and a
  queued `y` would answer that); `is_before_question` says so until `take_line()` hands it
  to a prompt, which says why it was not sent. `keep(text, ended=)` adds text the user
  typed elsewhere (a reply to a question that was no answer, or one left unfinished when
  Ctrl-C ended the question) and holds it all. `sends()` counts the Enters
  that would send a line. `preview()` is the text the keys kept would type (for the screen
  while no prompt is shown), a long paste as its placeholder. A Ctrl-D typed ahead is
  dropped: it was typed where no prompt was, and must not end the next one (the session);
  so is a terminal's cursor report (the answer to a prompt that is gone).
"""

from __future__ import annotations

from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from agent_cli.repl.paste import describe_paste, fold_line_breaks, is_long_paste
from agent_cli.repl.paste_marks import PasteMarks

_ENTER_KEYS = (Keys.ControlM, Keys.ControlJ)
_ERASE_KEYS = (Keys.ControlH, Keys.Backspace)
_CURSOR_KEYS = (Keys.Left, Keys.Right, Keys.Home, Keys.End, Keys.ControlA, Keys.ControlE)
# Ctrl-D typed where no prompt was must not end the next one; a cursor report answered a
# prompt that is gone
_DROPPED_KEYS = (Keys.ControlD, Keys.CPRResponse)


class TypedText(KeyPress):
    """Text typed ahead and held (characters, tabs, line breaks), for the prompt to take in
    one step, as it takes a paste, but as it is: typed, it is never folded into a paste's
    placeholder (`prompt.build_key_bindings`). Fed key by key, each key redrew the
    growing input, and a 165 KB paste that came unmarked took gigabytes and half a
    minute."""

    def __init__(self, text: str) -> None:
        super().__init__(Keys.BracketedPaste, text)


class TypeAhead:
    """Keys typed before the line prompt was shown, in order; see the module contract."""

    def __init__(self) -> None:
        self._keys: list[KeyPress] = []
        self._marks = PasteMarks()
        self._is_held = False
        self._held_ends_line = False  # the held input's last line was ended (Enter)
        self._is_before_question = False  # held: some of it was typed before a question

    def add(self, data: bytes) -> None:
        # The Enter key comes as \r (\n from a terminal still translating); the prompt
        # takes either as Enter.
        text = data.decode("utf-8", errors="replace")
        before = len(self._keys)
        self._add_parts(self._marks.split(text))
        # a drain that found nothing changes nothing: held again, the held input forgot
        # that its last line was ended, and the next keys were glued onto it
        if self._is_held and len(self._keys) > before:
            if self._held_ends_line:  # a new line, not glued on
                self._keys.insert(before, KeyPress(Keys.ControlJ, "\n"))
            self.hold()

    def keep(self, text: str, *, ended: bool = True) -> None:
        """Text typed at a question (a reply that was no answer, or one left unfinished
        by Ctrl-C): on a line of its own after the keys kept so far, and, with them, held
        for the next prompt, unsent (`hold`). Keys added later start a new line when
        `ended` (it was sent with Enter), and carry on its line when not."""
        if self._keys and self._keys[-1].key not in _ENTER_KEYS:
            self._keys.append(KeyPress(Keys.ControlJ, "\n"))
        self._keys.append(TypedText(text))
        self.hold()
        self._held_ends_line = ended

    def preview(self) -> str:
        """The text the keys kept would type into an empty prompt, as far as plain editing
        goes (characters, line breaks, Backspace, Delete, Ctrl-U, Ctrl-W, and the cursor
        moved by Left, Right, Home, End, Ctrl-A, Ctrl-E): all of it, the part after the
        cursor too, since all of it goes to the prompt (a long paste as the placeholder it
        will be); other keys show nothing."""
        before: list[str] = []  # the characters before the cursor
        after: list[str] = []  # and after it, nearest first
        for key in self._keys:
            if key.key in _ENTER_KEYS:
                before += [*reversed(after), "\n"]
                after.clear()
            elif key.key in _ERASE_KEYS:
                del before[-1:]
            elif key.key == Keys.Delete:
                del after[-1:]
            elif key.key in _CURSOR_KEYS:
                _move_cursor(before, after, key.key)
            elif key.key in (Keys.ControlU, Keys.ControlW):
                _erase_back(before, whole_line=key.key == Keys.ControlU)
            elif key.key == Keys.BracketedPaste:
                before.extend(_shown(key))
            elif key.key == Keys.ControlI:
                before.append("\t")
            elif not isinstance(key.key, Keys) and len(key.data) == 1:
                before.append(key.data)
        return "".join(before) + "".join(reversed(after))

    def _add_parts(self, parts: list[tuple[bool, str]]) -> None:
        for is_paste, part in parts:
            if is_paste:
                self._add_paste(part)
            else:
                Vt100Parser(self._add_key).feed_and_flush(part)

    def _add_key(self, key: KeyPress) -> None:
        if key.key not in _DROPPED_KEYS:
            self._keys.append(key)

    def _add_paste(self, text: str) -> None:
        # folded here as the prompt folds a paste: the preview then counts what it will show
        if text:
            self._keys.append(KeyPress(Keys.BracketedPaste, fold_line_breaks(text)))

    def __bool__(self) -> bool:
        return bool(self._keys) or self._marks.is_open

    def hold(self, *, before_question: bool = False) -> None:
        """Keep every line typed so far in one input, unsent; see the module contract.

        `before_question`: a question is asked now, after these keys were typed. Each run of
        typed text (characters, tabs and line breaks) is kept as one `TypedText`, each
        paste as the paste it was, other keys as keys (`_held_keys`)."""
        self._held_ends_line = False
        while self._keys and _is_line_end(self._keys, len(self._keys) - 1):
            self._keys.pop()
            self._held_ends_line = True
        self._keys = _held_keys(self._keys)
        # nothing kept is nothing held: a later line typed ahead is sent as ever
        self._is_held = bool(self._keys)
        self._is_before_question = self._is_held and (self._is_before_question or before_question)

    @property
    def is_before_question(self) -> bool:
        """True while the keys kept are held because a question was asked after some of
        them were typed (`hold(before_question=True)`), until `take_line()` took them."""
        return self._is_before_question

    def sends(self) -> int:
        """How many lines the keys kept would send (Enters not part of Alt+Enter)."""
        return sum(1 for index in range(len(self._keys)) if _is_line_end(self._keys, index))

    def take_line(self) -> list[KeyPress]:
        """The keys up to and including the first Enter not part of Alt+Enter (all of them,
        with a paste not yet ended as far as it came, when there is none)."""
        for index in range(len(self._keys)):
            if _is_line_end(self._keys, index):
                line, self._keys = self._keys[: index + 1], self._keys[index + 1 :]
                return line
        self._add_parts(self._marks.close())
        line, self._keys = self._keys, []
        self._is_held = self._is_before_question = False
        return line

    @property
    def is_mid_paste(self) -> bool:
        """True while a paste has begun and its end has not come yet."""
        return self._marks.is_open


def _shown(paste: KeyPress) -> str:
    """What a paste key shows in the prompt: a long paste its placeholder, typed text all."""
    if isinstance(paste, TypedText) or not is_long_paste(paste.data):
        return paste.data
    return describe_paste(paste.data)


def _move_cursor(before: list[str], after: list[str], key: Keys | str) -> None:
    """Move the cursor between `before` and `after` (kept nearest first) as `key` does,
    within the line it is on."""
    if key in (Keys.Left, Keys.Home, Keys.ControlA):
        while before and before[-1] != "\n":
            after.append(before.pop())
            if key == Keys.Left:
                return
    else:
        while after and after[-1] != "\n":
            before.append(after.pop())
            if key == Keys.Right:
                return


def _erase_back(typed: list[str], *, whole_line: bool) -> None:
    """Ctrl-U (back to the line's start) or Ctrl-W (the word before, with its spaces)."""
    while typed and typed[-1] == " " and not whole_line:
        typed.pop()
    while typed and typed[-1] != "\n" and (whole_line or typed[-1] != " "):
        typed.pop()


def _held_keys(keys: list[KeyPress]) -> list[KeyPress]:
    """`keys` (no Enter that sends at their end) as one input that sends nothing: each run
    of typed text one `TypedText`, every Enter in it (Alt+Enter too) a line break; a paste
    stays the paste it was (its own placeholder when long, never with typed words in it);
    other keys (arrows, Backspace…) stay keys, in their place."""
    held: list[KeyPress] = []
    typed: list[str] = []
    for index, key in enumerate(keys):
        text = _typed_text(keys, index)
        if text is not None:
            typed.append(text)
            continue
        if typed:
            held.append(TypedText("".join(typed)))
            typed.clear()
        held.append(key)
    if typed:
        held.append(TypedText("".join(typed)))
    return held


def _typed_text(keys: list[KeyPress], index: int) -> str | None:
    """What `keys[index]` types as text ("" for the Escape of Alt+Enter, its Enter being
    the line break); None when it is a paste or a key that is no text."""
    key = keys[index]
    if key.key == Keys.Escape and index + 1 < len(keys) and keys[index + 1].key in _ENTER_KEYS:
        return ""
    if key.key in _ENTER_KEYS:
        return "\n"
    if isinstance(key, TypedText):
        return key.data
    if key.key == Keys.ControlI:
        return "\t"
    if isinstance(key.key, Keys) or len(key.data) != 1:
        return None
    return key.data


def _is_line_end(keys: list[KeyPress], index: int) -> bool:
    """True when `keys[index]` is an Enter that sends (not the Enter of Alt+Enter)."""
    after_escape = index > 0 and keys[index - 1].key == Keys.Escape
    return keys[index].key in _ENTER_KEYS and not after_escape
