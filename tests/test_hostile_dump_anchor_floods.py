"""A line of one piece of a secret's hex, repeated, cannot hang redaction.

Review of fix31b (session 31, `/tmp/rfix31b/rev_anchor.py`): `6768705f` (the hex of
`ghp_`) repeated made the dump reader re-read a window of several KB around each of its
hits: 4.1 s of CPU at 2 KB, 18 s at 4 KB, 68 s at 8 KB, so a file or an output of a few
KB could block a turn for minutes. The reader now reads each stretch of text a bounded
number of times (`secret_dumps.DumpFinder.spans`). Counted here in characters read, not
timed; the dumps hidden inside such a flood are still found.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from agent_cli.secret_dumps import DumpFinder
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.redaction import SecretRedactor

TOKEN = "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u"
FLOODS = {
    "the token's first bytes in hex, one line": "6768705f" * 4096,
    "the same in rows of 32": "\n".join(["6768705f" * 4] * 1024),
    "its bytes as an xxd row's groups": "6768 705f " * 3276,
}


def characters_read(finder: DumpFinder, text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many characters `finder` would read to find the dumps of a `text` that holds
    none (the windows it asks for; each is read as found empty, as a flood's are)."""
    read = 0

    def counting(self: DumpFinder, text: str, low: int, high: int) -> Iterator[tuple[int, int]]:
        nonlocal read
        read += high - low
        return iter(())

    monkeypatch.setattr(DumpFinder, "_read", counting)
    list(finder.spans(text))
    return read


@pytest.mark.parametrize("name", FLOODS)
def test_a_flood_of_anchors_is_read_a_bounded_number_of_times(name, monkeypatch):
    text = FLOODS[name]
    read = characters_read(DumpFinder([TOKEN]), text, monkeypatch)
    assert read <= 4 * len(text), (name, read, len(text))


@pytest.mark.parametrize("name", FLOODS)
def test_a_dump_of_the_token_inside_a_flood_is_still_hidden(name):
    dump = subprocess.run(
        ["xxd", "-p"], input=TOKEN.encode(), capture_output=True, check=True
    ).stdout.decode()
    flood = FLOODS[name]
    middle = len(flood) // 2
    text = flood[:middle] + "\n" + dump + flood[middle:]
    redaction = SecretRedactor([TOKEN]).redact(text)
    assert REDACTED_MARK in redaction.text
    assert TOKEN.encode().hex()[8:40] not in redaction.text.replace("\n", "")
    assert redaction.text.startswith(flood[:64])  # the flood itself is no dump of it
