"""Reading one page of the Models API (GET /v1/models) from its raw body: pure, no SDK.

Contract: `read_models_page(body, complete)` returns the usable entries among the first
`MAX_LISTED_MODELS` of the page's `data` list, each as `{"id", "display_name",
"lifecycle"}` with plain strings (or None), or raises `ModelsPageUnusable` (in
`agent_cli.errors`) with a reason:
"malformed_answer" (not a JSON object with a `data` list, or no entry with a model id),
"no_models" (an empty list) or "too_large" (a body cut at the byte bound before one
whole entry arrived).

Why by hand rather than through the SDK's page object: the SDK builds its models without
validating them, so `{"data": "abc"}`, `{"data": null}`, `[1, 2]` or an HTML page made
`/model` crash, and it builds every entry, so a page of 100,000 entries took seconds to
minutes. `complete=False` says the caller stopped reading at its byte bound: the page
is then read entry by entry from the start of what arrived, and only whole entries count.
Entries that are not objects or whose id is not a model id are left out, not fatal.
"""

from __future__ import annotations

import json
from typing import Any

from agent_cli.errors import ModelsPageUnusable
from agent_cli.models import is_model_id

MAX_LISTED_MODELS = 100
MAX_NAME_CHARS = 200
MAX_LIFECYCLE_CHARS = 40


def read_models_page(body: bytes, complete: bool) -> list[dict[str, Any]]:
    """The usable entries of the page (see the module contract)."""
    text = body.decode("utf-8", errors="replace")
    raw_entries = _read_whole_page(text) if complete else _read_page_prefix(text)
    if not raw_entries:
        raise ModelsPageUnusable("no_models")
    entries = [entry for entry in map(_clean_entry, raw_entries) if entry is not None]
    if not entries:
        raise ModelsPageUnusable("malformed_answer")
    return entries


def _read_whole_page(text: str) -> list[Any]:
    try:
        page = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser
        raise ModelsPageUnusable("malformed_answer") from None
    data = page.get("data") if isinstance(page, dict) else None
    if not isinstance(data, list):
        raise ModelsPageUnusable("malformed_answer")
    return data[:MAX_LISTED_MODELS]


def _read_page_prefix(text: str) -> list[Any]:
    """The whole entries at the start of the `data` list of a page cut short."""
    reader = _PrefixReader(text)
    try:
        reader.expect("{")
        while not reader.at("}"):
            key = reader.value()
            reader.expect(":")
            if key == "data":
                return reader.list_items(MAX_LISTED_MODELS)
            reader.value()  # another member: skipped
            if not reader.at("}"):
                reader.expect(",")
    except _CutShort:
        if reader.items:
            return reader.items
        raise ModelsPageUnusable("too_large") from None
    raise ModelsPageUnusable("malformed_answer")


class _CutShort(Exception):
    """The text ended (at the byte bound) before what was being read."""


class _PrefixReader:
    """Reads JSON values one at a time from the start of a text that may be cut short."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.items: list[Any] = []  # the `data` entries read so far
        self._decoder = json.JSONDecoder()

    def _skip_space(self) -> None:
        while self.position < len(self.text) and self.text[self.position] in " \t\r\n":
            self.position += 1

    def at(self, char: str) -> bool:
        """True (and past it) when the next character is `char`."""
        self._skip_space()
        if self.position >= len(self.text):
            raise _CutShort
        if self.text[self.position] == char:
            self.position += 1
            return True
        return False

    def expect(self, char: str) -> None:
        if not self.at(char):
            raise ModelsPageUnusable("malformed_answer")

    def value(self) -> Any:
        self._skip_space()
        try:
            value, self.position = self._decoder.raw_decode(self.text, self.position)
        except (ValueError, RecursionError):  # nested past the parser: broken as well
            raise _CutShort from None  # at the bound, or broken JSON: see list_items
        return value

    def list_items(self, limit: int) -> list[Any]:
        """Up to `limit` items of the list that starts here."""
        if not self.at("["):
            raise ModelsPageUnusable("malformed_answer")
        while len(self.items) < limit and not self.at("]"):
            if self.items:
                self.expect(",")
            self.items.append(self.value())
        return self.items


def _clean_entry(entry: Any) -> dict[str, Any] | None:
    """The entry as plain strings, or None when it names no model id."""
    if not isinstance(entry, dict):
        return None
    model_id = entry.get("id")
    if not isinstance(model_id, str) or not is_model_id(model_id):
        return None
    return {
        "id": model_id,
        "display_name": _short_text(entry.get("display_name"), MAX_NAME_CHARS),
        "lifecycle": _short_text(entry.get("lifecycle"), MAX_LIFECYCLE_CHARS),
    }


def _short_text(value: Any, limit: int) -> str | None:
    return value[:limit] if isinstance(value, str) and value.strip() else None
