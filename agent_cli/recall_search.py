"""Finding what compaction took out by its words: the search half of the `recall` tool.

Contract: `search_records(records, query, offset=..., per_page=..., timeout=...)` looks
through the `message` records it is given (the caller replays only its own session's
transcript), oldest first, and answers one bounded page: at most `per_page` matching
records from the `offset`-th match on, each as its `transcript:` pointer (which `recall`
reads back whole) with a short one-line excerpt around the first match, and whether more
follow. Oldest first keeps the paging stable while the conversation grows at the end.

What is searched is a message's content as `recall` shows it (`recall_render.render_blocks`:
text, tool calls with their input, results), less the recall tool's own calls and their
results: a search never finds itself or the pages of earlier searches. A query is either words (a record matches when every word occurs in
it, in any case; plain substring search, linear) or a regex from the model, run by
ripgrep's linear-time engine (`tools.ripgrep_records`). Both stop after `timeout`
seconds; the page then holds what was found and says the search stopped.

What is searched is redacted first with the session's secret forms (`secrets`), so the
answer (hits, excerpts, counts) is the same for any two secrets of one length: a pattern
such as `TOKEN=ghp_Z[q]` matched the raw text and spelled a key out (a fifth outside
attack). A message this run recorded (`as_recorded_from` on) is searched and shown as
`recall` shows it (`agent_cli.recall`): as recorded, but for the user's typed words,
redacted; all of it was given to the model as it is, and its own words redacted would
tell it which of them is a secret (a seventh outside attack). A value learned after the
message was written (`learned`, `learned_secrets`) is redacted in it all the same: the
view the model is given has it redacted since. The answer never repeats
the query (`tools.echo`): redacted with the excerpts, it would be that oracle too. An
artifact read only up to a limit must come from `read_artifact` already cut
where no secret may have begun (`Recall` does: `safe_cuts.safe_head_end` with
`stream_stopped`), since half a key is no longer recognised; for the same reason a
message of an earlier run is searched with the piece of a secret its run cut a tool
result inside hidden (`recall_render.with_pieces_hidden`, `cut_pieces`).

Big tool outputs live in artifacts, the record holding only a preview and the pointer: the
artifacts a message names are searched too (read through the caller's `read_artifact`,
which authorizes only this session's), each once, and a hit in one answers its
`artifact:` pointer, which recall reads too. A hit far into what recall shows for its
pointer names the offset to start the page at.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agent_cli.errors import ToolError, TranscriptCorrupt
from agent_cli.learned_secrets import LearnedSecrets
from agent_cli.recall_render import render_blocks, with_pieces_hidden, with_typed_text
from agent_cli.safe_cuts import pointer_around, secret_end_across, secret_start_across
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.ripgrep_records import RecordSearch, find_in_records

MAX_QUERY_CHARS = 500
SEARCH_PAGE_MATCHES = 10
EXCERPT_CONTEXT_CHARS = 80  # shown on each side of a match
EXCERPT_MATCH_CHARS = 120  # of the match itself, at most
SEARCH_TIMEOUT_SECONDS = 20.0
RECALL_TOOL_NAME = "recall"
OFFSET_NOTE_FROM = 1_000  # a match this far into what recall shows gets an offset to start at
ARTIFACT_POINTER = re.compile(r"artifact:[A-Za-z0-9][\w.-]*:[A-Za-z0-9][\w.-]*:[0-9a-f]{12,64}")
NOTHING_LEARNED = LearnedSecrets()
ArtifactReader = Callable[[str], "str | None"]  # pointer -> its text, None if not readable


@dataclass(frozen=True)
class SearchQuery:
    """Words (every one must occur, any case) or a regex (`is_regex`)."""

    text: str
    is_regex: bool = False

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.text.casefold().split()))

    def describe(self) -> str:
        """What kind of search it is; not the query itself (module contract)."""
        return "a regex" if self.is_regex else "words"


@dataclass(frozen=True)
class SearchHit:
    pointer: str
    kind: str  # the message's role, or "artifact"
    excerpt: str
    at: int = 0  # where the match is in what `recall` shows for `pointer`


@dataclass
class SearchPage:
    query: SearchQuery
    offset: int
    hits: list[SearchHit] = field(default_factory=list)
    has_more: bool = False
    timed_out: bool = False
    searched: int = 0  # messages looked at
    damaged_line: int | None = None  # the transcript line that could not be read, if any

    @property
    def next_offset(self) -> int:
        return self.offset + len(self.hits)


def parse_query(text: Any, *, is_regex: bool) -> SearchQuery:
    """The query, or `ToolError` saying what a usable one looks like."""
    if not isinstance(text, str) or not text.strip():
        raise ToolError("The search is empty: give a few words, or a regex as pattern.")
    if "\x00" in text:
        raise ToolError("The search must be text without NUL characters.")
    if len(text) > MAX_QUERY_CHARS:
        raise ToolError(
            f"The search is {len(text):,} characters; use at most {MAX_QUERY_CHARS}: a few "
            "distinctive words, or a short regex."
        )
    return SearchQuery(text if is_regex else " ".join(text.split()), is_regex)


def search_records(
    records: Iterable[dict[str, Any]],
    query: SearchQuery,
    *,
    offset: int = 0,
    per_page: int = SEARCH_PAGE_MATCHES,
    timeout: float = SEARCH_TIMEOUT_SECONDS,
    read_artifact: ArtifactReader | None = None,
    secrets: SecretForms = NO_SECRETS,
    as_recorded_from: int | None = None,
    learned: LearnedSecrets = NOTHING_LEARNED,
) -> SearchPage:
    """One page of the records that match `query` (see the module contract); with
    `read_artifact`, the artifacts the messages name are searched too, each once, right
    after the first message that names it. Excerpts split none of `secrets` and show
    them redacted, but those of messages from sequence `as_recorded_from` on, which are
    shown as recorded with the user's typed words redacted, and the values `learned`
    after each was written redacted too."""
    page = SearchPage(query, offset)
    searchable = _SearchableMessages(records, read_artifact, secrets, as_recorded_from, learned)
    if query.is_regex:
        matches = _regex_matches(query.text, searchable, page, timeout)
    else:
        matches = _word_matches(query.words, searchable, page, timeout)
    try:
        for index, (pointer, text, start, end) in enumerate(matches):
            if index < offset:
                continue
            if len(page.hits) == per_page:
                page.has_more = True
                break
            page.hits.append(searchable.hit(pointer, text, start, end))
    finally:
        matches.close()  # ends rg and its threads now, not when collected
    page.searched = searchable.count
    page.damaged_line = searchable.damaged_line
    return page


class _SearchableMessages:
    """The message records as (pointer, searchable text), each followed by the artifacts
    it names that were not searched yet, counting the messages; a recall call's id is
    remembered when its message goes by, so its result (always later) is hidden."""

    def __init__(
        self,
        records: Iterable[dict[str, Any]],
        read_artifact: ArtifactReader | None,
        secrets: SecretForms = NO_SECRETS,
        as_recorded_from: int | None = None,
        learned: LearnedSecrets = NOTHING_LEARNED,
    ) -> None:
        self._records = records
        self._secrets = secrets
        self._as_recorded_from = as_recorded_from
        self._learned = learned
        # pointers of the messages shown as recorded, with the forms learned since each
        self._as_recorded: dict[str, SecretForms] = {}
        self._read_artifact = read_artifact
        self._seen_artifacts: set[str] = set()
        self.pointers: list[str] = []
        self.kinds: dict[str, str] = {}
        self.count = 0
        self.damaged_line: int | None = None  # where reading the transcript failed

    def hit(self, pointer: str, text: str, start: int, end: int) -> SearchHit:
        """The hit for a match in `pointer`'s searchable text; `at` is where the match's
        line starts in what `recall` shows for it (a message after a `<role> message:`
        line)."""
        kind = self.kinds.get(pointer, "?")
        line_start = text.rfind("\n", 0, start) + 1  # a page read from there shows the line
        at = line_start if kind == "artifact" else line_start + len(f"{kind} message:\n")
        secrets = self._as_recorded.get(pointer, self._secrets)
        return SearchHit(pointer, kind, build_excerpt(text, start, end, secrets), at)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        try:
            yield from self._messages()
        except TranscriptCorrupt as error:  # what came before it was searched; say so
            self.damaged_line = error.line_number

    def _messages(self) -> Iterator[tuple[str, str]]:
        hidden: set[str] = set()
        for record in self._records:
            payload = record.get("payload")
            message = payload.get("message") if isinstance(payload, dict) else None
            if record.get("kind") != "message" or not isinstance(message, dict):
                continue
            hidden.update(_recall_call_ids(message))
            pointer, role = str(record.get("event_id")), str(message.get("role"))
            self.count += 1
            if self._is_this_runs(record):
                since = self._learned.forms_before(record["sequence"])
                typed = with_typed_text(message, self._secrets.redact)
                text = since.redact(render_blocks(with_pieces_hidden(typed, since), hidden))
                self._as_recorded[pointer] = since
                yield self._as_shown(pointer, role, text)
            else:
                text = render_blocks(with_pieces_hidden(message, self._secrets), hidden)
                yield self._searchable(pointer, role, text)
            yield from self._artifacts_named_in(text)

    def _is_this_runs(self, record: dict[str, Any]) -> bool:
        sequence = record.get("sequence")
        return (
            self._as_recorded_from is not None
            and type(sequence) is int
            and sequence >= self._as_recorded_from
        )

    def _searchable(self, pointer: str, kind: str, text: str) -> tuple[str, str]:
        """`pointer` and its text redacted: a query is matched against what recall would
        show, never the raw text (a hit or a miss would tell a secret's characters)."""
        return self._as_shown(pointer, kind, self._secrets.redact(text))

    def _as_shown(self, pointer: str, kind: str, text: str) -> tuple[str, str]:
        """`pointer` and `text`, searched as they are (redacted already, where needed)."""
        self.pointers.append(pointer)
        self.kinds[pointer] = kind
        return pointer, text

    def _artifacts_named_in(self, text: str) -> Iterator[tuple[str, str]]:
        if self._read_artifact is None or "artifact:" not in text:
            return
        for pointer in dict.fromkeys(ARTIFACT_POINTER.findall(text)):
            if pointer in self._seen_artifacts:
                continue
            self._seen_artifacts.add(pointer)
            content = self._read_artifact(pointer)
            if content:
                yield self._searchable(pointer, "artifact", content)


def _recall_call_ids(message: dict[str, Any]) -> Iterator[str]:
    content = message.get("content")
    for block in content if isinstance(content, list) else ():
        if (
            isinstance(block, dict)
            and block.get("type") == "tool_use"
            and block.get("name") == RECALL_TOOL_NAME
            and isinstance(block.get("id"), str)
        ):
            yield block["id"]


Match = tuple[str, str, int, int]  # pointer, text, character span of the first match


def _word_matches(
    words: tuple[str, ...], searchable: _SearchableMessages, page: SearchPage, timeout: float
) -> Generator[Match, None, None]:
    deadline = time.monotonic() + timeout
    for pointer, text in searchable:
        if time.monotonic() > deadline:
            page.timed_out = True
            return
        folded = text.casefold()
        found = [folded.find(word) for word in words]
        if all(at >= 0 for at in found):
            first = min(range(len(words)), key=found.__getitem__)
            start = _original_index(text, folded, found[first])
            yield pointer, text, start, start + len(words[first])


def _original_index(text: str, folded: str, at: int) -> int:
    """Where `at` (an index in the case-folded text) falls in `text`: the same index when
    folding kept the length, as it does for nearly all text; else scaled, near enough for
    an excerpt."""
    return at if len(folded) == len(text) else at * len(text) // max(1, len(folded))


def _regex_matches(
    pattern: str, searchable: _SearchableMessages, page: SearchPage, timeout: float
) -> Generator[Match, None, None]:
    run = RecordSearch()
    texts = (text for _, text in searchable)
    try:
        for found in find_in_records(pattern, texts, run, timeout=timeout):
            data = found.text.encode("utf-8")
            start = len(data[: found.start].decode("utf-8", errors="ignore"))
            end = start + len(data[found.start : found.end].decode("utf-8", errors="ignore"))
            yield searchable.pointers[found.index], found.text, start, end
    finally:
        page.timed_out = run.timed_out


def build_excerpt(text: str, start: int, end: int, secrets: SecretForms = NO_SECRETS) -> str:
    """One line: up to `EXCERPT_CONTEXT_CHARS` either side of the match (itself cut to
    `EXCERPT_MATCH_CHARS`), line breaks shown as ⏎, an ellipsis where text was left out.
    An edge that would split a secret of `secrets` or a pointer widens to take it whole,
    and the secrets are redacted before line breaks are folded (a key wrapped over lines
    would no longer be recognised after)."""
    end = min(max(end, start), start + EXCERPT_MATCH_CHARS)
    left = _widen_left(text, max(0, start - EXCERPT_CONTEXT_CHARS), secrets)
    right = _widen_right(text, min(len(text), end + EXCERPT_CONTEXT_CHARS), secrets)
    shown = " ".join(secrets.redact(text[left:right]).replace("\n", " ⏎ ").split())
    return f"{'…' if left > 0 else ''}{shown}{'…' if right < len(text) else ''}"


def _widen_left(text: str, left: int, secrets: SecretForms) -> int:
    """`left`, moved back to the start of a secret or a pointer it falls inside."""
    secret_start = secret_start_across(text, left, secrets)
    left = left if secret_start is None else secret_start
    pointer = pointer_around(text, left)
    return left if pointer is None else pointer[0]


def _widen_right(text: str, right: int, secrets: SecretForms) -> int:
    """`right`, moved on to the end of a secret or a pointer it falls inside."""
    secret_end = secret_end_across(text, right, secrets)
    right = right if secret_end is None else secret_end
    pointer = pointer_around(text, right)
    return right if pointer is None else pointer[1]


def render_hit(hit: SearchHit) -> str:
    """`- <pointer> (<kind>): <excerpt>`, and where a match far into a long record or
    artifact is, as the offset recall can start its page at."""
    at = f", at offset={hit.at}" if hit.at >= OFFSET_NOTE_FROM else ""
    return f"- {hit.pointer} ({hit.kind}{at}): {hit.excerpt}"


def render_search_page(page: SearchPage) -> str:
    """The tool's text: a first line saying what was searched, then one line per hit."""
    about = f"Search of this session's messages for {page.query.describe()}"
    if not page.hits:
        where = "past that offset" if page.offset else "in this session"
        lines = [f"{about}: no match {where} ({page.searched:,} messages searched)."]
        if not page.timed_out:
            lines.append("Try other or fewer words, or a regex as pattern.")
    else:
        span = f"{page.offset + 1}-{page.next_offset}"
        lines = [f"{about}: matches {span}, oldest first; recall a pointer to read it whole."]
        lines += [render_hit(hit) for hit in page.hits]
    if page.damaged_line is not None:
        lines.append(
            f"[the transcript's line {page.damaged_line:,} is damaged: only the messages "
            "before it were searched]"
        )
    if page.timed_out:
        lines.append(
            f"[the search stopped at its time limit after {page.searched:,} messages; "
            "narrow it with rarer words or a simpler regex]"
        )
    elif page.has_more:
        lines.append(
            f"[more matches: call recall again with the same search and offset={page.next_offset}]"
        )
    elif page.hits:
        lines.append("[end of matches]")
    return "\n".join(lines)
