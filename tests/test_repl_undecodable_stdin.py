"""stdin whose declared encoding cannot decode what is piped in (PYTHONIOENCODING=ascii
and `héllo`): the line reader raised UnicodeDecodeError and the REPL died. Real
TextIOWrappers over bytes, as Python builds stdin."""

from __future__ import annotations

import io

import pytest

from agent_cli.repl.plain_input import PlainLineReader
from agent_cli.repl.startup import read_print_prompt
from agent_cli.repl.undecodable_input import replace_undecodable, tolerate_undecodable_stdin


def stdin_of(data: bytes, encoding: str, errors: str = "strict") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding=encoding, errors=errors)


def test_an_ascii_stdin_reads_utf8_text_as_written() -> None:
    stream = stdin_of("héllo ☕\nnext\n".encode(), "ascii")
    tolerate_undecodable_stdin(stream)
    reader = PlainLineReader(stream)
    assert [reader.read_line(), reader.read_line()] == ["héllo ☕", "next"]


def test_an_ascii_stdin_gives_a_byte_no_utf8_reads_as_a_named_replacement() -> None:
    stream = stdin_of(b"caf\xe9\n", "us-ascii")
    tolerate_undecodable_stdin(stream)
    assert replace_undecodable(PlainLineReader(stream).read_line()) == ("caf\ufffd", (0xE9,))


@pytest.mark.parametrize("encoding", ["cp1252", "shift_jis", "utf-8"])
def test_a_strict_stdin_of_another_codec_gives_its_bad_bytes_as_replacements(encoding) -> None:
    bad = {"cp1252": b"\x81", "shift_jis": b"\xff", "utf-8": b"\xff"}[encoding]
    stream = stdin_of(b"a" + bad + b"b\n", encoding)
    tolerate_undecodable_stdin(stream)
    line = PlainLineReader(stream).read_line()
    assert replace_undecodable(line) == ("a\ufffdb", (bad[0],))


def test_a_print_prompt_read_from_an_ascii_stdin_is_read_as_written() -> None:
    stream = stdin_of("résumé, please".encode(), "ascii")
    tolerate_undecodable_stdin(stream)
    assert read_print_prompt("-", stream) == "résumé, please"


def test_a_lenient_handler_is_kept_and_a_stream_without_reconfigure_is_left_alone() -> None:
    stream = stdin_of(b"a\xffb\n", "utf-8", errors="replace")
    tolerate_undecodable_stdin(stream)
    assert (stream.encoding, stream.errors) == ("utf-8", "replace")
    tolerate_undecodable_stdin(io.StringIO("x\n"))
    tolerate_undecodable_stdin(None)  # fd 0 closed: Python sets sys.stdin to None
