"""Tool text with lone surrogates (names that are not UTF-8) is made recordable."""

from __future__ import annotations

import os

from agent_cli.tools.recordable_text import make_recordable


def test_a_byte_carried_by_surrogateescape_is_written_as_a_visible_escape() -> None:
    name = os.fsdecode(b"caf\xe9.txt")
    assert make_recordable(name) == "caf\\xe9.txt"
    make_recordable(name).encode("utf-8")


def test_another_lone_surrogate_becomes_the_replacement_character() -> None:
    assert make_recordable("a\ud800b") == "a\ufffdb"


def test_text_that_encodes_is_returned_as_it_is() -> None:
    text = "café ☕ \\xe9"
    assert make_recordable(text) is text
