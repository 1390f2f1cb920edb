"""The loop measures the gauge beside the prompt and waits for it before using the session."""

from __future__ import annotations

import threading

from repl_fakes import FakeBackend, FakeSession, make_console

from agent_cli.events import Gauge
from agent_cli.repl.loop import Repl


class SlowGaugeSession(FakeSession):
    """A session whose gauge takes until `release` is set (like a tokenizer loading)."""

    def __init__(self) -> None:
        super().__init__(session_id="slow")
        self.release = threading.Event()

    def gauge(self):
        self.calls.append(("gauge started",))
        self.release.wait(timeout=30)
        self.calls.append(("gauge ended",))
        return Gauge(tokens=1, soft_threshold=2, hard_limit=3, estimator="e")


class TerminalLikeReader:
    """Answers scripted lines like the prompt does, and shows a gauge like it."""

    shows_gauge = True

    def __init__(self, session: SlowGaugeSession, lines: list[str]) -> None:
        self.session = session
        self.lines = lines
        self.gauges_seen: list[object] = []
        self.refreshes = 0

    def read_line(self, gauge_source=None) -> str:
        self.gauges_seen.append(gauge_source())  # what the toolbar would show right now
        if not self.lines:
            raise EOFError
        self.session.release.set()  # the user sends before the measurement is done
        return self.lines.pop(0)

    def refresh(self) -> None:
        self.refreshes += 1


def make_repl(session: FakeSession, reader: object) -> Repl:
    return Repl(
        session=session,
        backend=FakeBackend().factory(None, None),
        reader=reader,
        console=make_console(),
        live=False,
        offline_fallback=True,
    )


def test_the_prompt_does_not_wait_for_the_gauge_but_the_turn_does():
    session = SlowGaugeSession()
    reader = TerminalLikeReader(session, ["hello"])
    repl = make_repl(session, reader)
    assert repl.run() == 0
    assert reader.gauges_seen[0] is None  # the prompt was up before the gauge was measured
    names = [call[0] for call in session.calls]
    assert names.index("gauge ended") < names.index("run_turn")
    assert reader.refreshes >= 1 and session.closed


class PreparingProvider:
    """Records which thread built its client, and lets the test hold that work."""

    name = "anthropic"
    model = "claude-test"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.prepared_on: list[str] = []

    def prepare(self) -> None:
        self.release.wait(timeout=30)
        self.prepared_on.append(threading.current_thread().name)


class ReaderThatSeesPreparation:
    """Reads one line while the provider is still being prepared, then ends."""

    shows_gauge = False

    def __init__(self, provider: PreparingProvider) -> None:
        self.provider = provider
        self.prepared_before_reading: list[bool] = []

    def read_line(self, gauge_source=None) -> str:
        self.prepared_before_reading.append(bool(self.provider.prepared_on))
        self.provider.release.set()
        raise EOFError


def test_the_provider_client_is_built_on_a_worker_thread_without_holding_the_prompt():
    provider = PreparingProvider()
    session = FakeSession(provider=provider)
    reader = ReaderThatSeesPreparation(provider)
    repl = make_repl(session, reader)
    assert repl.run() == 0
    assert reader.prepared_before_reading == [False]  # the prompt did not wait for it
    repl.provider_preparation.result()
    assert provider.prepared_on == ["agent-cli-provider"]
