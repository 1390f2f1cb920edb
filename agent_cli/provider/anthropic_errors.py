"""Error translation for the Anthropic provider: SDK and transport errors -> `Failure`.

Contract: `classify_failure` maps an error of one attempt to a `Failure` (a kind, the
HTTP status, the retry-after the server asked for, a detail: the API's own message, and
nothing else; the URL the request went to, without credentials, also of a timeout or a
connection that failed; the content type that came back), or None for anything that is not a provider failure (a bug, to be raised as
is). A 200 status is an `event: error` that arrived mid-stream. A `ForeignStreamFault` (a
stream that broke, incomplete or malformed, whose content type named no event stream) keeps
its fault's kind, so it is retried exactly as any broken stream, and carries the content
type and the server's words (`words=True`). `name_messages_failure` names a 404 about the
model "model_not_found" and any other 404 or 405 of a Messages request "wrong_endpoint"
(a base URL that is not the API's root: sending again fails the same way), whose detail
becomes what the server said, the API's message or the words of its body
(`endpoint_answers.server_words`). `shown_detail` is a failure's detail as an error may
carry it: the key redacted first, then cut (server words to `MAX_WORDS_CHARS`, an API
message to `MAX_DETAIL_CHARS`). `is_model_not_found` tells the two 404s apart;
`refused_tool` names the tool a 400 is about (`tools.N...`); `redact_secret` keeps the
key out of any text. `anthropic` and its transport are imported only inside
`classify_failure` (importing the SDK takes seconds).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_cli.provider.endpoint_answers import media_type, server_words, short_words, shown_url
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


# Statuses of a Messages request that mean the URL is not the Messages API's (a 404 that
# is not about the model; a 405: something answers there, but takes no POST).
WRONG_ENDPOINT_STATUSES = frozenset({404, 405})


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified: what kind, which status, how long the server asks,
    what it said (`words`: the detail is a server's own words, not the API's message),
    where the request went and what content type came back ("": unknown)."""

    kind: str
    status: int | None = None
    retry_after: float | None = None
    detail: str = ""
    url: str = ""
    content_type: str = ""
    words: bool = False


class ForeignStreamFault(StreamFault):
    """A streamed answer broke (`kind`: incomplete or malformed) and its content type
    named no event stream: what came, for the words should retries run out."""

    def __init__(self, kind: str, url: str, content_type: str, said: str) -> None:
        super().__init__(kind)
        self.url = url
        self.content_type = content_type
        self.said = said


def classify_failure(err: BaseException) -> Failure | None:
    """The failure an SDK or transport error stands for; None for anything else (a bug)."""
    import anthropic
    import httpx2  # the SDK's transport; mid-stream read errors arrive unwrapped

    if isinstance(err, ForeignStreamFault):
        return Failure(
            err.kind,
            detail=err.said,
            url=shown_url(err.url),
            content_type=media_type(err.content_type),
            words=True,
        )
    if isinstance(err, StreamFault):
        return Failure(err.kind)
    if isinstance(err, anthropic.APIStatusError):
        return _classify_status_error(err)
    if isinstance(err, anthropic.APITimeoutError | httpx2.TimeoutException):
        return Failure("timeout", url=shown_url(_request_url(err)))
    if isinstance(err, anthropic.APIConnectionError | httpx2.TransportError):
        return Failure("connection", url=shown_url(_request_url(err)))
    return None


def _request_url(err: BaseException) -> str:
    """The URL the request that met `err` went to: a wrong ANTHROPIC_BASE_URL (a port
    nothing listens on, a host that never answers) shows there. "" when the error holds
    no request (the transport raises RuntimeError for `.request` of one made without)."""
    try:
        return str(getattr(err, "request").url)  # noqa: B009  it may raise, not only be absent
    except (AttributeError, RuntimeError):
        return ""


def _classify_status_error(err: Any) -> Failure:
    status = int(err.status_code)
    content_type = str(err.response.headers.get("content-type") or "")
    detail = str(err.api_message or "")
    if status == 200:  # an `event: error` inside a stream that had started fine
        kind = ERROR_TYPE_KINDS.get(str(err.type), "stream_error")
        return Failure(kind, status=None, detail=detail)
    kind = STATUS_KINDS.get(status) or ("server_error" if status >= 500 else f"http_{status}")
    return Failure(
        kind,
        status=status,
        retry_after=parse_retry_after(err.response.headers),
        detail=detail,
        url=shown_url(str(err.request.url)),
        content_type=media_type(content_type),
    )


def _said(err: Any) -> str:
    """The API's message (`error.message`), else what the body says: a gateway or a
    server that is not the API answers plain text, a page, or JSON of its own shape."""
    content_type = str(err.response.headers.get("content-type") or "")
    if err.api_message:
        return str(err.api_message)
    body = err.body
    if body is None:
        return ""
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return server_words(text, content_type)


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


def name_messages_failure(failure: Failure, err: BaseException, model: str) -> Failure:
    """`failure` (of `err`) of a Messages request, renamed where its status says more
    than its kind: "model_not_found" for a 404 about the model, "wrong_endpoint" for any
    other 404 and for a 405 (the base URL does not lead to the Messages API), which
    carries what the server said."""
    if is_model_not_found(failure, getattr(err, "type", None), model):
        return replace(failure, kind="model_not_found", retry_after=None)
    if failure.status in WRONG_ENDPOINT_STATUSES:
        # only a status error has a status: its body is there to read
        return replace(
            failure, kind="wrong_endpoint", retry_after=None, detail=_said(err), words=True
        )
    return failure


def shown_detail(failure: Failure, secret: str) -> str:
    """`failure.detail` with `secret` redacted, then cut: a server's words short, the
    API's message to `MAX_DETAIL_CHARS` (a cut never keeps a piece of the key)."""
    detail = redact_secret(failure.detail, secret)
    return short_words(detail) if failure.words else detail[:MAX_DETAIL_CHARS]


def redact_secret(text: str, secret: str) -> str:
    """`text` with every occurrence of `secret` replaced, so no error can carry the key."""
    return text.replace(secret, "[redacted]") if secret else text
