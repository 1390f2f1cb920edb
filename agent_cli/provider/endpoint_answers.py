"""What an endpoint that is not the Messages API answered, in a form safe to show.

Contract (pure string work, no SDK and no I/O): `shown_url(url)` is the URL a request
went to without what could be a credential (user name, password, query, fragment);
`media_type(content_type)` the bare media type of a `content-type` header, lower case and
short; `is_event_stream(content_type)` says whether a header names the event stream a
streamed answer must be (a missing header is not held against the answer: the stream's
own parse decides); `server_words(body, content_type)` is an error body or an answer that
was no stream as one short line: HTML tags dropped, whitespace collapsed, cut to
`MAX_WORDS_CHARS`. The API key and the session's secrets are redacted by the callers.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

MAX_WORDS_CHARS = 500
MAX_READ_CHARS = 20_000  # of a body, read for its words: a page's start says what it is
MAX_MEDIA_TYPE_CHARS = 60
EVENT_STREAM = "text/event-stream"
_TAG = re.compile(r"<[^>]{0,2000}>")
_HTML_HEAD = re.compile(r"<(?:head|script|style)\b.*?</(?:head|script|style)\s*>", re.I | re.S)
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.I | re.S)


def shown_url(url: str) -> str:
    """`url` as scheme, host, port and path only: a password or a token in the user
    part or the query of ANTHROPIC_BASE_URL never reaches an error line."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return ""
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def media_type(content_type: str | None) -> str:
    """The media type of a `content-type` header (`text/plain` of `text/plain;
    charset=utf-8`), lower case, printable and short; "" when there is none."""
    bare = (content_type or "").split(";", 1)[0].strip().lower()
    return "".join(ch for ch in bare if ch.isprintable())[:MAX_MEDIA_TYPE_CHARS]


def is_event_stream(content_type: str | None) -> bool:
    """False only when the header names another media type than an event stream."""
    bare = media_type(content_type)
    return not bare or bare == EVENT_STREAM


def server_words(body: str, content_type: str | None = None) -> str:
    """What a server said, on one short line; see the module contract. An HTML page is
    read as its title and text, so a proxy's error page says "404 Not Found", not markup."""
    text = body[:MAX_READ_CHARS]
    if "html" in media_type(content_type) or text.lstrip()[:1] == "<":
        found = _TITLE.search(text)
        title = " ".join(_TAG.sub(" ", found.group(1)).split()) if found else ""
        text = " ".join(_TAG.sub(" ", _HTML_HEAD.sub(" ", text)).split())
        if title and title not in text:  # a page whose heading is not its title
            text = f"{title} {text}"
    return " ".join(text.split())[:MAX_WORDS_CHARS]
