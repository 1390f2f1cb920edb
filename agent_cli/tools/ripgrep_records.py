"""Running ripgrep over texts handed to it, one record each: a bounded regex search.

Why rg and not Python's `re`: the pattern comes from the model, and a backtracking engine
can spend hours on a pattern such as `(a+)+$`; rg's engine runs in linear time, and the
run is ended after `timeout` seconds whatever happens. grep uses the same binary
(`ripgrep.find_rg`).

Contract: `find_in_records(pattern, texts, timeout=...)` feeds `texts` to rg on stdin,
NUL-separated (`--null-data`: each text is one rg "line", so `^` and `$` still work at the
text's own line breaks and `\\n` matches one), and yields one `RecordMatch` per text that
matches, in order: the text's index in `texts` and the byte span of its first match in
the text's UTF-8 encoding, with the text as rg saw it. NUL characters inside a text are
read as U+FFFD, since NUL separates the texts. The caller stops early by not reading on
(rg is then ended); `RecordSearch` says afterwards whether time ran out, and a pattern
rg cannot parse raises `ToolError` naming what rg said. No file is opened: rg reads only
the pipe.
"""

from __future__ import annotations

import base64
import contextlib
import json
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from agent_cli.errors import ToolError
from agent_cli.tools.ripgrep import find_rg, rg_refusal_reason

_OPTIONS = ("--no-config", "--null-data", "--json", "--color=never")
_SEPARATOR = b"\x00"
_STDERR_LIMIT = 4_096


@dataclass(frozen=True)
class RecordMatch:
    index: int  # position of the text in the texts given
    text: str  # the text as rg searched it (NUL read as U+FFFD)
    start: int  # byte span of the first match in `text.encode("utf-8")`
    end: int


@dataclass
class RecordSearch:
    """What a finished or stopped run left: `timed_out` when the time limit ended it."""

    timed_out: bool = False
    texts_fed: int = 0


def find_in_records(
    pattern: str, texts: Iterable[str], run: RecordSearch, *, timeout: float
) -> Iterator[RecordMatch]:
    """Yield the texts that `pattern` matches (see the module contract); fills `run`."""
    process = subprocess.Popen(
        [find_rg(), *_OPTIONS, "--regexp", pattern, "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    said: list[bytes] = []
    feeder = threading.Thread(target=_feed, args=(process.stdin, texts, run), daemon=True)
    drain = threading.Thread(target=lambda: said.append(_read_some(process.stderr)), daemon=True)
    timer = threading.Timer(timeout, _expire, (process, run))
    feeder.start()
    drain.start()
    timer.start()
    try:
        yield from _matches(process.stdout)
    finally:
        timer.cancel()
        _end(process, feeder, drain)
    _refuse_a_bad_pattern(process.returncode, b"".join(said), run, pattern)


def _feed(stdin: IO[bytes] | None, texts: Iterable[str], run: RecordSearch) -> None:
    """Writes each text and its separator; stops quietly when rg has gone (ended early,
    timed out or refused the pattern)."""
    if stdin is None:
        return
    try:
        for text in texts:
            data = text.replace("\x00", "\ufffd").encode("utf-8", errors="replace")
            stdin.write(data + _SEPARATOR)
            run.texts_fed += 1
    except (BrokenPipeError, ValueError):  # ValueError: the pipe was closed under us
        pass
    finally:
        with contextlib.suppress(BrokenPipeError):
            stdin.close()


def _matches(stdout: IO[bytes] | None) -> Iterator[RecordMatch]:
    if stdout is None:
        return
    for line in stdout:
        event = json.loads(line)
        if event.get("type") != "match":
            continue
        yield _record_match(event["data"])


def _record_match(data: dict[str, Any]) -> RecordMatch:
    lines = data["lines"]
    if "text" in lines:
        text = lines["text"]
    else:  # rg sends bytes that are not UTF-8 as base64; the texts it was fed are UTF-8
        text = base64.b64decode(lines.get("bytes", "")).decode("utf-8", errors="replace")
    if text.endswith("\x00"):
        text = text[:-1]
    first = data["submatches"][0] if data["submatches"] else {"start": 0, "end": 0}
    return RecordMatch(data["line_number"] - 1, text, first["start"], first["end"])


def _read_some(stream: IO[bytes] | None) -> bytes:
    if stream is None:
        return b""
    kept = stream.read(_STDERR_LIMIT)
    while stream.read(65_536):  # the rest is drained, not kept, so rg never blocks on it
        pass
    return kept


def _expire(process: subprocess.Popen[bytes], run: RecordSearch) -> None:
    run.timed_out = True
    process.kill()


def _end(
    process: subprocess.Popen[bytes], feeder: threading.Thread, drain: threading.Thread
) -> None:
    """Ends rg if it still runs, then waits for both helper threads: with rg gone its
    stdin refuses writes (the feeder stops) and its stderr ends (the drain stops)."""
    if process.poll() is None:
        process.kill()
    if process.stdout is not None:
        process.stdout.close()
    process.wait()
    feeder.join()
    drain.join()
    if process.stderr is not None:
        process.stderr.close()


def _refuse_a_bad_pattern(
    returncode: int | None, stderr: bytes, run: RecordSearch, pattern: str
) -> None:
    """rg exits 2 for a pattern it cannot parse (before reading anything); what it said
    is passed on without the pattern it quotes (`tools.echo`)."""
    said = stderr.decode("utf-8", errors="replace").strip()
    if returncode == 2 and not run.timed_out and "regex" in said:
        detail = rg_refusal_reason(said, (pattern,))[:300]
        raise ToolError(
            f"The regex cannot be used ({detail}). It uses ripgrep's syntax (like Python's "
            "`re` without look-around or back-references); escape ( ) [ ] { } . * + ? | "
            "with a backslash, or search by words instead."
        )
