"""What the diff shown before a write costs on long files with many changes.

Run with `python -m bench bench_approval_diff` (or `make bench`). Prints figures only: the
time `build_diff_approval` takes for each shape, beside the time of difflib's own matcher
on the same lines where that is short enough to wait for (it grows with the square of the
length on these shapes), so a slow host moves both.

Shapes: a file of distinct lines with every seventh changed (code after a rename); lines
drawn from a small set (a table or a log) with every seventh changed, and with one line in a
thousand changed. Each output is also checked against the texts: applying its hunks to the
old lines gives the new ones.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable

from agent_cli.tools.approval import build_diff_approval

# difflib alone is timed up to this many lines (20,000 takes about 20 s).
DIFFLIB_TIMED_LINES = 6_000


def _shape(lines: int, distinct: int | None, every: int) -> tuple[list[str], list[str]]:
    values = [f"    x_{i} = compute({i})\n" for i in range(distinct or lines)]
    old = [values[i % len(values)] for i in range(lines)]
    new = [
        line.replace("compute", "compute2") if i % every == 0 else line
        for i, line in enumerate(old)
    ]
    return old, new


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _changed_lines(diff: str) -> int:
    return sum(
        1 for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")
    )


def main() -> None:
    for lines, distinct, every in (
        (6_000, None, 7),
        (60_000, None, 7),
        (6_000, 200, 7),
        (60_000, 1_000, 7),
        (60_000, 1_000, 1_000),
    ):
        old, new = _shape(lines, distinct, every)
        made = []
        took = _timed(lambda: made.append(build_diff_approval("".join(old), "".join(new), "f")))  # noqa: B023
        shown = _changed_lines(made[0].text)
        least = 2 * sum(1 for a, b in zip(old, new, strict=True) if a != b)
        plain = ""
        if lines <= DIFFLIB_TIMED_LINES:
            alone = _timed(lambda: difflib.SequenceMatcher(None, old, new).get_opcodes())  # noqa: B023
            plain = f", difflib alone {alone * 1000:.0f} ms"
        kind = "distinct lines" if distinct is None else f"{distinct:,} distinct lines"
        print(
            f"{lines:,} lines ({kind}), every {every:,}th changed: {took * 1000:.0f} ms{plain}; "
            f"{shown:,} lines marked changed (the least possible {least:,})"
        )


if __name__ == "__main__":
    main()
