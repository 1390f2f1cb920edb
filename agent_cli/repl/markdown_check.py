"""Whether rich's Markdown would show all of an answer: what it parses away, and what it draws.

Contract: `parse_answer(text)` parses `text` as rich's Markdown does (markdown-it with
tables and strikethrough) and gives an `AnswerParse`: `hides` is True when the parse or
rich's rendering would leave part of the text off the screen, and `expected` is the text
the rendered lines must hold. What is hidden, by rule: an HTML block or comment (rich
draws no HTML), an inline tag with more than its name (`<span title="...">`; `<br>` and
`<kbd>` alone hide nothing), a link reference definition (its label and title never
show), an image (its address never shows), a link title, a code fence's info unless it is one
language name Pygments knows or a plain-text one (`PLAIN_FENCES`: rich takes the first
word as the language and shows none of the info), and
anything at markdown-it's nesting limit (what lies deeper is not parsed at all).
`shows_expected(parse, lines)` then checks the rendered lines hold each letter and digit
of `expected` at least as often, which catches whatever else a renderer might drop.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment

MAX_NESTING = 20  # markdown-it's limit: the block parser stops at this depth
PLAIN_FENCES = frozenset({"txt", "plaintext", "plain", "jsonc", "mermaid", "log", "output"})
BARE_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*\s*/?>")
SHOWN_CONTENT = ("text", "code_inline", "code_block", "fence")


@dataclass(frozen=True)
class AnswerParse:
    """What parsing an answer found (module doc)."""

    hides: bool
    expected: str


def parse_answer(text: str) -> AnswerParse:
    """Parse `text` as rich's Markdown does and say what it would hide (module doc)."""
    from markdown_it import MarkdownIt

    env: dict[str, Any] = {}
    tokens = MarkdownIt().enable("strikethrough").enable("table").parse(text, env)
    flat = list(_walk(tokens))
    hides = bool(env.get("references")) or any(map(_hides, flat))
    expected = "".join(token.content for token in flat if token.type in SHOWN_CONTENT)
    return AnswerParse(hides, expected)


def shows_expected(parse: AnswerParse, lines: Sequence[Sequence[Segment]]) -> bool:
    """True when every letter and digit of `parse.expected` is in `lines` at least as
    often (wrapping, bullets and numbers add, never take away)."""
    wanted = Counter(filter(str.isalnum, parse.expected))
    shown = Counter(
        character
        for line in lines
        for segment in line
        for character in segment.text
        if character in wanted
    )
    return all(shown[character] >= count for character, count in wanted.items())


def _walk(tokens: Sequence[Any]) -> Iterator[Any]:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def _is_language_name(info: str) -> bool:
    """True when a fence's info is one word naming a language (or plain text)."""
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    if info.lower() in PLAIN_FENCES:
        return True
    try:
        find_lexer_class_by_name(info)
    except ClassNotFound:
        return False
    return True


def _hides(token: Any) -> bool:
    """True when rich would leave part of `token` off the screen (module doc)."""
    kind = token.type
    if token.level >= MAX_NESTING - 1 or kind == "image":
        return True
    if kind == "html_block":
        return any(map(str.isalnum, token.content))
    if kind == "html_inline":
        return BARE_TAG.fullmatch(token.content.strip()) is None
    if kind == "fence":
        info = token.info.strip()
        return bool(info) and not _is_language_name(info)
    return kind == "link_open" and bool(token.attrGet("title"))
