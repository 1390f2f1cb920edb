"""Shell words read as bash reads them, one command's worth at a time."""

from __future__ import annotations

import pytest

from agent_cli.tools.shell_word import split_shell_words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("git  status\n-s", ["git", "status", "-s"]),
        ("\\git 'g'it \"g\"it g\\it $'\\x67it'", ["git"] * 5),
        ("bash -c 'a b'", ["bash", "-c", "a b"]),
        ("echo 'open then\tnext", ["echo", "then", "next"]),  # the open quote's word: out
        ("", []),
    ],
)
def test_split_shell_words_removes_quotes_word_by_word(text, words):
    assert split_shell_words(text) == words


def test_a_word_past_the_longest_read_leaves_the_words_after_it_read(monkeypatch):
    import agent_cli.tools.shell_word as shell_word

    monkeypatch.setattr(shell_word, "MAX_WORD_CHARS", 8)
    assert split_shell_words("x" * 20 + " g\\it status") == ["git", "status"]
