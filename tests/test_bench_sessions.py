"""The benches that time a long history's requests time that history, not what is left
of it after a compaction (28th session: `bench_request_path` and `bench_turn_check` had
timed a view of about six messages since thresholds were fitted to the model's window)."""

from __future__ import annotations

from pathlib import Path

from agent_cli.provider.offline import OfflineProvider
from agent_cli.session import open_session
from agent_cli.store.paths import resolve_state_paths
from bench.bench_compaction import NO_COMPACTION, build_history
from bench.bench_request_path import _drain
from bench.uncompacted_session import open_uncompacted_session

TURNS = 400  # about 290,000 tokens: past the offline model's 200,000-token window


def _view_after_a_request(session) -> int:
    try:
        session.conversation.restore(build_history(TURNS))
        _drain(session.prepare_request())
        return len(session.view)
    finally:
        session.close()


def test_the_benches_session_keeps_a_history_past_the_offline_window_whole(tmp_path: Path):
    assert _view_after_a_request(open_uncompacted_session(tmp_path)) == 2 * TURNS + 1


def test_the_offline_window_alone_would_compact_that_history(tmp_path: Path):
    """Why the benches need their own provider: under the same policy, the offline model's
    window lowers the thresholds and the first request compacts the history away."""
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(tmp_path)})
    session = open_session(
        paths=paths, provider=OfflineProvider(), workspace=tmp_path, policy=NO_COMPACTION
    )
    assert _view_after_a_request(session) < 50
