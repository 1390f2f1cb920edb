"""Provider failures as the session's notices carry them: never with a secret in them.

Contract: `without_secrets(error, secrets)` is `error` with its detail and URL redacted of
the session's secrets: an API, gateway or proxy may quote the request it refuses, a base
URL's path may hold a token, and both are shown on the terminal (the provider redacts only
its own key). A detail the provider cut ("…") loses an ending that may begin a secret
the cut split, as if it had been redacted before the cut. The same error when nothing in
it is a secret. `shown_summary_failure(failure, secrets)` is what a
summarizer raised as a notice carries it: a `SummarizerFailed` with its provider failure
redacted so; anything else (a plain summarizer's own exception) is not carried, its text
being no words of ours: None.
"""

from __future__ import annotations

from agent_cli.errors import ProviderError, ProviderRequestFailed, SummarizerFailed
from agent_cli.safe_cuts import stopped_secret_start
from agent_cli.secret_forms import SecretForms


def without_secrets(error: ProviderError, secrets: SecretForms) -> ProviderError:
    """`error` with its detail and URL redacted of `secrets` (module contract)."""
    if not isinstance(error, ProviderRequestFailed):
        return error
    detail = _redacted_detail(error.detail, secrets) if error.detail else error.detail
    url = secrets.redact(error.url) if error.url else error.url
    if detail == error.detail and url == error.url:
        return error
    return ProviderRequestFailed(
        error.kind,
        status=error.status,
        attempts=error.attempts,
        detail=detail,
        model=error.model,
        tool=error.tool,
        url=url,
        content_type=error.content_type,
    )


CUT_MARK = "…"  # what ends a detail the provider cut (`endpoint_answers.short_words`)


def _redacted_detail(detail: str, secrets: SecretForms) -> str:
    """`detail` redacted of `secrets`; cut, without an ending that may begin one."""
    if secrets and detail.endswith(CUT_MARK):
        head = detail[: -len(CUT_MARK)]
        start = stopped_secret_start(head, secrets)
        if start is not None:
            detail = head[:start].rstrip() + CUT_MARK
    return secrets.redact(detail)


def shown_summary_failure(
    failure: BaseException | None, secrets: SecretForms | None
) -> SummarizerFailed | None:
    """What a summarizer raised, as a notice carries it (module contract)."""
    if not isinstance(failure, SummarizerFailed):
        return None
    cause = failure.provider_failure
    if cause is None or secrets is None:
        return failure
    shown = without_secrets(cause, secrets)
    if shown is cause or not isinstance(shown, ProviderRequestFailed):
        return failure
    return SummarizerFailed(
        failure.reason, provider_failure=shown, timeout_seconds=failure.timeout_seconds
    )
