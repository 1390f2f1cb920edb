"""Error translation for the Anthropic provider: SDK and transport errors -> `Failure`.

Contract: `classify_failure` maps an error of one attempt to a `Failure` (a kind, the
HTTP status, the retry-after the server asked for, a detail cut to `MAX_DETAIL_CHARS`),
or None for anything that is not a provider failure (a bug, to be raised as is). A 200
status is an `event: error` that arrived mid-stream. `is_model_not_found` tells a 404
about the model from a 404 for a wrong path; `refused_tool` names the tool a 400 is
about (`tools.N...`); `redact_secret` keeps the key out of any detail. `anthropic` and
its transport are imported only inside `classify_failure` (importing the SDK takes
seconds).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.provider.retry import parse_retry_after
from agent_cli.provider.stream_assembly import StreamFault

MAX_DETAIL_CHARS = 500

# HTTP status -> failure kind. Anything else >= 500 is "server_error" (retried).
STATUS_KINDS: Mapping[int, str] = {
    400: "bad_request",
    401: "auth",
    403: "permission",
    404: "not_found",
    408: "timeout",
    409: "conflict",
    413: "request_too_large",
    429: "rate_limited",
    500: "api_error",
    502: "unavailable",
    503: "unavailable",
    504: "unavailable",
    529: "overloaded",
}
# Error type of an `event: error` that arrives mid-stream (HTTP status 200) -> kind.
ERROR_TYPE_KINDS: Mapping[str, str] = {
    "overloaded_error": "overloaded",
    "api_error": "api_error",
    "rate_limit_error": "rate_limited",
    "invalid_request_error": "bad_request",
    "authentication_error": "auth",
    "permission_error": "permission",
    "not_found_error": "not_found",
    "request_too_large": "request_too_large",
    "timeout_error": "timeout",
}


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified: what kind, which status, how long the server asks."""

    kind: str
    status: int | None = None
    retry_after: float | None = None
    detail: str = ""


def classify_failure(err: BaseException) -> Failure | None:
    """The failure an SDK or transport error stands for; None for anything else (a bug)."""
    import anthropic
    import httpx2  # the SDK's transport; mid-stream read errors arrive unwrapped

    if isinstance(err, StreamFault):
        return Failure(err.kind)
    if isinstance(err, anthropic.APIStatusError):
        return _classify_status_error(err)
    if isinstance(err, anthropic.APITimeoutError | httpx2.TimeoutException):
        return Failure("timeout")
    if isinstance(err, anthropic.APIConnectionError | httpx2.TransportError):
        return Failure("connection")
    return None


def _classify_status_error(err: Any) -> Failure:
    status = int(err.status_code)
    detail = str(err.api_message or "")[:MAX_DETAIL_CHARS]
    if status == 200:  # an `event: error` inside a stream that had started fine
        kind = ERROR_TYPE_KINDS.get(str(err.type), "stream_error")
        return Failure(kind, status=None, detail=detail)
    kind = STATUS_KINDS.get(status) or ("server_error" if status >= 500 else f"http_{status}")
    return Failure(
        kind, status=status, retry_after=parse_retry_after(err.response.headers), detail=detail
    )


# A refusal about one tool of the request: "tools.3.custom.input_schema: ..."
REFUSED_TOOL = re.compile(r"^tools\.(\d+)\b")


def refused_tool(failure: Failure, tools: object) -> str | None:
    """The name of the tool in the request's `tools` a 400 names by its place, or None."""
    found = REFUSED_TOOL.match(failure.detail) if failure.kind == "bad_request" else None
    if found is None or not isinstance(tools, Sequence):
        return None
    index = int(found.group(1))
    tool = tools[index] if index < len(tools) else None
    name = tool.get("name") if isinstance(tool, Mapping) else None
    return name if isinstance(name, str) else None


def is_model_not_found(failure: Failure, error_type: object, model: str) -> bool:
    """A 404 `not_found_error` about the model (the API says `model: <id>`), as opposed
    to a 404 for a wrong path, which a bad ANTHROPIC_BASE_URL gives."""
    if failure.status != 404 or error_type != "not_found_error":
        return False
    detail = failure.detail.lower()
    return detail.startswith("model") or (bool(model) and model.lower() in detail)


def redact_secret(text: str, secret: str) -> str:
    """`text` with every occurrence of `secret` replaced, so no error can carry the key."""
    return text.replace(secret, "[redacted]") if secret else text
