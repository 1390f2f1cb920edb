"""Short words for typed errors that end a turn, carried in `Notice` events (and the
`RequestBlocked` event of a view that cannot fit).

The session never prints; it hands the REPL a notice whose text says what happened and
what to do. Texts are built from the errors' structured fields only (codes, ids, paths),
so no message text or secret can leak through them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from agent_cli.compaction.results import SKIPPED_NO_SUMMARIZER
from agent_cli.errors import (
    MessageViewLimitExceeded,
    ProviderRequestFailed,
    StoreError,
    TranscriptChangedUnderneath,
    TranscriptWriteFailed,
)
from agent_cli.events import LAYER_CODES, Notice, RequestBlocked
from agent_cli.session.budget import to_request_tokens

LAYER_FAILURES = {
    "summary_failed": "L4: the summarizer failed; the view was left as it was.",
    "summary_blank": "L4: the summarizer returned nothing; the view was left as it was.",
    "summary_not_smaller": "L4: the summary was not smaller; the view was left as it was.",
    "skipped_no_summarizer": "L4 was needed but no summarizer is available.",
}

_PROVIDER_ADVICE = {
    "overloaded": "the API is overloaded; try again in a moment",
    "rate_limited": "rate limited; wait a little and try again",
    "connection": "could not reach the API; check the network or ANTHROPIC_BASE_URL",
    "timeout": "the API did not answer in time; try again",
    "auth": "the API key was refused; check ANTHROPIC_API_KEY",
    "bad_request": "the API rejected the request",
}


def has_failed_layer(reports: Iterable[Any]) -> bool:
    """True when a compaction layer tried and failed (see `LAYER_FAILURES`)."""
    return any(report.outcome in LAYER_FAILURES for report in reports)


def failed_layer_notices(reports: Iterable[Any]) -> Iterator[Notice]:
    """One warning per layer that tried and failed; the view was left as it was."""
    for report in reports:
        if report.outcome in LAYER_FAILURES:
            yield Notice("warning", report.outcome, LAYER_FAILURES[report.outcome])


MODEL_CHOICES = (
    "choose another with --model, the config key `model`, ANTHROPIC_MODEL, or /model "
    "at the prompt (/model alone lists the models)"
)


def model_not_found(model: str | None) -> str:
    """Which model the API does not know, and every way to pick another."""
    printable = "".join(ch for ch in model or "" if ch.isprintable())[:80]
    name = f"'{printable}'" if printable else "the requested model"
    return (
        f"The API has no model {name} (HTTP 404 not_found_error): {MODEL_CHOICES}. "
        "The conversation is unchanged but for your message, which is kept."
    )


def provider_error(error: ProviderRequestFailed) -> str:
    if error.kind == "model_not_found":
        return model_not_found(error.model)
    advice = _PROVIDER_ADVICE.get(error.kind, "the request failed")
    status = f" (HTTP {error.status})" if error.status else ""
    tries = f" after {error.attempts} attempts" if error.attempts > 1 else ""
    detail = f": {error.detail}" if error.detail and error.kind == "bad_request" else ""
    return (
        f"Model request failed{status}{tries}: {advice}{detail}. "
        "The conversation is unchanged but for your message, which is kept: "
        "send 'continue' to retry (sending it again would repeat it)."
    )


def store_error(error: StoreError) -> str:
    if isinstance(error, TranscriptWriteFailed):
        return (
            f"Could not write the transcript ({error.errno_name}); nothing was half-written. "
            "Free disk space or fix the state folder, then try again."
        )
    if isinstance(error, TranscriptChangedUnderneath):
        return (
            f"The transcript file changed under this session ({error.reason}). "
            "Start a new session with /new; the old record is left as it is."
        )
    return f"Storage error: {type(error).__name__}. Check the state folder (AGENT_CLI_HOME)."


def blocked_event(session: Any, error: MessageViewLimitExceeded) -> RequestBlocked:
    """The hard-limit refusal in the terms of every other `[compact]` figure: the codes
    (L1..L4, in layer order) of every layer that was tried, changed the view or not,
    tokens calibrated to the API's count, and the hard limit the user set rather than its
    estimator-scaled form."""
    ratio = session.calibration
    reports: tuple[Any, ...] = error.reports
    tried = sorted({r.layer for r in reports if r.outcome != SKIPPED_NO_SUMMARIZER})
    largest = error.largest_message_tokens  # of the view as the layers left it
    return RequestBlocked(
        to_request_tokens(error.tokens_before, ratio),
        to_request_tokens(error.tokens_after, ratio),
        session.policy.hard_limit,
        tuple(LAYER_CODES[layer - 1] for layer in tried),
        to_request_tokens(largest, ratio),
    )
