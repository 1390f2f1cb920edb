"""Values that cross the seams: what a provider streams, what a session yields and reports.

Contract: these are plain frozen values with no behaviour and no I/O. The session yields
`SessionEvent`s from `run_turn`; the REPL renders them and adds no logic of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# No request carries this many tokens: a larger figure is a broken report, not usage.
MAX_REPORTED_TOKENS = 100_000_000


def reported_figure(value: object) -> int:
    """A token figure as the API (or a record of it) reported it: a whole number from 0 to
    `MAX_REPORTED_TOKENS`; anything else (missing, negative, a float, a bool, absurdly
    large: a broken proxy's report) counts as 0, like a figure the API left out."""
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return value if 0 <= value <= MAX_REPORTED_TOKENS else 0


@dataclass(frozen=True)
class Usage:
    """Token usage the API reported for one request (zeros where it reported nothing)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        """Everything the request carried in: fresh input plus cache reads and writes."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def total_tokens(self) -> int:
        """Every token the request moved: everything carried in plus the answer's output."""
        return self.prompt_tokens + self.output_tokens

    @property
    def cache_read_share(self) -> float | None:
        """Cache reads as a share of every input token (plain, written, read); None before
        any input. The higher it is, the less the prompt costs (a read is priced 0.1x)."""
        total = self.prompt_tokens
        return self.cache_read_input_tokens / total if total > 0 else None

    def with_output_at_least(self, output_tokens: int) -> Usage:
        """This usage with the output raised to `output_tokens` when that is more: what an
        answer abandoned part way reached (`UsageSoFar`), counted from what arrived."""
        return dataclasses.replace(self, output_tokens=max(self.output_tokens, output_tokens))

    def plus(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
        )


# --- provider -> session -----------------------------------------------------------------


CACHE_CONVERSATION, CACHE_READ_PREFIX, CACHE_NOTHING = "conversation", "read_prefix", "nothing"
CACHE_MODES = (CACHE_CONVERSATION, CACHE_READ_PREFIX, CACHE_NOTHING)


@dataclass(frozen=True)
class ModelRequest:
    """One model request before it is turned into wire format by the provider.

    `messages` is the compacted prompt view (Anthropic-format dicts); `system` is the base
    system prompt, `project_instructions` the workspace's AGENTS.md block (may be empty),
    `durable_context` the rendered durable block (may be empty), which is never part of
    `messages`: the provider places it after the cached prefix (in the newest user turn)
    and decides where the cache breakpoints go. `cache` says what the request leaves in
    the prompt cache: `CACHE_CONVERSATION` (the conversation, for the next request to
    read), `CACHE_READ_PREFIX` (a one-off request that reads what an earlier request
    wrote: the breakpoint ends with its first `cached_messages` messages, so it writes
    nothing, and what follows them is sent at the plain price, not written at 1.25x for
    no later request to read) or `CACHE_NOTHING` (a one-off request: no breakpoints,
    nothing written).
    """

    system: str
    durable_context: str
    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]
    max_tokens: int = 4096
    project_instructions: str = ""  # AGENTS.md / CLAUDE.md, as its own cached system block
    cache: str = "conversation"  # one of CACHE_MODES (see the class doc)
    cached_messages: int = 0  # with CACHE_READ_PREFIX: the leading messages already cached


@dataclass(frozen=True)
class TextDelta:
    """A piece of assistant text as it streams in."""

    text: str


@dataclass(frozen=True)
class UsageSoFar:
    """The usage the API reported as it began to answer (`message_start`): the prompt's
    input and cache tokens, and the output so far. A request abandoned after this (Ctrl-C,
    a timeout) was billed all the same."""

    usage: Usage


@dataclass(frozen=True)
class RetryNotice:
    """The provider will retry; any text streamed so far for this request is void."""

    attempt: int
    delay_seconds: float
    kind: str


@dataclass(frozen=True)
class ModelResponse:
    """The complete assistant message of one request (wire-clean dict), and its usage."""

    message: dict[str, Any]
    stop_reason: str
    usage: Usage


# --- session -> REPL ---------------------------------------------------------------------


@dataclass(frozen=True)
class LayerLine:
    """One compaction layer that fired, ready for a `[compact]` line."""

    layer: str  # a layer's code (`compaction_layers`); the REPL alone words it
    tokens_before: int
    tokens_after: int
    results_truncated: int = 0
    interactions_removed: int = 0
    messages_removed: int = 0


@dataclass(frozen=True)
class CompactionFired:
    """Compaction ran before a request; one `LayerLine` per layer that fired."""

    layers: tuple[LayerLine, ...]
    tokens_before: int
    tokens_after: int
    soft_threshold: int
    hard_limit: int
    forced: bool = False  # /compact rather than the threshold
    focus: str | None = None  # what /compact asked the summary to focus on


@dataclass(frozen=True)
class CompactionSkipped:
    """The loop guard held compaction back, or a forced compaction freed nothing.

    For "loop_guard": `held` says why (`budget.OVER_SOFT`, `budget.FREED_LITTLE`,
    `budget.SHORT_OF_AIM`, "nothing_freed" when no layer could remove anything, or
    `budget.SUMMARY_NOT_WORTH_IT` when the layers that cost no request found nothing and a
    summary would replace too little to be worth its request),
    `freed` what the compaction
    saved, `retry_at` the context size from which compaction runs again (it also runs
    at the hard limit), all in the figures the toolbar shows. For "nothing_to_compact":
    `held` is "nothing_new_to_summarize" when nothing is new since the last compaction
    (the view is what it left, or only the last summary and the recent messages it kept):
    no summary was asked for. `summary_would_help` (for "loop_guard") is False when a
    `/compact` now would find nothing older than its recent window but the last summary:
    it would keep what is left, so it is not worth suggesting."""

    reason: str  # "loop_guard", "nothing_to_compact", "summary_not_smaller"
    tokens: int
    held: str | None = None
    freed: int = 0
    retry_at: int = 0
    soft_threshold: int = 0
    hard_limit: int = 0
    summary_would_help: bool = True


@dataclass(frozen=True)
class RequestBlocked:
    """The view is over the hard limit after every layer: nothing was sent.

    `largest_message_tokens` is the biggest single message of the view, its tool results
    cut to the shared floor: when it alone reaches the hard limit, no compaction can help;
    nor can it when `reserved_tokens` (what every request carries outside the view:
    system prompt, project instructions, tool schemas, durable block) reach it alone;
    `durable_tokens` is the durable block's part of those (facts and pending items).
    `sized_content_counted`: (the API's count, our estimate) of the last request, when the
    refusal comes of its ratio, measured on a view holding images or documents billed
    above their estimate, not of the frame alone (`reserved_tokens` is then under the
    limit); None otherwise."""

    tokens_before: int
    tokens_after: int
    hard_limit: int
    applied_layers: tuple[str, ...]
    largest_message_tokens: int = 0
    reserved_tokens: int = 0
    durable_tokens: int = 0
    sized_content_counted: tuple[int, int] | None = None
    instructions_tokens: int = 0  # the project instructions' part of `reserved_tokens`
    instructions_source: str | None = None  # their file ("AGENTS.md")


@dataclass(frozen=True)
class AssistantText:
    """Streamed assistant text (render as it arrives)."""

    text: str


@dataclass(frozen=True)
class StreamRestarted:
    """A retry voided the text streamed so far for this request."""

    attempt: int
    delay_seconds: float
    kind: str


@dataclass(frozen=True)
class AssistantDone:
    """The assistant message of one request is complete and recorded."""

    text: str
    stop_reason: str


@dataclass(frozen=True)
class ToolStarted:
    tool_use_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolFinished:
    tool_use_id: str
    name: str
    is_error: bool
    summary: str  # one line: what happened
    size_bytes: int
    artifact_pointer: str | None = None
    output: str = ""  # what the model got back (a preview of it when spilled)
    interrupted: bool = False  # Ctrl-C stopped it; `output` is what it produced until then
    cause: BaseException | None = None  # the typed error the REPL words for the user
    # instead of `output`'s first line (`ToolOutcome.cause`)


@dataclass(frozen=True)
class UsageReported:
    usage: Usage
    estimated_prompt_tokens: int  # our estimate of the same request, for calibration


# A `Notice` field: True when the answer streamed just before the notice was dropped
# unrecorded (a malformed answer), so what showed of it is no answer.
ANSWER_DROPPED = "answer_dropped"


@dataclass(frozen=True)
class Notice:
    """Something the user should know, as a code with fields: the REPL alone words it
    (`repl.error_text.notice_text`). `level` is "info", "warning" or "error"; `fields`
    hold counts, sizes, ids, paths and reason codes, never sentences; `error` is the typed
    error an error notice reports (a provider or store failure), worded like any other."""

    level: str
    code: str
    fields: Mapping[str, object] = field(default_factory=dict)
    error: BaseException | None = None

    @property
    def drops_answer(self) -> bool:
        """True when the answer streamed before this notice was dropped (`ANSWER_DROPPED`)."""
        return self.fields.get(ANSWER_DROPPED) is True


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over; `outcome` is "ok", "cancelled", "failed" or "blocked"."""

    outcome: str
    stop_reason: str | None = None
    steps: int = 0


SessionEvent = (
    CompactionFired
    | CompactionSkipped
    | RequestBlocked
    | AssistantText
    | StreamRestarted
    | AssistantDone
    | ToolStarted
    | ToolFinished
    | UsageReported
    | Notice
    | TurnEnded
)


@dataclass(frozen=True)
class CompactionRecord:
    """One compaction so far in this session, for `stats`."""

    at: str  # ISO 8601 with zone
    layers: tuple[str, ...]
    tokens_before: int
    tokens_after: int
    forced: bool = False


@dataclass(frozen=True)
class SessionStats:
    """Everything the `stats` panel shows; every figure comes from the session or core."""

    provider: str
    model: str
    context_window: int
    soft_threshold: int
    hard_limit: int
    tokens_by_category: dict[str, int]  # system_prompt, project_instructions,
    # durable_context, tool_schemas, user_text, assistant_text, tool_calls, tool_results,
    # compaction_summary, compaction_digest: they add up to total_tokens
    total_tokens: int
    messages_in_view: int
    messages_in_transcript: int
    interactions_in_view: int
    interactions_in_transcript: int
    estimator: str
    calibration: float | None  # API prompt tokens / our estimate, last request
    last_usage: Usage | None
    total_usage: Usage
    requests: int
    compactions: tuple[CompactionRecord, ...]
    source_statuses: dict[str, int]  # available/changed/missing/denied/corrupt/unsupported
    session_id: str
    transcript_path: str
    extra: dict[str, Any] = field(default_factory=dict)
    # What the next request would carry, in API tokens (the toolbar's figure): the
    # estimate of every category above, times the calibration. 0 when not measured.
    context_tokens: int = 0
    project_instructions: str = ""  # which file requests carry (see session.stats)
    # Money, from the usage the API reported and the model table (agent_cli.models):
    # dollars per category (input, output, cache_write, cache_read) of the priced requests,
    # and the requests that could not be priced, with the models that served them.
    cost_by_category: dict[str, float] = field(default_factory=dict)
    unpriced_requests: int = 0
    # the session in order, at most its last `stats.MAX_TIMELINE` entries: each main
    # request's prompt tokens as the API reported them, and each compaction where it fired
    timeline: tuple[int | CompactionRecord, ...] = ()
    # main requests older than the timeline's window (its first request is this + 1)
    timeline_requests_before: int = 0
    summary_requests: int = 0  # of `requests`, the summary requests (not on the timeline)
    # the tool schemas' tokens by where the tools come from ("built-in", "MCP <server>"),
    # when MCP servers add any (empty otherwise)
    tool_schemas_by_source: dict[str, int] = field(default_factory=dict)
    unpriced_models: tuple[str, ...] = ()
    model_in_table: bool = True  # False: window assumed, cost shown in tokens only
    # (soft, hard) as set, when they are lowered to fit the model's window (the figures
    # above are those in force); None when they fit
    thresholds_as_set: tuple[int, int] | None = None
    context_free: int = 0  # tokens of the context window the next request leaves free
    # Derived from `total_usage` (so it is in `/stats --json` too), never passed in.
    cache_read_share: float | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cache_read_share", self.total_usage.cache_read_share)


@dataclass(frozen=True)
class Gauge:
    """The context gauge: request tokens now against the thresholds."""

    tokens: int
    soft_threshold: int
    hard_limit: int
    estimator: str
    context_window: int = 0
    cost_usd: float | None = None  # the session so far, when it could be priced
    cost_is_partial: bool = False  # some requests could not be priced: cost_usd is a floor

    @property
    def percent_of_soft(self) -> int:
        return round(100 * self.tokens / self.soft_threshold) if self.soft_threshold else 0


@dataclass(frozen=True)
class ContextPreview:
    """What the next request would carry."""

    system_prompt: str
    durable_context: str
    message_lines: tuple[str, ...]
    project_instructions: str = ""
    project_source: str = ""
    context_window: int = 0
    request_tokens: int = 0  # the gauge's figure: what the next request would carry
