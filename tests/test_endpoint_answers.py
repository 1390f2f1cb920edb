"""What an endpoint that is not the Messages API answered, made safe to show."""

from __future__ import annotations

import pytest

from agent_cli.provider.endpoint_answers import (
    MAX_READ_CHARS,
    MAX_WORDS_CHARS,
    is_event_stream,
    media_type,
    server_words,
    short_words,
    shown_url,
)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:8080/v1/v1/messages", "http://127.0.0.1:8080/v1/v1/messages"),
        ("https://user:hunter2pass@proxy.test/v1/messages", "https://proxy.test/v1/messages"),
        ("https://proxy.test/v1/messages?token=abc123secret#x", "https://proxy.test/v1/messages"),
        ("http://[::1]:9000/v1/messages", "http://[::1]:9000/v1/messages"),
        ("http://127.0.0.1:abc/v1", ""),
    ],
)
def test_a_shown_url_keeps_where_the_request_went_and_drops_what_could_be_a_credential(url, shown):
    assert shown_url(url) == shown


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        ("text/event-stream", True),
        ("text/event-stream; charset=utf-8", True),
        ("Text/Event-Stream", True),
        ("text/event-stream, text/event-stream; charset=utf-8", True),  # two headers, joined
        ("text/event-stream, text/html", False),
        (None, True),  # no header: the stream's own parse decides
        ("", True),
        ("text/plain", False),
        ("text/html; charset=UTF-8", False),
        ("application/json", False),
    ],
)
def test_only_a_named_other_media_type_is_no_event_stream(content_type, expected):
    assert is_event_stream(content_type) is expected


def test_a_media_type_is_bare_lower_case_printable_and_short():
    assert media_type("Text/Plain; charset=utf-8") == "text/plain"
    assert media_type("text/\x1b[31mplain") == "text/[31mplain"
    assert len(media_type("x/" + "y" * 500)) <= 60


def test_a_page_is_read_as_its_title_and_text_and_any_body_as_one_short_line():
    page = (
        "<html><head><title>404 Not Found</title><style>body{color:red}</style></head>"
        "<body><h1>404 Not Found</h1><hr><center>nginx</center></body></html>"
    )
    assert server_words(page, "text/html") == "404 Not Found nginx"
    assert server_words("<title>Sign in</title><p>Use your badge</p>") == "Sign in Use your badge"
    assert server_words("Not found:\n  /v1/v1/messages\r\n") == "Not found: /v1/v1/messages"
    assert server_words("word " * 1000, "text/plain") == " ".join(["word"] * 1000)
    assert server_words("<" + "script " * 50_000, "text/html").startswith("<script")


def test_a_read_that_cut_the_body_leaves_out_the_word_it_cut():
    """The word a bound cut may be the start of a key, which no redaction would know."""
    assert server_words("said: sk-ant-api03-abcd", complete=False) == "said:"
    assert server_words("said: sk-ant-api03-abcd", complete=True) == "said: sk-ant-api03-abcd"
    long = "x " * (MAX_READ_CHARS // 2 - 3) + "sk-ant-api03-abcdefghijkl"
    assert server_words(long).split()[-1] == "x"


def test_short_words_are_cut_at_a_word_and_keep_a_redaction_whole():
    assert short_words("short") == "short"
    words = "a" * 70 + " tail of the words"
    assert short_words(words) == "a" * 70 + " tail of…"
    redacted = "b" * 75 + "[redacted] end"
    assert short_words(redacted) == "b" * 75 + "…"
    assert len(short_words("c" * 500)) == MAX_WORDS_CHARS + 1
