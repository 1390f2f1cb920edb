"""An offline session that keeps a long history whole, for benches that time its requests.

`NO_COMPACTION`'s thresholds alone are not enough: the session lowers thresholds that pass
its model's window to fit it (`session.budget.fit_to_window`), and the offline model's
window is 200,000 tokens, so the first request of a 1,000-turn history would compact it
to a handful of messages and every later figure would time those. The provider here
declares a window above `NO_COMPACTION`'s hard limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_cli.provider.offline import OfflineProvider
from bench.bench_compaction import NO_COMPACTION


class WideWindowOffline(OfflineProvider):
    """The offline model with a window `NO_COMPACTION` fits in."""

    context_window = 2 * NO_COMPACTION.hard_limit


def open_uncompacted_session(home: str | Path) -> Any:
    """An offline session under `NO_COMPACTION` with its state and workspace in `home`."""
    from agent_cli.session import open_session
    from agent_cli.store.paths import resolve_state_paths

    paths = resolve_state_paths({"AGENT_CLI_HOME": str(home)})
    return open_session(
        paths=paths, provider=WideWindowOffline(), workspace=Path(home), policy=NO_COMPACTION
    )
