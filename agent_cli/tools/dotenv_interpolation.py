"""python-dotenv's interpolation: `${NAME}` and `${NAME:-default}` in a dotenv value,
from the names assigned before it in the same file. Pure.

`dotenv_values` and `load_dotenv` interpolate by default, in any quotes, so
`STRIPE_SECRET_KEY=${STRIPE_SECRET_KEY:-sk_live_...}` holds the default and
`DATABASE_URL=postgres://u:${PW}@h/db` the password: values the file never writes.

Contract: `interpolated_readings(assignments)` is, for each `(name, readings)`, the
interpolation of each reading where it differs: `${NAME}` is the last value
given NAME earlier in the file (its first reading, itself interpolated), or the default
after `:-`, or nothing (python-dotenv reads the environment too; an environment's
credentials are hidden on their own). A result over `MAX_VALUE_CHARS` is left out, and
once `BUDGET_CHARS` have been produced no further ones are made, so the work is bounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from agent_cli.tools.shell_expansion import MAX_VALUE_CHARS

BUDGET_CHARS = 16 * 1024 * 1024


def interpolated_readings(
    assignments: Iterable[tuple[str, tuple[str, ...]]],
) -> Iterator[tuple[str, ...]]:
    """For each `(name, readings)` in order, its interpolated readings that are new,
    perhaps none (module contract)."""
    values: dict[str, str] = {}
    budget = BUDGET_CHARS
    for name, readings in assignments:
        found: list[str] = []
        if budget > 0 and any("${" in reading for reading in readings):
            for reading in readings:
                result = _interpolated(reading, values)
                if result is not None and result not in readings:
                    budget -= len(result)
                    found.append(result)
        first = _interpolated(readings[0], values) if found else None
        values[name] = readings[0] if first is None else first
        yield tuple(each for each in dict.fromkeys(found) if each)


def _interpolated(reading: str, values: dict[str, str]) -> str | None:
    """`reading` interpolated, or None when it holds no variable or grows too long.
    python-dotenv's pattern, found in one pass: the next `}` and `:` are remembered,
    where a regex would scan on from every `${` (quadratic in a hostile line)."""
    pieces: list[str] = []
    length = cursor = 0
    close = colon = -1
    start = reading.find("${")
    while start != -1:
        if close < start:
            close = reading.find("}", start)
            if close == -1:
                break
        if colon < start + 2:
            colon = reading.find(":", start + 2)
            colon = len(reading) if colon == -1 else colon
        if colon < close and not reading.startswith("-", colon + 1):
            start = reading.find("${", start + 1)
            continue
        name = reading[start + 2 : min(colon, close)]
        default = reading[colon + 2 : close] if colon < close else ""
        piece = reading[cursor:start] + values.get(name, default)
        length += len(piece)
        if length > MAX_VALUE_CHARS:
            return None
        pieces.append(piece)
        cursor = close + 1
        start = reading.find("${", cursor)
    if not pieces:
        return None
    return "".join(pieces) + reading[cursor:]
