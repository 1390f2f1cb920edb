"""Run every benchmark module in this folder (`python -m bench`), in name order.

Benchmarks compare ratios measured in one run; they never assert timings in tests.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> int:
    folder = Path(__file__).parent
    names = sorted(
        m.name for m in pkgutil.iter_modules([str(folder)]) if m.name.startswith("bench_")
    )
    only = set(sys.argv[1:])
    for name in names:
        if only and name not in only:
            continue
        print(f"== {name}")
        importlib.import_module(f"bench.{name}").main()
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
