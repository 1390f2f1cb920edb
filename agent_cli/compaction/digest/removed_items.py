"""What left the view, as the digest takes it: user texts, and each interaction as one line.

Contract: `RequestEntry` and `RemovedInteraction` are the entries a removal gives the
digest. An interaction's line is written from its two blocks alone, so the same
interaction always reads the same; a request's (`request_line`) from its text, and its
head where the digest shortens it (`cut_request`). Pure.

A line shows the call's key input as the model wrote it, never redacted and cut where no
pointer is split but wherever a secret may be: the input is the model's own, sent as it
is with the call, and a line that redacted it, or cut it shorter around a secret, would
tell the model which of its words is a secret (a seventh outside attack; `tools.echo`).
A value named a secret later is redacted from the digest on `--continue`
(`session.resumed_secrets`).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agent_cli.safe_cuts import safe_head_end
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import TokenCounter

# A private key (the wire builder drops it) on a tool_result L1 cut: the characters of its
# text before any cut, which its transcript record holds.
CUT_FROM_KEY = "_cut_from"
# How a command's result begins (`tools.shell`): its exit code, or the signal that ended it.
_COMMAND_ENDED = re.compile(r"Exit code: (-?\d+)|Killed by signal (\d+)")
# The input keys that say what a call was about, most telling first.
KEY_INPUTS = ("path", "command", "pattern", "pointer", "query", "url", "file_path")
MAX_KEY_INPUT_CHARS = 120
SHORT_REQUEST_CHARS = 200  # a request's head in the digest, past its budget
SHORTEST_REQUEST_CHARS = 60  # ... past one and a half budgets
REQUEST_LIMITS = ((SHORT_REQUEST_CHARS, 1), (SHORTEST_REQUEST_CHARS, 1.5))  # (limit, budgets)


class RequestEntry(NamedTuple):
    """A user text that left the view, with the record it came from, as the digest holds
    it."""

    text: str
    pointer: str | None = None
    shortened_from: int | None = None  # the original length, when `text` is its head
    # (the counter, the tokens of its line as the digest shows and counts it:
    # `request_line`) when counted already: the digest takes it for that counter
    # only; None when cut afresh, or read from storage
    counted: tuple[Any, int] | None = None
    # its pointer's record number, read as the entry was made (None: not read, or none)
    number: int | None = None
    # (the secret forms, itself cut to its head at each limit it passes, in turn, each
    # counted, else None) as the digest cuts it under those forms (`with_heads`)
    heads: tuple[SecretForms, RequestEntry | None, RequestEntry | None] | None = None


class RemovedInteraction(NamedTuple):
    """One tool call (both halves) that left the view, with its pointer. Its line is
    written only when asked (`describe`): most of a long removal folds into a range."""

    tool_use_id: str
    use: dict[str, Any]
    result: dict[str, Any] | None
    pointer: str | None
    # written already (`message_facts`), else "" and written by `describe`; an entry whose
    # line is written serves in a digest as its own line (`entries.DigestLine`)
    line: str = ""
    # (the counter, the tokens of the line with its pointer as the digest counts it),
    # when counted already: the digest takes the figure for that very counter only
    counted: tuple[Any, int] | None = None
    # its pointer's record number, read as the entry was made (`entries.sequence_of`);
    # None when it was not read (the digest then reads it off the pointer) or has none
    number: int | None = None
    # the tokens of its two blocks, counted as the per-turn check made the entry (by the
    # index's counter, which every run of that index counts with) for a call L2 may take
    # out (a read); None: not counted
    block_tokens: int | None = None

    def describe(self) -> str:
        if self.line:
            return self.line
        return describe_interaction(self.use, self.result)


def describe_interaction(use: dict[str, Any], result: dict[str, Any] | None) -> str:
    """`read_file path=src/a.py -> 1,234 chars, ok`: tool, key input, result size, outcome."""
    name = str(use.get("name") or "tool")
    key_input = describe_key_input(use.get("input"))
    head = f"{name} {key_input}" if key_input else name
    if result is None:
        return f"{head} -> no result"
    return f"{head} -> {result_size(result):,} chars, {describe_outcome(result)}"


def describe_outcome(result: dict[str, Any]) -> str:
    """`error` for a failed call, `exit N` for a command that exited non-zero or `signal
    N` for one a signal ended (bash's results are no errors: its header says so), else
    `ok`."""
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
    """The one input that says what the call was about, `key=value`, on one short line,
    as the model wrote it (module contract), cut at `MAX_KEY_INPUT_CHARS`, but never
    inside a pointer: a `read_artifact` line keeps the pointer it read, whole
    (`safe_cuts`, with no secret: where the cut falls must not depend on one)."""
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
    """Characters of a tool_result's text (string content or text parts), as its record
    holds it: before L1 cut it (`CUT_FROM_KEY`), when it did."""
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
    """A request's digest line when it is shown whole: just its words (`request_line`)."""
    return f"- {text}"


def request_line(entry: RequestEntry) -> str:
    """A request shown whole is just its words: a pointer would repeat it at a cost of about
    twenty tokens a line, read again on every request. A shortened one keeps its pointer and
    full length, the way back to the words it lost."""
    if not entry.shortened_from:
        return whole_request_line(entry.text)
    notes = [entry.pointer] if entry.pointer else []
    notes.append(f"shortened from {entry.shortened_from:,} chars")
    return f"- ({'; '.join(notes)}) {entry.text}…"


def cut_request(entry: RequestEntry, limit: int, secrets: SecretForms) -> RequestEntry:
    """`entry` cut to its head at `limit` where no pointer and none of `secrets` is split
    (`safe_cuts`), naming its full length."""
    original = entry.shortened_from or len(entry.text)
    head = entry.text[: safe_head_end(entry.text, limit, secrets)]
    return entry._replace(text=head, shortened_from=original, counted=None, heads=None)


def with_heads(entry: RequestEntry, counter: TokenCounter, secrets: SecretForms) -> RequestEntry:
    """`entry` with its heads as the digest cuts them under `secrets` (`merge`'s refit): at
    each of `REQUEST_LIMITS` its text passes, in turn, each head's line counted."""
    head, heads = entry, list[RequestEntry | None]()
    for limit, _ in REQUEST_LIMITS:
        made = None
        if len(head.text) > limit:
            head = cut_request(head, limit, secrets)
            made = head = head._replace(counted=(counter, count_line(request_line(head), counter)))
        heads.append(made)
    return entry._replace(heads=(secrets, heads[0], heads[1]))


def with_pointer(line: str, pointer: str | None) -> str:
    """An interaction's line as the digest renders it: a list item, with its pointer
    when it has one."""
    return f"- {line} ({pointer})" if pointer else f"- {line}"


def count_line(line: str, counter: TokenCounter) -> int:
    """Tokens of rendered digest text with its newline, as the digest's budget counts it:
    line by line (an entry may hold line breaks: a request's own)."""
    if "\n" not in line:
        return counter.count_text(line + "\n")
    return sum(counter.count_text(piece + "\n") for piece in line.split("\n"))


def count_line_within(line: str, counter: TokenCounter, room: int) -> int | None:
    """`count_line(line)` when it is at most `room`; else None, found as soon as the
    lines counted so far add up to more (each line's count is part of the sum)."""
    used = 0
    for piece in line.split("\n"):
        used += counter.count_text(piece + "\n")
        if used > room:
            return None
    return used
