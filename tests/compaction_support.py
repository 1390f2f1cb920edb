"""Builders for Anthropic-format histories and a counting fake encoding, for core tests.

The fake encoding makes token figures easy to reason about (one token per four
characters, rounded up) and counts how often it was asked, so memo tests can prove that
nothing was re-tokenized. It is passed in through `TokenCounter(load_encoding=...)`.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from agent_cli.compaction import CompactionPolicy
from agent_cli.compaction.digest.entries import Digest
from agent_cli.compaction.digest.merge import fit_digest
from agent_cli.tokens import TokenCounter

# A small policy for hand-built histories: soft 1,000 / hard 2,000, results cut over 200.
SMALL_POLICY = CompactionPolicy(
    soft_threshold=1_000,
    hard_limit=2_000,
    max_tool_result_tokens=200,
    keep_recent_messages=4,
    summary_keep_recent=2,
)


class QuarterEncoding:
    """One token per four characters; `calls` counts the texts it encoded."""

    def __init__(self) -> None:
        self.calls = 0

    def encode_ordinary(self, text: str) -> list[int]:
        self.calls += 1
        return [0] * math.ceil(len(text) / 4)


def make_counter(
    cache_size: int = 16_384, max_cached_tokens: int = 8_000_000
) -> tuple[TokenCounter, QuarterEncoding]:
    encoding = QuarterEncoding()
    counter = TokenCounter(
        load_encoding=lambda: encoding, cache_size=cache_size, max_cached_tokens=max_cached_tokens
    )
    return counter, encoding


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def assistant(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def text(body: str) -> dict[str, Any]:
    return {"type": "text", "text": body}


def tool_use(
    tool_id: str, name: str = "bash", tool_input: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": tool_id,
        "name": name,
        "input": tool_input if tool_input is not None else {"command": "ls"},
    }


def read_use(tool_id: str, path: str, **extra: Any) -> dict[str, Any]:
    return tool_use(tool_id, "read_file", {"path": path, **extra})


def tool_result(tool_id: str, content: Any = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


def call_pair(
    tool_id: str, result: Any = "ok", use: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """An assistant message with one tool_use and the user message that answers it."""
    return [assistant([use or tool_use(tool_id)]), user([tool_result(tool_id, result)])]


def build_long_history(turns: int, result_chars: int = 400) -> list[dict[str, Any]]:
    """A first request, then `turns` bash calls with results of `result_chars` characters."""
    history = [user("Please tidy the repository.")]
    for number in range(turns):
        history += call_pair(f"toolu_{number}", "x" * result_chars)
    history.append(assistant("Done."))
    history.append(user("Thanks. What next?"))
    return history


# --- hypothesis strategies ---------------------------------------------------------------

_PATHS = ("src/a.py", "./src/a.py", "src/b.py", "README.md")
_words = st.text(alphabet='abcdefgh ijkl\n上下文{}":,', min_size=1, max_size=40)


@st.composite
def result_contents(draw: st.DrawFn) -> Any:
    size = draw(st.sampled_from([1, 10, 200, 3_000]))
    body = draw(_words) * max(1, size // 20)
    if draw(st.booleans()):
        return body
    return [text(body), text(draw(_words))]


@st.composite
def assistant_turns(draw: st.DrawFn, next_id: list[int]) -> tuple[dict[str, Any], list[str]]:
    blocks: list[dict[str, Any]] = []
    if draw(st.booleans()):
        blocks.append(text(draw(_words)))
    ids = []
    for _ in range(draw(st.integers(0, 3))):
        next_id[0] += 1
        tool_id = f"toolu_{next_id[0]}"
        ids.append(tool_id)
        if draw(st.booleans()):
            blocks.append(read_use(tool_id, draw(st.sampled_from(_PATHS))))
        else:
            blocks.append(tool_use(tool_id))
    if not blocks:
        return assistant(draw(_words)), []
    return assistant(blocks), ids


@st.composite
def valid_histories(
    draw: st.DrawFn, requests: st.SearchStrategy[str] = _words
) -> list[dict[str, Any]]:
    """Histories the Messages API would accept: every call answered in the next message; the
    user's texts drawn from `requests`."""
    history = [user(draw(requests))]
    next_id = [0]
    for _ in range(draw(st.integers(0, 14))):
        message, ids = draw(assistant_turns(next_id))
        history.append(message)
        results = [
            tool_result(tool_id, draw(result_contents())) for tool_id in draw(st.permutations(ids))
        ]
        if results and draw(st.booleans()):
            results.append(text(draw(requests)))
        history.append(user(results) if results else user(draw(requests)))
    return history


@st.composite
def policies(draw: st.DrawFn) -> dict[str, int]:
    soft = draw(st.integers(20, 4_000))
    return {
        "soft_threshold": soft,
        "hard_limit": soft + draw(st.integers(1, 4_000)),
        "max_tool_result_tokens": draw(st.integers(1, 1_000)),
        "keep_recent_messages": draw(st.integers(1, 8)),
        "summary_keep_recent": draw(st.integers(1, 6)),
    }


def merge_digest(*args: Any, **kwargs: Any) -> Digest:
    """The merged digest alone (`fit_digest`'s), which most digest tests compare."""
    return fit_digest(*args, **kwargs).digest
