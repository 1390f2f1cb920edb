"""What an endpoint that is not the Messages API answered, in a form safe to show.

Contract (pure string work, no SDK and no I/O): `shown_url(url)` is the URL a request
went to without what could be a credential (user name, password, query, fragment, a
path segment that is a key by a service's prefix, `sk-ant-...`, `ghp_...`); a path segment
that is a known secret of the session is left to the session's redaction, which every
shown URL passes through (`session/shown_errors`), and an id (a model's, a deployment's,
a tenant's UUID, an account's hex) is shown as it is;
`media_type(content_type)` the bare media type of a `content-type` header, lower case and
short; `is_event_stream(content_type)` says whether a header names the event stream a
streamed answer should be (a missing header, or the same one sent twice, is not held
against the answer); `server_words(body, content_type)` is an error body or an answer that
was no stream as one line: HTML tags dropped, whitespace collapsed, at most the words of
its first `MAX_READ_CHARS` characters, a word the read cut left out (it may be the start
of a key). The words are not cut further here: the callers redact the API key and the
session's secrets first, then cut with `short_words` to `MAX_WORDS_CHARS`, so no cut can
leave a piece of a secret that redaction would no longer know.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit, urlunsplit

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.token_shape import has_prefixed_key

MAX_WORDS_CHARS = 80
MAX_READ_CHARS = 20_000  # of a body, read for its words: a page's start says what it is
MAX_MEDIA_TYPE_CHARS = 60
EVENT_STREAM = "text/event-stream"
_TAG = re.compile(r"<[^>]{0,2000}>")
_HTML_HEAD = re.compile(r"<(?:head|script|style)\b.*?</(?:head|script|style)\s*>", re.I | re.S)
# What redaction leaves (the provider's for its key, the session's for its secrets).
_MARKS = re.compile(re.escape("[redacted]") + "|" + re.escape(REDACTED_MARK))
_LONGEST_MARK = max(len("[redacted]"), len(REDACTED_MARK))
_LAST_WORD = re.compile(r"\S+\Z")
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.I | re.S)


def shown_url(url: str) -> str:
    """`url` as scheme, host, port and path only: a password or a token in the user
    part or the query of ANTHROPIC_BASE_URL never reaches an error line, and a path
    segment that is a key by its prefix (a gateway that takes its key in the path) is
    shown as `REDACTED_MARK`. A segment that only looks random (a dated model name, a
    UUID, a 32-hex account id) is an id far more often than a key: it is shown."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return ""
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, _path_without_keys(parts.path), "", ""))


def _path_without_keys(path: str) -> str:
    """`path` with each segment that is a key by its prefix (`has_prefixed_key`) hidden."""
    return "/".join(_shown_segment(part) for part in path.split("/"))


def _shown_segment(segment: str) -> str:
    """A segment as shown: hidden when it, or one of its `;`/`=` pieces, is a key."""
    pieces = re.split(r"[;=,]", unquote(segment))
    return REDACTED_MARK if any(has_prefixed_key(piece) for piece in pieces) else segment


def media_type(content_type: str | None) -> str:
    """The media type of a `content-type` header (`text/plain` of `text/plain;
    charset=utf-8`), lower case, printable and short; "" when there is none."""
    bare = (content_type or "").split(";", 1)[0].strip().lower()
    return "".join(ch for ch in bare if ch.isprintable())[:MAX_MEDIA_TYPE_CHARS]


def is_event_stream(content_type: str | None) -> bool:
    """False only when the header names another media type than an event stream (two
    headers arrive joined by a comma: `text/event-stream, text/event-stream`)."""
    named = {media_type(part) for part in (content_type or "").split(",")} - {""}
    return not named or named == {EVENT_STREAM}


def server_words(body: str, content_type: str | None = None, *, complete: bool = True) -> str:
    """What a server said, on one line; see the module contract (`complete=False`: `body`
    is the head of a longer answer, its last word maybe cut). An HTML page is
    read as its title and text, so a proxy's error page says "404 Not Found", not markup."""
    text = body[:MAX_READ_CHARS]
    if len(body) > MAX_READ_CHARS or not complete:
        text = _LAST_WORD.sub("", text)  # what the read cut may be the start of a key
    if "html" in media_type(content_type) or text.lstrip()[:1] == "<":
        found = _TITLE.search(text)
        title = " ".join(_TAG.sub(" ", found.group(1)).split()) if found else ""
        text = " ".join(_TAG.sub(" ", _HTML_HEAD.sub(" ", text)).split())
        if title and title not in text:  # a page whose heading is not its title
            text = f"{title} {text}"
    return " ".join(text.split())


def short_words(words: str, limit: int = MAX_WORDS_CHARS) -> str:
    """`words` (one line, already redacted) cut to at most `limit` characters and "…",
    at the end of a word when one ends in the second half (a `[redacted]` is kept whole)."""
    if len(words) <= limit:
        return words
    end = limit
    for mark in _MARKS.finditer(words, max(0, limit - _LONGEST_MARK), limit + _LONGEST_MARK):
        if mark.start() < end < mark.end():
            end = mark.start()
    space = words.rfind(" ", 0, end + 1)
    return words[: space if space > limit // 2 else end] + "…"
