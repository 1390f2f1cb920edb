"""The prompt's keys around a long paste's placeholder, and the check before a line goes.

Contract: `PasteKeys(pastes)` serves one prompt buffer (`watch(buffer)`) of the reader
whose kept pastes are `pastes`. Its `key_bindings()` edit a kept placeholder as one unit
(`paste_units`): a key that deletes backwards (Backspace, Ctrl-W, Alt-Backspace) with
the placeholder just before the cursor, or forwards (Delete, Ctrl-D, Alt-D) with it just
after, takes out the whole placeholder, so the paste goes with it and Ctrl-_ (undo)
brings it back (the word-killing keys also put it on the clipboard, for Ctrl-Y); a key
that moves the cursor (Left/Right, Ctrl-B/F, word moves) with the placeholder next to it
jumps over it. However the cursor moves otherwise (Up/Down over lines, undo), it never
stays inside one: it goes to the nearer edge. None of this applies while text is
selected. Any other edit can still break a placeholder (a selection cut across it, a
word's case changed): `validator` then refuses Enter, with one line that says which
paste would be lost and how to get it back, and the input stays as it is, undo history
and all. What counts as broken is `paste_units.find_broken`, over the placeholders this
input has shown (less those a key above took out whole, on purpose): since
`start_input()` (a new input, nothing shown yet) or `continue_input(text)` (an input
given back to the prompt, still showing `text`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.application.current import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, Filter, has_selection
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.validation import ValidationError, Validator

from agent_cli.repl.paste import PastedText
from agent_cli.repl.paste_units import (
    Side,
    find_broken,
    held_in,
    kept_span,
    nearest_edge,
    without_span,
)

BACKWARD_DELETES = (("backspace",), ("escape", "backspace"), ("c-w",))
FORWARD_DELETES = (("delete",), ("c-d",), ("escape", "d"))
KeyAction = Callable[[Any, Side, tuple[str, ...]], None]
WORD_KILLS = {("escape", "backspace"), ("c-w",), ("escape", "d")}
BACKWARD_MOVES = (("left",), ("c-b",), ("c-left",), ("escape", "b"))
FORWARD_MOVES = (("right",), ("c-f",), ("c-right",), ("escape", "f"))


def describe_broken(placeholder: str) -> str:
    """The line under the prompt when Enter met a broken placeholder: one row of 80
    columns (the toolbar cuts what is longer), what happened first, then the way back."""
    return f"not sent: {placeholder} is broken; Ctrl-_ (undo) gets the paste back"


class PasteKeys:
    """Keys, cursor guard and send check for long pastes; see the module contract."""

    def __init__(self, pastes: PastedText) -> None:
        self._pastes = pastes
        self._held: set[str] = set()  # kept placeholders this input has shown
        self.validator: Validator = _WholePastes(self)

    def start_input(self) -> None:
        self._held = set()

    def continue_input(self, text: str) -> None:
        self._held |= held_in(text, self._pastes)

    def find_broken_in(self, text: str) -> tuple[str, int] | None:
        """(placeholder, where its piece begins) when `text` broke one this input showed."""
        broken = find_broken(text, self._held, self._pastes)
        return None if broken is None else (broken.placeholder, broken.piece_at)

    def watch(self, buffer: Buffer) -> None:
        """Note each placeholder `buffer` shows, and keep its cursor out of them."""
        buffer.on_text_changed += self._on_change
        buffer.on_cursor_position_changed += self._keep_cursor_out

    def _on_change(self, buffer: Buffer) -> None:
        self._held |= held_in(buffer.text, self._pastes)
        self._keep_cursor_out(buffer)

    def _keep_cursor_out(self, buffer: Buffer) -> None:
        position = buffer.cursor_position
        span = kept_span(buffer.text, position, self._pastes, "around")
        if span is not None:
            buffer.cursor_position = nearest_edge(span, position)

    def key_bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        groups: tuple[tuple[tuple[tuple[str, ...], ...], Side, KeyAction], ...] = (
            (BACKWARD_DELETES, "before", self._remove),
            (FORWARD_DELETES, "after", self._remove),
            (BACKWARD_MOVES, "before", self._jump),
            (FORWARD_MOVES, "after", self._jump),
        )
        for keys_list, side, action in groups:
            for keys in keys_list:
                bindings.add(*keys, filter=self._next_to(side))(_handler(action, side, keys))
        return bindings

    def _next_to(self, side: Side) -> Filter:
        def is_next_to() -> bool:
            buffer = get_app().current_buffer
            return kept_span(buffer.text, buffer.cursor_position, self._pastes, side) is not None

        return Condition(is_next_to) & ~has_selection

    def _remove(self, event: Any, side: Side, keys: tuple[str, ...]) -> None:
        buffer = event.current_buffer
        span = kept_span(buffer.text, buffer.cursor_position, self._pastes, side)
        if span is None:
            return
        placeholder = buffer.text[span.start : span.end]
        if keys in WORD_KILLS:
            event.app.clipboard.set_text(placeholder)
        text, cursor = without_span(buffer.text, span)
        if placeholder not in held_in(text, self._pastes):
            self._held.discard(placeholder)  # taken out on purpose: nothing of it to break
        buffer.document = Document(text, cursor)

    def _jump(self, event: Any, side: Side, keys: tuple[str, ...]) -> None:
        buffer = event.current_buffer
        span = kept_span(buffer.text, buffer.cursor_position, self._pastes, side)
        if span is not None:
            buffer.cursor_position = span.start if side == "before" else span.end


def _handler(action: KeyAction, side: Side, keys: tuple[str, ...]) -> Callable[[Any], None]:
    def handle(event: Any) -> None:
        action(event, side, keys)

    return handle


class _WholePastes(Validator):
    """Refuses Enter while the input holds a broken placeholder (module contract)."""

    def __init__(self, keys: PasteKeys) -> None:
        self._keys = keys

    def validate(self, document: Document) -> None:
        broken = self._keys.find_broken_in(document.text)
        if broken is not None:
            placeholder, piece_at = broken
            raise ValidationError(cursor_position=piece_at, message=describe_broken(placeholder))
