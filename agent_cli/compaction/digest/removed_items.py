"""What left the view, as the digest takes it: user texts, and each interaction as one line.

Contract: an interaction's line is written from its two blocks alone, so it always reads the same; a
request's from its text, or its head where the digest shortens it (the head keeps a hash of the
whole text, `request_key`, never rendered). A line shows the call's key input as the model wrote
it, unredacted and never cut around a secret (that would tell the model which words are secrets),
but never inside a pointer. Pure.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, NamedTuple

from agent_cli.safe_cuts import cut_head, safe_head_end
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import TokenCounter

# Private key on a tool_result L1 cut: its text's characters before any cut.
CUT_FROM_KEY = "_cut_from"
# How a command's result begins (`tools.shell`): its exit code, or the signal that ended it.
_COMMAND_ENDED = re.compile(r"Exit code: (-?\d+)|Killed by signal (\d+)")
# The input keys that say what a call was about, most telling first.
KEY_INPUTS = ("path", "command", "pattern", "pointer", "query", "url", "file_path")
MAX_KEY_INPUT_CHARS = 120
ANSWER_HEAD_CHARS = 120  # of an answer that left unsummarized (`describe_answer`)
SHORT_REQUEST_CHARS = 200  # a request's head in the digest, past its budget
SHORTEST_REQUEST_CHARS = 60  # ... past one and a half budgets
REQUEST_LIMITS = ((SHORT_REQUEST_CHARS, 1), (SHORTEST_REQUEST_CHARS, 1.5))  # (limit, budgets)
_REQUEST_KEY_BYTES = 8  # (64 bits: two different requests practically never share a key)
_REQUEST_KEY = re.compile(rf"[0-9a-f]{{{2 * _REQUEST_KEY_BYTES}}}")


class RequestEntry(NamedTuple):
    """A user text that left the view, as the digest holds it."""

    text: str
    pointer: str | None = None
    shortened_from: int | None = None  # the original length, when `text` is its head
    # (counter, tokens of `request_line`) when counted; used for that counter only
    counted: tuple[Any, int] | None = None
    number: int | None = None
    # (secret forms, its head at each of `REQUEST_LIMITS` or None): `with_heads`
    heads: tuple[SecretForms, RequestEntry | None, RequestEntry | None] | None = None
    # one line for the same request asked `asked` times (`repeats`): `pointer` names the last
    # ask, `first` the first
    asked: int = 1
    first: str | None = None
    # on a shortened entry: `request_key` of the whole text its head was cut from (None: not
    # known, as in digests stored before it was kept), so `repeats` still knows its asks
    whole_key: str | None = None


class RemovedInteraction(NamedTuple):
    """One tool call (both halves) that left the view, with its pointer; its line is written when
    asked (`describe`)."""

    tool_use_id: str
    use: dict[str, Any]
    result: dict[str, Any] | None
    pointer: str | None
    line: str = ""  # "" until written (`describe`)
    counted: tuple[Any, int] | None = None  # (counter, tokens of the line with its pointer)
    number: int | None = None  # the pointer's record number (None: not read, or none)
    block_tokens: int | None = None  # its two blocks' tokens, for a read (None: not counted)

    def describe(self) -> str:
        if self.line:
            return self.line
        return describe_interaction(self.use, self.result)


def describe_answer(text: str) -> str:
    """`answer (1,234 chars): The failing test is…`: a model answer's length and head."""
    return f"answer ({len(text):,} chars): {cut_head(' '.join(text.split()), ANSWER_HEAD_CHARS)}"


def describe_interaction(use: dict[str, Any], result: dict[str, Any] | None) -> str:
    """`read_file path=src/a.py -> 1,234 chars, ok`: tool, key input, result size, outcome."""
    name = str(use.get("name") or "tool")
    key_input = describe_key_input(use.get("input"))
    head = f"{name} {key_input}" if key_input else name
    if result is None:
        return f"{head} -> no result"
    return f"{head} -> {result_size(result):,} chars, {describe_outcome(result)}"


def describe_outcome(result: dict[str, Any]) -> str:
    """`error` for an error result, `exit N` or `signal N` for a command that exited non-zero or was
    killed, else `ok`."""
    if result.get("is_error") is True:
        return "error"
    content = result.get("content")
    first = content if isinstance(content, str) else ""
    if isinstance(content, list) and content and isinstance(content[0], dict):
        first = str(content[0].get("text", ""))
    ended = _COMMAND_ENDED.match(first)
    if ended is None or ended.group(1) == "0":
        return "ok"
    return f"exit {ended.group(1)}" if ended.group(1) else f"signal {ended.group(2)}"


def describe_key_input(tool_input: Any) -> str:
    """`key=value` for the input that says what the call was about, cut at `MAX_KEY_INPUT_CHARS` but
    never inside a pointer."""
    if not isinstance(tool_input, dict):
        return ""
    key = _pick_key_input(tool_input)
    if key is None:
        return ""
    value = " ".join(str(tool_input[key]).split())
    if len(value) > MAX_KEY_INPUT_CHARS:
        end = safe_head_end(value, MAX_KEY_INPUT_CHARS - 1, NO_SECRETS)
        value = value if end == len(value) else value[:end] + "…"
    return f"{key}={value}"


def _pick_key_input(tool_input: dict[Any, Any]) -> Any:
    """The first of `KEY_INPUTS` holding a string, else the first input that does."""
    for key in KEY_INPUTS:
        if isinstance(tool_input.get(key), str):
            return key
    for key, value in tool_input.items():
        if isinstance(value, str):
            return key
    return None


def result_size(result: dict[str, Any]) -> int:
    """Characters of a tool_result's text before any L1 cut (`CUT_FROM_KEY`)."""
    cut_from = result.get(CUT_FROM_KEY)
    if type(cut_from) is int and cut_from >= 0:
        return cut_from
    content = result.get("content")
    if isinstance(content, str):
        return len(content)
    if not isinstance(content, list):
        return 0
    return sum(
        len(part.get("text", ""))
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    )


def whole_request_line(text: str) -> str:
    return f"- {text}"


def request_line(entry: RequestEntry) -> str:
    """A request shown whole is its words alone; a shortened one also names its pointer and full
    length; one asked more than once says how often, with the pointers of its last and first ask."""
    if entry.asked > 1:
        return _repeated_request_line(entry)
    if not entry.shortened_from:
        return whole_request_line(entry.text)
    notes = [entry.pointer] if entry.pointer else []
    notes.append(f"shortened from {entry.shortened_from:,} chars")
    return f"- ({'; '.join(notes)}) {entry.text}…"


def _repeated_request_line(entry: RequestEntry) -> str:
    """`- fix the build (asked 3 times; last transcript:s:9, first transcript:s:2)`; shortened:
    `- (asked 3 times; last …, first …; shortened from 5,000 chars) head…`."""
    asks = [f"last {entry.pointer}"] if entry.pointer else []
    if entry.first and entry.first != entry.pointer:
        asks.append(f"first {entry.first}")
    said = f"asked {entry.asked:,} times" + (f"; {', '.join(asks)}" if asks else "")
    if entry.shortened_from:
        return f"- ({said}; shortened from {entry.shortened_from:,} chars) {entry.text}…"
    return f"- {entry.text.strip()} ({said})"  # (the asks differ at most there)


def cut_request(entry: RequestEntry, limit: int, secrets: SecretForms) -> RequestEntry:
    """`entry` cut to its head at `limit`, splitting no pointer and none of `secrets`, keeping the
    key of its whole text (made at its first cut, from the text before any cut)."""
    original, key = entry.shortened_from or len(entry.text), entry.whole_key
    if not entry.shortened_from:
        key = request_key(entry.text)
    head = entry.text[: safe_head_end(entry.text, limit, secrets)]
    return entry._replace(
        text=head, shortened_from=original, counted=None, heads=None, whole_key=key
    )


def request_key(text: str) -> str:
    """A short hash naming a request by its whole text, leading and trailing whitespace set
    aside (as `repeats` compares texts): what a shortened entry keeps of the words its cut left
    out. A hash, never the words, so it gives back nothing the cut hid; it is kept in the
    digest's private data only, which is never sent."""
    whole = text.strip().encode("utf-8", "surrogatepass")
    return hashlib.blake2b(whole, digest_size=_REQUEST_KEY_BYTES).hexdigest()


def is_request_key(value: object) -> bool:
    """Whether `value` reads as a `request_key` (stored data is checked before it is trusted)."""
    return isinstance(value, str) and _REQUEST_KEY.fullmatch(value) is not None


def with_heads(entry: RequestEntry, counter: TokenCounter, secrets: SecretForms) -> RequestEntry:
    """`entry` with its heads, each counted, as the digest cuts them under `secrets`."""
    head, heads = entry, list[RequestEntry | None]()
    for limit, _ in REQUEST_LIMITS:
        made = None
        if len(head.text) > limit:
            head = cut_request(head, limit, secrets)
            made = head = head._replace(counted=(counter, count_line(request_line(head), counter)))
        heads.append(made)
    return entry._replace(heads=(secrets, heads[0], heads[1]))


def with_pointer(line: str, pointer: str | None) -> str:
    """An interaction's digest line: a list item, with its pointer when it has one."""
    return f"- {line} ({pointer})" if pointer else f"- {line}"


def count_line(line: str, counter: TokenCounter) -> int:
    """Tokens of rendered digest text as the budget counts it: line by line, each with its newline."""
    return sum(counter.count_text(piece + "\n") for piece in line.split("\n"))
